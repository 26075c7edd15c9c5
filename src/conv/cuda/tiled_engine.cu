// The CUDA tiled Viterbi engine: executes a cuda_plan (plan/cuda_plan.hpp, made by
// cuda/tiled_plan.cu) over the two kernels (the register kernel, kernels/register_kernel.cuh; the
// shared-memory kernel, kernels/shared_kernel.cuh): it uploads the code's tables, runs host
// batches through the chunk pipeline in the plan's chunks or windows, device batches on the
// caller's stream and the device quantizer in the plan's chunks. Both kernels decide exactly as
// tiled_decoder (gpufec/conv/tiling.hpp) on the same int8 LLRs.
#include <algorithm>
#include <optional>
#include <vector>

#include "common/cuda/chunk_pipeline.cuh"
#include "common/cuda/device_buffer.cuh"
#include "common/cuda/occupancy.cuh"
#include "common/cuda/stream.cuh"
#include "conv/cuda/kernels/llr_kernels.cuh"
#include "conv/cuda/kernels/shared_kernel.cuh"
#include "conv/cuda/kernels/tiled_params.cuh"
#include "conv/cuda/register_table.hpp"
#include "conv/cuda/tiled_geometry.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "conv/stream/stream_tiles.hpp"

namespace gpufec::conv::detail {
namespace {

class cuda_tiled_engine final : public tiled_device_engine {
 public:
  cuda_tiled_engine(const tiled_setup& setup, const cuda_plan& plan)
      : setup_(setup), plan_(plan), params_(plan.params) {
    const conv_code& code = setup_.code;
    if (plan_.registers) {
      reg_ = find_register_kernel(code);
      require(reg_ != nullptr, "internal: the plan chose the register kernel for ",
              code.to_string(), ", which it is not compiled for");
    }
    // The tables the kernels read.
    const unsigned S = code.states();
    const puncture_tables tables = make_puncture_tables(code, setup_.pattern);
    std::vector<std::uint8_t> pair(S), parity(S);
    for (unsigned j = 0; j < S; ++j) {
      const unsigned s0 = j >> 1, w = j & 1u;
      pair[j] = static_cast<std::uint8_t>(code.label(s0, w) | code.label(s0 + S / 2, w) << 4);
      parity[j] = static_cast<std::uint8_t>(code.input_bit(j, 0));
    }
    phase_base_.resize(tables.phase_base.size());
    phase_base_.upload(tables.phase_base.data(), tables.phase_base.size());
    phase_mask_.resize(tables.phase_mask.size());
    phase_mask_.upload(tables.phase_mask.data(), tables.phase_mask.size());
    pair_labels_.resize(S);
    pair_labels_.upload(pair.data(), S);
    parity_.resize(S);
    parity_.upload(parity.data(), S);
    params_.phase_base = phase_base_.get();
    params_.phase_mask = phase_mask_.get();
    params_.pair_labels = pair_labels_.get();
    params_.parity = parity_.get();
    if (!plan_.registers) cuda::allow_shared(tiled_viterbi_kernel, plan_.shape.shared);

    if (!plan_.host_batches) return;
    const frame_shape& fs = setup_.shape;
    if (plan_.window_tiles) {
      windows_.emplace(plan_.tile, setup_.pattern, plan_.window_tiles);
      pipeline_.emplace(1, windows_->max_values(), windows_->max_stages());
    } else {
      pipeline_.emplace(plan_.chunk_frames, fs.coded_bits, fs.info_bits);
    }
  }

  void decode_device(const std::int8_t* llr, std::size_t frames, std::uint8_t* bits,
                     cuda_stream stream) override {
    if (frames == 0) return;
    kernel_params p = params_;
    p.llr = llr;
    p.bits = bits;
    p.frames = frames;
    launch(p, stream);
  }

  void decode_window(const std::int8_t* llr, const window_geometry& window, std::uint8_t* bits,
                     cuda_stream stream) override {
    if (window.tiles == 0) return;
    launch(window_params(llr, window, window.stages, params_.zero_tail, bits), stream);
  }

  void decode_device_float(const float* llr, std::size_t frames, double fixed_scale,
                           std::uint8_t* bits, cuda_stream stream) override {
    device_quantizer& q = quantizer();
    q.clear_error(stream);
    for (std::size_t first = 0; first < frames; first += q.chunk_frames()) {
      const std::size_t n = std::min(q.chunk_frames(), frames - first);
      q.quantize(llr + first * setup_.shape.coded_bits, n, first, fixed_scale, stream);
      decode_device(q.q(), n, bits + first * setup_.shape.info_bits, stream);
    }
    q.throw_if_not_finite(stream,
                          [&](std::size_t frame) { return llr + frame * setup_.shape.coded_bits; });
  }

  void decode_device_hard(const std::uint8_t* hard, std::size_t frames, std::uint8_t* bits,
                          cuda_stream stream) override {
    device_quantizer& q = quantizer();
    for (std::size_t first = 0; first < frames; first += q.chunk_frames()) {
      const std::size_t n = std::min(q.chunk_frames(), frames - first);
      q.harden(hard + first * setup_.shape.coded_bits, n, stream);
      decode_device(q.q(), n, bits + first * setup_.shape.info_bits, stream);
    }
  }

 private:
  // The kernel's parameters for one window decoded as a frame of its stages (tiled_params), of
  // which the first `info_bits` are info stages and whose end is a zero tail or not.
  kernel_params window_params(const std::int8_t* llr, const window_geometry& window,
                              std::size_t info_bits, bool zero_tail, std::uint8_t* bits) const {
    kernel_params p = params_;
    p.llr = llr;
    p.bits = bits;
    p.frames = 1;
    p.N = static_cast<unsigned>(window.stages);
    p.info_bits = static_cast<unsigned>(info_bits);
    p.coded_bits = static_cast<unsigned>(window.values);
    p.tiles_per_frame = static_cast<unsigned>(window.tiles);
    p.grid = static_cast<unsigned>(window.grid);
    p.open_start = window.open_start;
    p.zero_tail = zero_tail;
    return p;
  }

  // Queues the kernel the plan chose over p.frames frames of p.tiles_per_frame tiles.
  void launch(const kernel_params& p, cuda_stream stream) {
    const unsigned blocks =
        plan_.blocks_for(p.frames * static_cast<unsigned long long>(p.tiles_per_frame));
    const auto threads = static_cast<unsigned>(plan_.shape.threads);
    if (reg_) {
      launch_register_kernel(*reg_, setup_.pattern.punctures(), blocks, threads, plan_.shape.shared,
                             stream, p);
      return;
    }
    tiled_viterbi_kernel<<<blocks, threads, plan_.shape.shared, stream>>>(p);
    GPUFEC_CUDA_CHECK_LAUNCH("tiled_viterbi_kernel");
  }

  // The float and hard device paths' scratch, made on first use: chunks of the host pipeline's
  // size, so device memory stays bounded whatever the batch.
  device_quantizer& quantizer() {
    require(pipeline_.has_value(), "internal: a stream engine has no batch device paths");
    if (!quantizer_) quantizer_.emplace(plan_.quantizer_frames, setup_.shape.coded_bits);
    return *quantizer_;
  }

 public:
  void decode_host(const std::int8_t* llr, std::size_t frames, std::uint8_t* bits) override {
    require(frames <= setup_.max_batch, "conv decode: ", frames,
            " frames exceed max_batch = ", setup_.max_batch);
    const auto* in = reinterpret_cast<const unsigned char*>(llr);
    if (!windows_) {
      pipeline_->run(in, frames, {bits, nullptr}, [&](const cuda::chunk_pipeline::lane_work& w) {
        decode_device(reinterpret_cast<const std::int8_t*>(w.in), w.frames, w.out[0], w.stream);
      });
      return;
    }
    // Frame by frame, window by window: each piece is the window's LLRs in and its decided bits
    // (those of info stages) out.
    const frame_shape& fs = setup_.shape;
    stream_tiling tiling = *windows_;
    tiling.reset();
    std::size_t frame = 0;
    stream_window window;
    pipeline_->run_pieces(
        in, frames * fs.coded_bits, {bits, nullptr}, {frames * fs.info_bits, 0},
        [&]() -> std::optional<cuda::chunk_pipeline::piece> {
          for (; frame < frames; ++frame, tiling.reset()) {
            // Whole windows while the frame has them, then the rest (at most a window and the
            // tiles within v2 of the end: what a stream's last window holds).
            std::optional<stream_window> w = tiling.next(fs.stages, false);
            if (!w) w = tiling.next(fs.stages, true);
            if (!w) continue;
            tiling.advance(*w);
            window = *w;
            const std::size_t info = info_stages(window), begin = window.origin + window.grid;
            cuda::chunk_pipeline::piece p;
            p.in_at = frame * fs.coded_bits + window.first_value;
            p.in_bytes = window.values;
            p.out[0] = {frame * fs.info_bits + begin,
                        info > window.grid ? std::min(window.decoded, info - window.grid) : 0,
                        window.grid};
            p.frames = 1;
            return p;
          }
          return std::nullopt;
        },
        [&](const cuda::chunk_pipeline::lane_work& w, const cuda::chunk_pipeline::piece&) {
          const window_geometry g{window.stages, window.values, window.grid, window.tiles,
                                  window.open_start()};
          launch(window_params(reinterpret_cast<const std::int8_t*>(w.in), g, info_stages(window),
                               params_.zero_tail && window.origin + window.stages == fs.stages,
                               w.out[0]),
                 w.stream);
        });
  }

  void wait(cuda_stream stream) override { GPUFEC_CUDA_CHECK(cudaStreamSynchronize(stream)); }

  std::string describe() const override { return plan_.describe(setup_.code.to_string()); }
  const cuda_plan& plan() const override { return plan_; }
  std::size_t device_bytes() const override {
    return (pipeline_ ? pipeline_->device_bytes() : 0) +
           (quantizer_ ? quantizer_->device_bytes() : 0) + phase_base_.bytes() +
           phase_mask_.bytes() + pair_labels_.bytes() + parity_.bytes();
  }

 private:
  // A window's stages that are info stages of the frame (a zero-tail frame's tail is not).
  std::size_t info_stages(const stream_window& w) const {
    const std::size_t info = setup_.shape.info_bits;
    return info > w.origin ? std::min(w.stages, info - static_cast<std::size_t>(w.origin)) : 0;
  }

  tiled_setup setup_;
  cuda_plan plan_;
  kernel_params params_;
  const register_kernel_entry* reg_ = nullptr;  // the register kernel, where the plan chose it
  cuda::device_buffer<int> phase_base_;
  cuda::device_buffer<std::uint8_t> phase_mask_, pair_labels_, parity_;
  std::optional<cuda::chunk_pipeline> pipeline_;
  std::optional<stream_tiling> windows_;  // host frames longer than a window go in windows
  std::optional<device_quantizer> quantizer_;
};

std::unique_ptr<tiled_device_engine> make_cuda_tiled_engine(const tiled_setup& setup,
                                                            const cuda_plan& plan) {
  return std::make_unique<cuda_tiled_engine>(setup, plan);
}

const cuda_tiled_backend backend{&plan_tiled_cuda, &make_cuda_tiled_engine};
const register_cuda_backend<cuda_tiled_entry> registered{&backend};

}  // namespace
}  // namespace gpufec::conv::detail
