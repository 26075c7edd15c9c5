// The CUDA tiled Viterbi engine: the plan's face (plan/cuda_engine.hpp) over the two kernels. It
// fits the tile to the device and the batch, picks the kernel (the register kernel,
// kernels/register_kernel.cuh, for the common feedforward codes; else the shared-memory kernel,
// kernels/shared_kernel.cuh), and runs host batches through the chunk pipeline, long frames in
// windows, device batches on the caller's stream and the device quantizer. Both kernels decide
// exactly as tiled_decoder (gpufec/conv/tiling.hpp) on the same int8 LLRs.
#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "common/cuda/chunk_pipeline.cuh"
#include "common/cuda/device_buffer.cuh"
#include "common/cuda/occupancy.cuh"
#include "common/cuda/stream.cuh"
#include "conv/cuda/kernels/llr_kernels.cuh"
#include "conv/cuda/kernels/shared_kernel.cuh"
#include "conv/cuda/kernels/tiled_params.cuh"
#include "conv/cuda/register_shape.cuh"
#include "conv/cuda/register_table.hpp"
#include "conv/cuda/tiled_geometry.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "conv/stream/stream_tiles.hpp"
#include "gpufec/common/align.hpp"

namespace gpufec::conv::detail {
namespace {

// default_device_tile (plan/cuda_engine.hpp) once the register kernel has been looked up.
tile_shape default_tile_for(const register_kernel_entry* entry, const conv_code& code,
                            const puncture_pattern& pattern, cuda_kernel kernel) {
  if (kernel != cuda_kernel::shared_memory && entry) return default_tile_shape(code, pattern);
  const std::size_t depth = default_traceback_depth(code, pattern);
  return {256, depth, depth, 0};
}

class cuda_tiled_engine final : public tiled_device_engine {
 public:
  explicit cuda_tiled_engine(const tiled_setup& setup) : setup_(setup) {
    const conv_code& code = setup_.code;
    const puncture_pattern& pattern = setup_.pattern;
    const register_kernel_entry* entry = find_register_kernel(code);  // null: not compiled for it
    const cuda::device_limits limits = cuda::current_device_limits();
    if (setup_.tile.f == 0) {
      setup_.tile = default_tile_for(entry, code, pattern, setup_.kernel);
      if (setup_.fit_tile && entry && setup_.kernel != cuda_kernel::shared_memory)
        setup_.tile = fitted_register_tile(*entry, pattern.punctures(), setup_.tile, setup_.shape,
                                           setup_.term == termination::tail_biting, code.K(),
                                           setup_.max_batch, limits);
    }
    validate(setup_.tile);
    // The kernels index a frame's stages and LLRs with 32 bits (a batch's frames with 64).
    require(setup_.shape.coded_bits <= UINT_MAX && setup_.shape.stages <= UINT_MAX,
            "the CUDA conv decoder takes frames of up to ", UINT_MAX,
            " LLRs and stages (this one: ", setup_.shape.coded_bits, " LLRs over ",
            setup_.shape.stages,
            " stages); decode a longer one as a stream (stream_decoder, decode --term stream)");
    const unsigned S = code.states();
    require(S <= 32u * kMaxWords, "the CUDA conv decoder takes up to ", 32 * kMaxWords,
            " states (K <= 9)");
    // The tables the kernel reads.
    const puncture_tables tables = make_puncture_tables(code, pattern);
    const std::vector<int>& base = tables.phase_base;
    const std::vector<std::uint8_t>& mask = tables.phase_mask;
    std::vector<std::uint8_t> pair(S), parity(S);
    for (unsigned j = 0; j < S; ++j) {
      const unsigned s0 = j >> 1, w = j & 1u;
      pair[j] = static_cast<std::uint8_t>(code.label(s0, w) | code.label(s0 + S / 2, w) << 4);
      parity[j] = static_cast<std::uint8_t>(code.input_bit(j, 0));
    }
    phase_base_.resize(base.size());
    phase_base_.upload(base.data(), base.size());
    phase_mask_.resize(mask.size());
    phase_mask_.upload(mask.data(), mask.size());
    pair_labels_.resize(S);
    pair_labels_.upload(pair.data(), S);
    parity_.resize(S);
    parity_.upload(parity.data(), S);

    // One warp's shared slot, and the block of warps the device keeps most of resident.
    const tile_shape& tile = setup_.tile;
    const std::size_t most = tile.stages();
    const std::size_t sub = tile.f0 ? tile.f0 : tile.f;
    params_.labels = 1 << code.beta();
    params_.words = static_cast<int>((S + 31) / 32);
    params_.dtab_bytes = static_cast<unsigned>(align16(most * params_.labels * sizeof(short)));
    params_.surv_bytes = static_cast<unsigned>(align16(most * params_.words * sizeof(unsigned)));
    params_.pm_bytes = static_cast<unsigned>(align16(2 * S * sizeof(int)));
    params_.slot_bytes = params_.dtab_bytes + params_.surv_bytes + params_.pm_bytes +
                         static_cast<unsigned>(align16(((tile.f + sub - 1) / sub) * sizeof(int)));
    sm_count_ = limits.sm_count;
    require(params_.slot_bytes <= limits.shared_optin, "a tile of ", most,
            " stages of K = ", code.K(), " needs ", params_.slot_bytes,
            " bytes of shared memory; this device gives a block ", limits.shared_optin,
            " (shorten f, v1 or v2)");
    int best_warps = 0;
    for (int warps = 1; warps <= 32; warps *= 2) {
      const std::size_t shared = static_cast<std::size_t>(warps) * params_.slot_bytes;
      if (shared > limits.shared_optin || 32 * warps > limits.max_block_threads) break;
      cuda::allow_shared(tiled_viterbi_kernel, shared);
      const int blocks = cuda::resident_blocks(tiled_viterbi_kernel, 32 * warps, shared);
      if (blocks * warps > best_warps) {
        best_warps = blocks * warps;
        shape_ = {32 * warps, 32, warps, shared, blocks};
      }
    }
    require(best_warps > 0, "the CUDA conv kernel cannot be resident with ", params_.slot_bytes,
            " bytes of shared memory per tile");

    const frame_shape& fs = setup_.shape;
    set_frame_geometry(params_, code, pattern, fs, setup_.term, tile);
    params_.phase_base = phase_base_.get();
    params_.phase_mask = phase_mask_.get();
    params_.pair_labels = pair_labels_.get();
    params_.parity = parity_.get();

    // The register kernel's test switches (tiled_params::checks), from the plan's options.
    params_.checks = setup_.test.register_checks;
    // The register kernel's ring: whole cycles (K - 1 stages, 6 on four lanes).
    params_.ring = register_ring(tile, fs, params_.circle, code.K(),
                                 static_cast<std::size_t>(entry ? entry->cycle : code.K() - 1));
    if (setup_.kernel != cuda_kernel::shared_memory) choose_register_kernel(entry, limits);
    require(setup_.kernel != cuda_kernel::registers || reg_,
            "the CUDA register kernel is compiled for K = 7 (171,133), (133,171) and "
            "(133,171,165), K = 9 (561,753) and (557,663,711), K = 5 (23,35) and K = 3 (7,5), "
            "feedforward, on tiles whose f, f0, v1 and v2 are whole cycles (K-1 stages; 6 for "
            "K = 9) and whose ring of f0 + v2 - (K-1) stages fits shared memory (",
            code.to_string(), ", tile ", tile.to_string(), ")");

    // Host batches go through the GPU in chunks of about 32 MB of LLRs, copies overlapped with
    // the other chunk's kernel (chunk_pipeline.cuh); a smaller batch in four chunks. Measured on
    // the H200 (K = 7 r = 1/2, 64 frames of 2^20 bits from page-locked memory, link floor 26.5
    // Gb/s): chunks of 4, 8, 16, 34 and 68 frames gave 15.3, 19.9, 20.5, 18.9 and 15.1 Gb/s, the
    // smallest starving the kernel, the largest overlapping nothing. (A stream engine, max_batch
    // 0, has its own two lanes: conv/cuda/stream_runner.cu.)
    const cuda::launch_shape& resident = reg_ ? reg_shape_ : shape_;
    resident_tiles_ = static_cast<std::size_t>(resident.wave(sm_count_)) *
                      static_cast<std::size_t>(reg_ ? resident.threads / reg_->lanes : resident.By);
    const std::size_t host_chunk =
        std::max<std::size_t>((std::size_t{32} << 20) / fs.coded_bits, 1);
    // The device float and hard paths quantize in chunks of about two waves of tiles (and at least
    // 32 MB of LLRs): there the kernel's waves count, not the link.
    quantizer_chunk_ = std::min(
        std::max((2 * resident_tiles_ + params_.tiles_per_frame - 1) / params_.tiles_per_frame,
                 host_chunk),
        std::max<std::size_t>(setup_.max_batch, 1));
    if (setup_.max_batch == 0) return;
    // A frame of more tiles than a window (a wave of resident tiles and at least 32 MB of LLRs)
    // goes in windows instead, as a stream's do (stream_tiles.hpp): one window's copies overlap
    // the other's kernel, the device holds two windows whatever the frame's length, and every
    // tile runs as in the whole frame, so the bits are the same. (Tail-biting frames wrap
    // around: they go whole.) A test may set the window (cuda_test_switches).
    const std::size_t window_tiles = setup_.test.host_window_tiles
                                         ? setup_.test.host_window_tiles
                                         : device_window_tiles(tile, pattern, resident_tiles_, 1);
    if (!params_.circle && params_.tiles_per_frame > window_tiles) {
      windows_.emplace(tile, pattern, window_tiles);
      pipeline_.emplace(1, windows_->max_values(), windows_->max_stages());
    } else {
      pipeline_.emplace(std::min(host_chunk, setup_.max_batch), fs.coded_bits, fs.info_bits);
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
    kernel_params p = params_;  // a truncated frame of the window's stages (tiled_params)
    p.llr = llr;
    p.bits = bits;
    p.frames = 1;
    p.N = static_cast<unsigned>(window.stages);
    p.info_bits = static_cast<unsigned>(window.stages);
    p.coded_bits = static_cast<unsigned>(window.values);
    p.tiles_per_frame = static_cast<unsigned>(window.tiles);
    p.grid = static_cast<unsigned>(window.grid);
    p.open_start = window.open_start;
    launch(p, stream);
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

  std::size_t resident_tiles() const override { return resident_tiles_; }

 private:
  // Queues the kernel the plan chose over p.frames frames of p.tiles_per_frame tiles.
  void launch(const kernel_params& p, cuda_stream stream) {
    const unsigned long long tiles = p.frames * static_cast<unsigned long long>(p.tiles_per_frame);
    if (reg_) {
      const auto threads = static_cast<unsigned>(reg_shape_.threads);
      const unsigned long long needed =
          (tiles * static_cast<unsigned>(reg_->lanes) + threads - 1) / threads;
      const auto blocks = static_cast<unsigned>(std::min<unsigned long long>(
          needed, static_cast<unsigned long long>(reg_shape_.wave(sm_count_)) * 8));
      launch_register_kernel(*reg_, setup_.pattern.punctures(), blocks, threads, reg_shape_.shared,
                             stream, p);
      return;
    }
    const int warps = shape_.By;
    const unsigned long long needed =
        (tiles + static_cast<unsigned>(warps) - 1) / static_cast<unsigned>(warps);
    const auto blocks = static_cast<unsigned>(std::min<unsigned long long>(
        needed, static_cast<unsigned long long>(shape_.wave(sm_count_)) * 8));
    tiled_viterbi_kernel<<<blocks, static_cast<unsigned>(shape_.threads), shape_.shared, stream>>>(
        p);
    GPUFEC_CUDA_CHECK_LAUNCH("tiled_viterbi_kernel");
  }

  // The float and hard device paths' scratch, made on first use: chunks of the host pipeline's
  // size, so device memory stays bounded whatever the batch.
  device_quantizer& quantizer() {
    require(pipeline_.has_value(), "internal: a stream engine has no batch device paths");
    if (!quantizer_) quantizer_.emplace(quantizer_chunk_, setup_.shape.coded_bits);
    return *quantizer_;
  }

 public:
  void decode_host(const std::int8_t* llr, std::size_t frames, std::uint8_t* bits) override {
    require(frames <= setup_.max_batch, "conv decode: ", frames,
            " frames exceed max_batch = ", setup_.max_batch);
    const auto* in = reinterpret_cast<const unsigned char*>(llr);
    if (!windows_) {
      pipeline_->run(in, frames, bits,
                     [&](const unsigned char* d_llr, unsigned char* d_bits, std::size_t n,
                         cudaStream_t stream) {
                       decode_device(reinterpret_cast<const std::int8_t*>(d_llr), n, d_bits,
                                     stream);
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
        in, frames * fs.coded_bits, bits, frames * fs.info_bits,
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
            return cuda::chunk_pipeline::piece{
                frame * fs.coded_bits + window.first_value,
                window.values,
                frame * fs.info_bits + begin,
                info > window.grid ? std::min(window.decoded, info - window.grid) : 0,
                window.grid,
                1};
          }
          return std::nullopt;
        },
        [&](const unsigned char* d_llr, unsigned char* d_bits, const cuda::chunk_pipeline::piece&,
            cudaStream_t stream) {
          kernel_params p = params_;  // a frame of the window's stages (tiled_params)
          p.llr = reinterpret_cast<const std::int8_t*>(d_llr);
          p.bits = d_bits;
          p.frames = 1;
          p.N = static_cast<unsigned>(window.stages);
          p.info_bits = static_cast<unsigned>(info_stages(window));
          p.coded_bits = static_cast<unsigned>(window.values);
          p.tiles_per_frame = static_cast<unsigned>(window.tiles);
          p.grid = static_cast<unsigned>(window.grid);
          p.open_start = window.open_start();
          p.zero_tail = params_.zero_tail && window.origin + window.stages == fs.stages;
          launch(p, stream);
        });
  }

  void wait(cuda_stream stream) override { GPUFEC_CUDA_CHECK(cudaStreamSynchronize(stream)); }

  std::string describe() const override {
    const std::string host =
        windows_
            ? cat("; host frames in windows of ", windows_->window_tiles(), " tiles on 2 streams")
        : pipeline_
            ? cat("; host batches in chunks of ", pipeline_->chunk_frames(), " frames on 2 streams")
            : std::string();
    if (reg_)
      return cat("registers: ", reg_->lanes == 1 ? "one thread" : "four threads", " per tile, ",
                 setup_.code.to_string(), " compiled in, int16x2 DPX add-max, a ring of ",
                 params_.ring, " survivor stages per thread; ", cuda::to_string(reg_shape_), host);
    return cat("shared memory: one warp per tile, ", shape_.By, " tiles per block, ",
               cuda::to_string(shape_), ", ", params_.slot_bytes, " B of shared memory per tile",
               host);
  }
  tile_shape tile() const override { return setup_.tile; }
  std::size_t device_bytes() const override {
    return (pipeline_ ? pipeline_->device_bytes() : 0) +
           (quantizer_ ? quantizer_->device_bytes() : 0) + phase_base_.bytes() +
           phase_mask_.bytes() + pair_labels_.bytes() + parity_.bytes();
  }

 private:
  // The register kernel when it is compiled for the code, the tile is whole cycles and a warp
  // per scheduler fits with its ring (register_residency).
  void choose_register_kernel(const register_kernel_entry* entry,
                              const cuda::device_limits& limits) {
    if (!entry) return;
    const tile_shape& t = setup_.tile;
    const auto cycle = static_cast<std::size_t>(entry->cycle);
    const bool whole_cycles =
        t.f % cycle == 0 && t.f0 % cycle == 0 && t.v1 % cycle == 0 && t.v2 % cycle == 0;
    if (!whole_cycles) return;
    reg_shape_ = register_residency(*entry, setup_.pattern.punctures(), params_.ring, limits);
    if (reg_shape_) reg_ = entry;
  }

  // A window's stages that are info stages of the frame (a zero-tail frame's tail is not).
  std::size_t info_stages(const stream_window& w) const {
    const std::size_t info = setup_.shape.info_bits;
    return info > w.origin ? std::min(w.stages, info - static_cast<std::size_t>(w.origin)) : 0;
  }

  tiled_setup setup_;
  kernel_params params_{};
  cuda::launch_shape shape_;
  const register_kernel_entry* reg_ = nullptr;
  cuda::launch_shape reg_shape_;
  int sm_count_ = 0;
  cuda::device_buffer<int> phase_base_;
  cuda::device_buffer<std::uint8_t> phase_mask_, pair_labels_, parity_;
  std::optional<cuda::chunk_pipeline> pipeline_;
  std::optional<stream_tiling> windows_;  // host frames longer than a window go in windows
  std::size_t quantizer_chunk_ = 1;       // frames per chunk of the device float and hard paths
  std::optional<device_quantizer> quantizer_;
  std::size_t resident_tiles_ = 0;
};

std::unique_ptr<tiled_device_engine> make_cuda_tiled_engine(const tiled_setup& setup) {
  return std::make_unique<cuda_tiled_engine>(setup);
}

const register_cuda_backend<cuda_tiled_entry> registered{&make_cuda_tiled_engine};

}  // namespace

tile_shape default_device_tile(const conv_code& code, const puncture_pattern& pattern,
                               cuda_kernel kernel) {
  return default_tile_for(find_register_kernel(code), code, pattern, kernel);
}

}  // namespace gpufec::conv::detail
