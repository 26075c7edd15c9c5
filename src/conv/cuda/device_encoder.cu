// The CUDA convolutional encoder (plan/device_encoder.hpp): the encoder's tables copied to the
// device once, then per batch a kernel for the start states where a frame has one to find
// (tail-biting, or any recursive code: its register bits), and a kernel over 32-stage words: the
// general one through the puncturing period's tables, or for rate 1/2 unpunctured the pair kernel.
#include <algorithm>
#include <cstdint>

#include "common/cuda/device_buffer.cuh"
#include "common/cuda/occupancy.cuh"
#include "conv/cuda/kernels/encoder_kernels.cuh"
#include "conv/plan/device_encoder.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::conv::detail {
namespace {

class cuda_encoder final : public device_encoder {
 public:
  explicit cuda_encoder(const encoder& e)
      : units_(make_encoder_units(e)),
        limits_(cuda::current_device_limits()),
        start_shape_(cuda::suggested_shape(frame_start_kernel)) {
    // A thread per 32 stages keeps beta words of parities: blocks of 256 threads (at most 4 KiB).
    constexpr int threads = 256;
    const std::size_t shared = sizeof(std::uint32_t) * units_.beta * threads;
    cuda::allow_shared(coded_words_kernel, shared);
    words_shape_ = {threads, threads, 1, shared,
                    cuda::resident_blocks(coded_words_kernel, threads, shared)};
    require(words_shape_.blocks_per_sm > 0, "the CUDA conv encoder cannot be resident (", shared,
            " B of shared memory per block)");
    // Two streams sent every stage, frames a multiple of 4 bytes: both streams' bits a thread
    // (blocks of whole warps, as the kernel needs).
    pairs_ = units_.period == 1 && units_.beta == 2 && units_.sent_per_period == 2 &&
             units_.coded_bits % 4 == 0;
    if (pairs_) {
      const std::size_t rows = sizeof(std::uint32_t) * 17 * threads;
      cuda::allow_shared(pair_words_kernel, rows);
      pairs_shape_ = {threads, threads, 1, rows,
                      cuda::resident_blocks(pair_words_kernel, threads, rows)};
      pairs_ = pairs_shape_.blocks_per_sm > 0;
    }
    const auto phases = puncture_phases(e);
    phases_.resize(phases.size());
    phases_.upload(phases.data(), phases.size());
    const auto slots = puncture_slots(e);
    slots_.resize(slots.size());
    slots_.upload(slots.data(), slots.size());
    if (units_.recursive) {
      const auto parity = feedback_parities(e);
      parity_.resize(parity.size());
      parity_.upload(parity.data(), parity.size());
    }
    if (units_.recursive && units_.tail_biting) {
      const auto starts = e.tailbiting_starts();
      tailbiting_start_.resize(starts.size());
      tailbiting_start_.upload(starts.data(), starts.size());
    }
  }

  void encode(batch_view<std::uint8_t> info, batch_span<std::uint8_t> coded,
              cuda_stream stream) override {
    require(info.is_uniform() && info.on_device() && coded.on_device(),
            "the CUDA conv encoder takes uniform device batches");
    require(info.stride == units_.info_bits && coded.stride == units_.coded_bits &&
                coded.frames() == info.frames(),
            "the CUDA conv encoder: ", info.frames(), " frames of ", info.stride, " bits into ",
            coded.frames(), " of ", coded.stride, "; the frame holds ", units_.info_bits,
            " bits and sends ", units_.coded_bits);
    const std::size_t frames = info.frames();
    if (frames == 0) return;
    const cudaStream_t s = stream;
    const std::uint8_t* bits = info.data;
    const bool starts = units_.recursive || units_.tail_biting;
    if (starts) {
      start_.resize(std::max(start_.size(), frames));
      if (units_.recursive)
        registers_.resize(std::max(registers_.size(), frames * units_.info_bits));
      frame_start_kernel<<<start_shape_.grid_stride_blocks(limits_.sm_count, frames),
                           start_shape_.threads, 0, s>>>(
          units_, info.data, parity_.get(), tailbiting_start_.get(), frames, start_.get(),
          units_.recursive ? registers_.get() : nullptr);
      GPUFEC_CUDA_CHECK_LAUNCH("frame_start_kernel");
      if (units_.recursive) bits = registers_.get();
    }
    // Blocks along x cover a frame's rounds of stage words (up to a wave), frames along y: a
    // block per frame and round, not a resident wave, because a frame's last round is often a few
    // stages (8192 bits and a zero tail: 257 words) and its block would idle a resident slot.
    const auto rows = static_cast<unsigned>(std::min<std::size_t>(frames, 65535));
    // The pair kernel writes words: the batch must start on 4 bytes (a view may start anywhere).
    if (pairs_ && reinterpret_cast<std::uintptr_t>(coded.data) % 4 == 0) {
      const auto grid =
          pairs_shape_.frame_blocks(limits_.sm_count, (units_.stages + 31) / 32, frames);
      pair_words_kernel<<<dim3(grid.x, rows), pairs_shape_.threads, pairs_shape_.shared, s>>>(
          units_, bits, starts ? start_.get() : nullptr, frames, coded.data);
      GPUFEC_CUDA_CHECK_LAUNCH("pair_words_kernel");
      return;
    }
    const auto grid =
        words_shape_.frame_blocks(limits_.sm_count, (units_.stages + 31) / 32, frames);
    coded_words_kernel<<<dim3(grid.x, rows), words_shape_.threads, words_shape_.shared, s>>>(
        units_, phases_.get(), slots_.get(), small_divisor::of(units_.sent_per_period), bits,
        starts ? start_.get() : nullptr, frames, coded.data);
    GPUFEC_CUDA_CHECK_LAUNCH("coded_words_kernel");
  }

 private:
  encoder_units units_;
  cuda::device_limits limits_;
  cuda::launch_shape start_shape_, words_shape_, pairs_shape_;
  bool pairs_ = false;  // pair_words_kernel writes the sent bits
  cuda::device_buffer<std::uint32_t> phases_, slots_;
  cuda::device_buffer<std::uint8_t> parity_, registers_;
  cuda::device_buffer<std::uint16_t> tailbiting_start_;
  cuda::device_buffer<unsigned> start_;
};

std::unique_ptr<device_encoder> make_cuda_encoder(const encoder& e) {
  return std::make_unique<cuda_encoder>(e);
}

const register_cuda_backend<device_encoder_entry> registered{&make_cuda_encoder};

}  // namespace
}  // namespace gpufec::conv::detail
