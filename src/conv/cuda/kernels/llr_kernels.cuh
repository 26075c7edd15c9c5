// Float LLRs and hard bits in device memory made int8 on the device, exactly as the host paths
// make them (decoder_plan::decode on host batches): the same quantizer, q = round-half-even(
// clamp(L s, -127, 127)) in float, and the same automatic scale s = 31.75 / mean |L| per frame,
// its sum taken in the host's order (fast_kernel.cpp ScanLlrs): blocks of 4096 values; in a block
// four float accumulators, value i into accumulator i mod 4 in order up to the last whole four,
// combined as (a0 + a1) + (a2 + a3) in double, then the block's last values added in double; the
// blocks' sums added in order in double within runs of 2^20 values (kLlrScanRun), the runs' sums
// in order. Float additions in one order are the same IEEE operations on both sides, so the scale,
// and hence the bits, equal the host's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common/cuda/device_buffer.cuh"

namespace gpufec::conv::detail {

// Device scratch for chunks of up to `chunk_frames` frames of `n` values each.
class device_quantizer {
 public:
  device_quantizer(std::size_t chunk_frames, std::size_t n);

  std::size_t chunk_frames() const { return chunk_; }
  std::size_t device_bytes() const;
  // Forgets any non-finite value noted before (queued on `stream`).
  void clear_error(cudaStream_t stream);
  // Frames [0, count) of `llr` (stride n) -> int8 in q(): by `fixed_scale`, or 0: each frame's
  // automatic scale. A NaN or infinite value is noted with its frame (counted from
  // `frame_base`) and index; the lowest (frame, index) wins. Queued on `stream`.
  void quantize(const float* llr, std::size_t count, std::size_t frame_base, double fixed_scale,
                cudaStream_t stream);
  // Hard bits (non-zero = 1) of frames [0, count) -> +-1 in q(). Queued on `stream`.
  void harden(const std::uint8_t* hard, std::size_t count, cudaStream_t stream);
  const std::int8_t* q() const { return q_.get(); }
  // Waits for `stream`; throws invalid_argument ("frame 3: LLR 17 is NaN: ...", the host path's
  // message) when a non-finite value was noted since clear_error. `llr_of(frame)` gives that
  // frame's values in device memory, to read the culprit.
  template <class LlrOf>
  void throw_if_not_finite(cudaStream_t stream, LlrOf&& llr_of) const {
    const auto bad = noted(stream);
    if (bad != kNone) report(bad, llr_of(bad >> 32));
  }

 private:
  static constexpr unsigned long long kNone = ~0ull;
  unsigned long long noted(cudaStream_t stream) const;
  [[noreturn]] void report(unsigned long long bad, const float* frame_llr) const;

  std::size_t chunk_ = 1, n_ = 0, blocks_ = 0;
  cuda::device_buffer<std::int8_t> q_;
  cuda::device_buffer<float> partial_, scale_;   // [frame][block][4]; [frame]
  cuda::device_buffer<unsigned long long> bad_;  // (frame << 32) | index of the first non-finite
};

}  // namespace gpufec::conv::detail
