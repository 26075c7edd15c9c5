// The polar engines behind decoder_plan: the scalar references (sc_reference.cpp,
// bp_reference.cpp) and the SIMD fast paths (sc_fast.cpp, bp_fast.cpp). The plan validates
// everything first; an engine only decodes, into the buffers of one request, with the scratch it
// allocated when it was made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gpufec/common/stop_token.hpp"
#include "gpufec/polar/decoder.hpp"

namespace gpufec::polar::detail {

// One decode call's buffers, uniform and on the host: frames * N LLRs in; any of the outputs may
// be null. `soft` has soft_stride (K or N) values per frame.
struct decode_request {
  const float* llr = nullptr;
  std::size_t frames = 0;
  std::uint8_t* info_bits = nullptr;  // K per frame
  float* soft = nullptr;
  std::size_t soft_stride = 0;
  std::uint32_t* iterations = nullptr;  // one per frame
  // Looked at between BP iterations (and CUDA chunks): when requested, the engine ends the call
  // early by throwing gpufec::stopped, its outputs not to be used. Null: never.
  const stop_token* stop = nullptr;
  bool stop_requested() const { return stop && stop->requested(); }
};

class polar_engine {
 public:
  virtual ~polar_engine() = default;
  virtual void decode(const decode_request& request) = 0;
  virtual std::size_t scratch_bytes() const = 0;
};

// The Highway target the fast paths run on and how many fp32 lanes its vectors hold.
struct simd_target {
  std::string name;
  std::size_t lanes = 1;
};
simd_target fast_simd_target();

// Scratch one thread of each engine needs (the plan's automatic choice compares them).
std::size_t reference_scratch_per_thread(const polar_code& code, const decoder_options& options);
std::size_t fast_scratch_per_thread(const polar_code& code, const decoder_options& options,
                                    std::size_t lanes);

std::unique_ptr<polar_engine> make_sc_reference(const polar_code& code,
                                                const decoder_options& options, int threads);
std::unique_ptr<polar_engine> make_bp_reference(const polar_code& code,
                                                const decoder_options& options, int threads);
std::unique_ptr<polar_engine> make_sc_fast(const polar_code& code, const decoder_options& options,
                                           int threads, plan_summary& summary);
std::unique_ptr<polar_engine> make_bp_fast(const polar_code& code, const decoder_options& options,
                                           int threads);

}  // namespace gpufec::polar::detail
