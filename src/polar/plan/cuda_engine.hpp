// The CUDA BP engine as the plan sees it: plain C++ (no CUDA types), so the plan builds in any
// build. The engine (cuda/bp_engine.cu) registers its factory when CUDA is compiled
// (common/backend_registry.hpp); the plan asks for it through cuda_factory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/backend_registry.hpp"
#include "gpufec/common/cuda_stream.hpp"
#include "polar/cpu/engine.hpp"

namespace gpufec::polar::detail {

// Decides as bp_reference does (same schedule, same float operations; docs/polar.md, CUDA).
// decode() (polar_engine) takes host buffers of any number of frames up to the plan's max_batch
// and returns when the outputs are in them.
class bp_device_engine : public polar_engine {
 public:
  // `r`'s pointers are device memory; queued on `stream` (asynchronous).
  virtual void decode_device(const decode_request& r, cuda_stream stream) = 0;
  // Waits for the work queued on `stream`; a `stop` (null: none) that comes first ends the
  // launch early (its outputs not to be used) and throws gpufec::stopped.
  virtual void wait(cuda_stream stream, const stop_token* stop) = 0;
  // The iterations of the device-path frames decoded without an iterations array since the last
  // call, summed (waits for the device).
  virtual std::uint64_t device_iterations() = 0;
  // The device path timed on `frames` host frames copied to the device once: the median of
  // `repeats` decode calls after a warm-up (CUDA events, decoder only), outputs copied back.
  virtual double time_device(const decode_request& host, int repeats) = 0;
  // "layout shared, 512 threads per codeword, 1 codeword per block, ...".
  virtual std::string describe() const = 0;
  virtual std::size_t device_bytes() const = 0;
  // Frames per host chunk: at least 8 waves of codewords (and 32 MB of LLRs), at most max_batch.
  virtual std::size_t chunk_frames() const = 0;
};

struct cuda_bp_entry {
  using factory = std::unique_ptr<bp_device_engine> (*)(const polar_code&, const decoder_options&,
                                                        std::size_t max_batch);
};

}  // namespace gpufec::polar::detail
