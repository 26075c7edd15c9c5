// The CUDA BPSK/AWGN chain as a registry entry (src/sim/cuda/awgn_chain.cu sets it when CUDA is
// compiled), and what both chains share.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>

#include "common/backend_registry.hpp"
#include "gpufec/sim/awgn_chain.hpp"

namespace gpufec::sim::detail {

struct cuda_awgn_chain_entry {
  using factory = std::unique_ptr<chain> (*)(const binary_code&, double ebn0_db,
                                             std::uint64_t seed);
};

// Frames per decoder call: about `samples` transmitted bits, at least one frame.
inline std::size_t frames_for(const binary_code& code, backend where) {
  return chain_batch_frames(code.info_bits, code.coded_bits, where);
}

fields chain_details(const binary_code& code, double sigma, const binary_decoder& decoder);

// Bytes a chain holds per frame: the information bits and their decisions, the transmitted bits
// (when encoded) and the decoder's input.
inline std::size_t chain_bytes_per_frame(const binary_code& code) {
  return 2 * code.info_bits + (code.encode ? code.coded_bits : 0) +
         code.coded_bits * gpufec::llr_bytes(code.llr);
}

// Throws out_of_memory when not even one frame fits in `available` bytes of `where`'s memory.
void require_one_frame_fits(const binary_code& code, std::size_t available, const char* where);

// Hands n frames of N LLRs of `kind` (float, int8 or hard bits, at `llr`) to the decoder.
void decode_as(binary_decoder& decoder, llr_kind kind, const void* llr, std::size_t n,
               std::size_t N, batch_span<std::uint8_t> out, cuda_stream stream,
               const stop_token& stop);

// Both chains: a call's frames in steps of the decoder's batch, ending early (with the frames of
// the steps done) when a stop is requested: between steps, and inside a step (a long frame) where
// the chain can (the step's frames are then not counted).
class stepped_chain : public chain {
 public:
  double run(std::uint64_t first_frame, std::vector<frame_outcome>& outcomes,
             const stop_token& stop) final {
    double seconds = 0;
    for (std::size_t begin = 0; begin < outcomes.size(); begin += step_) {
      const std::size_t n = std::min(step_, outcomes.size() - begin);
      const std::optional<double> step =
          begin > 0 && stop.requested()
              ? std::nullopt
              : run_step(first_frame + begin, n, outcomes.data() + begin, stop);
      if (!step) {
        outcomes.resize(begin);
        break;
      }
      seconds += *step;
    }
    return seconds;
  }

 protected:
  explicit stepped_chain(std::size_t step) : step_(step) {}
  std::size_t step() const { return step_; }
  void set_step(std::size_t step) { step_ = std::max<std::size_t>(step, 1); }
  // Frames [first, first + n) into outcomes[0, n); returns the decoder's seconds, or nothing when
  // `stop` ended the step before its frames were done.
  virtual std::optional<double> run_step(std::uint64_t first, std::size_t n,
                                         frame_outcome* outcomes, const stop_token& stop) = 0;

 private:
  std::size_t step_;
};

}  // namespace gpufec::sim::detail
