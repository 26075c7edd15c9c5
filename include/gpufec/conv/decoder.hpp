// The conv decoder plan (describe -> plan -> execute, shared/DESIGN.md): made once from the code,
// the puncture pattern, the frame length, the termination, options, the backend and the largest
// batch; it picks the decoder (reference or fast), the frame layout and per-thread scratch, and
// `decode` then runs on uniform batches of received frames without allocating. A plan is not safe
// for concurrent decode calls (it owns its scratch, like a cuFFT plan).
//
// Inputs, per frame: shape().coded_bits received values in the order the encoder sent them (the
// punctured stream), as float LLRs, int8 LLRs or hard bits; LLRs are positive for bit 0
// (channel/awgn.hpp: L = 2y / sigma^2). Outputs: shape().info_bits decided bits (0/1) per frame.
//
// The fast and tiled decoders work on int8 LLRs. Float LLRs are quantized per frame by
// quantize_llrs with the scale of options.llr_scale, or by default auto_llr_scale(frame): the
// frame's mean |LLR| maps to 127/4 = 31.75, so values beyond four times the mean saturate at +-127
// (a Viterbi decoder's decisions do not change when all LLRs are scaled by one positive factor, so
// only the resolution and the clipping matter). Hard bits become +-1 for every decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "gpufec/common/backend.hpp"
#include "gpufec/common/batch.hpp"
#include "gpufec/common/cuda_stream.hpp"
#include "gpufec/common/stop_token.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/puncture.hpp"
#include "gpufec/conv/reference.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv {

// automatic: fast when the CPU has a SIMD target for it (every x86-64 and Arm), else reference.
// tiled: the GPU decoder's algorithm on the CPU (tiles with overlaps, tiling.hpp): the oracle of
// the CUDA kernel and the way to measure what tiling costs; int8 arithmetic as the fast decoder.
enum class decoder_kind { automatic, reference, fast, tiled };
// The CUDA kernel of the tiled decoder (both decide the same bits): registers (one thread per
// tile, the path metrics in registers; compiled for the common feedforward codes, tiles with
// parallel-traceback subframes whose survivors fit its shared-memory ring), shared_memory (one warp
// per tile, every code), automatic (registers where they apply, else shared memory).
enum class cuda_kernel { automatic, registers, shared_memory };

// Test switches of the CUDA engine, for tests that check what a plan would otherwise skip or never
// choose; zero is what the plan chooses. register_checks sets the register kernel's
// tiled_params::checks (1: decide the v1 warm-up's cycles too, 2: keep each walk's history
// through its convergence too, 3: both; the bits must not change). host_window_tiles sends host
// frames of more tiles than that through windows of that many tiles (the default: a wave).
struct cuda_test_switches {
  unsigned register_checks = 0;
  std::size_t host_window_tiles = 0;
};

struct decoder_options {
  decoder_kind decoder = decoder_kind::automatic;
  metric_type reference_metric = metric_type::f64;  // the reference decoder's path metrics
  // Fast decoder, float LLRs: q = round(L * llr_scale) saturated to +-127; 0 = auto_llr_scale
  // per frame.
  double llr_scale = 0;
  // Tail-biting: wrap-around stages on each side; 0 = default_traceback_depth(code, pattern).
  std::size_t wrap_stages = 0;
  // Tiled decoder: the tile shape; f = 0 takes default_tile_shape(code, pattern), which a CUDA
  // plan on the register kernel fits to the device and the batch when fit_tile is set: the
  // subframe length whose survivor ring keeps the most warps resident, evenly over the SM's
  // schedulers, and (for a batch of more than a wave of tiles) the tile length that fills whole
  // waves (K = 7 rate 1/2, 64 frames of 2^20 bits, H200: (1332, 36, 36, 36)). The decisions then
  // depend on the device and max_batch; summary().tile and describe() give the shape, and the CPU
  // tiled decoder given it decides alike. fit_tile = false runs default_tile_shape exactly, on
  // every device and batch.
  tile_shape tile;
  bool fit_tile = true;
  // CUDA plans: which kernel (the plan refuses registers where they do not apply).
  cuda_kernel kernel = cuda_kernel::automatic;
  // OpenMP threads over the frames of a batch; 0 = omp_get_max_threads() when the plan is made.
  int threads = 0;
  cuda_test_switches cuda_test;  // tests only
};

// What a plan chose; describe() prints it.
struct plan_summary {
  backend where = backend::cpu;
  decoder_kind decoder = decoder_kind::reference;  // resolved, never automatic
  frame_shape shape;
  std::size_t wrap_stages = 0;  // tail-biting only
  int threads = 1;
  std::size_t max_batch = 1;
  std::size_t scratch_bytes = 0;  // all threads together
  std::string kernel;             // fast: the SIMD target and layout; CUDA: the launch shape
  tile_shape tile;                // tiled only
  // Asked for backend::automatic: why the plan runs where it does; empty when it was named.
  std::string backend_reason;
  // Frames per call that keep the plan's device busy, at most max_batch (plan with a generous
  // max_batch and decode batches of this size): CUDA, 8 waves of resident tiles (K = 7 r = 1/2
  // on an H200: 155.5 Gb/s at 8 waves against 140.5 at one, bench/RESULTS.md); CPU, a task per
  // thread (the fast decoder's runs of 16 frames).
  std::size_t preferred_batch = 1;
};

// Where a plan for `options` runs when `where` is asked for: cpu stays cpu; cuda is cuda
// (backend_unavailable without CUDA compiled or a device; the CUDA decoder is the tiled decoder,
// so reference and fast are refused, invalid_argument naming the decoder); automatic is cuda when
// a device is usable and the decoder is automatic or tiled without a wrap-around, else cpu, with
// the reason.
backend_choice choose_backend(const decoder_options& options, backend where);

// The scale auto mode uses for a frame: 31.75 / mean |LLR| (1 when all are 0). Summed in the same
// order on every SIMD target.
double auto_llr_scale(std::span<const float> llrs);
// q[i] = round-half-even(clamp(llrs[i] * scale, -127, 127)): the fast decoder's quantizer, public
// so a test can hand the reference decoder exactly what the fast one sees. LLRs must be finite.
void quantize_llrs(std::span<const float> llrs, double scale, std::span<std::int8_t> q);

namespace detail {
class plan_engine;
}

class decoder_plan {
 public:
  // Throws invalid_argument for a bad description (named field), max_batch = 0, threads < 0, a
  // fast decoder asked for where there is no SIMD target; backend_unavailable for backend::cuda
  // without CUDA or a device. backend::automatic: choose_backend. On CUDA the decoder is the
  // tiled decoder (decoder automatic or tiled; the CUDA kernel decides exactly as the CPU one).
  decoder_plan(const conv_code& code, const puncture_pattern& pattern, std::size_t frame_bits,
               termination term, const decoder_options& options = {}, backend where = backend::cpu,
               std::size_t max_batch = 1);
  // What a plan made with these arguments chooses (its summary), with the constructor's checks
  // and exceptions, but no decoder made: a CUDA plan's choices come from the device's limits and
  // nothing is allocated on the device. For reports and to validate a setup.
  static plan_summary preview(const conv_code& code, const puncture_pattern& pattern,
                              std::size_t frame_bits, termination term,
                              const decoder_options& options = {}, backend where = backend::cpu,
                              std::size_t max_batch = 1);
  ~decoder_plan();
  decoder_plan(decoder_plan&&) noexcept;
  decoder_plan& operator=(decoder_plan&&) noexcept;

  const conv_code& code() const { return code_; }
  const puncture_pattern& pattern() const { return pattern_; }
  termination term() const { return term_; }
  const decoder_options& options() const { return options_; }
  const plan_summary& summary() const { return summary_; }
  const frame_shape& shape() const { return summary_.shape; }
  std::string describe() const;

  // Uniform host batches: `received` frames of shape().coded_bits values, `bits` frames of
  // shape().info_bits, as many frames as received, at most max_batch. Throws invalid_argument
  // for wrong sizes or a ragged or device view, and for a NaN or infinite LLR (naming the frame
  // and the position; no frame's output is then to be trusted). On a CUDA plan, int8 LLRs and
  // bits in page-locked memory (page_locked_vector, gpufec/common/page_locked.hpp, or the
  // caller's cudaHostAlloc, cudaHostRegister) are copied straight over the link, about 2.5x the
  // rate of pageable memory, which host copies stage (docs/conv.md). `stop`, when requested, ends
  // a CPU plan's call within a fraction of a second, inside a long frame too, throwing
  // gpufec::stopped (the bits are then not to be used).
  void decode(batch_view<float> received, batch_span<std::uint8_t> bits,
              const stop_token& stop = {});
  void decode(batch_view<std::int8_t> received, batch_span<std::uint8_t> bits,
              const stop_token& stop = {});
  // Hard decisions: 0/1 per coded bit (any non-zero value is 1).
  void decode_hard(batch_view<std::uint8_t> received, batch_span<std::uint8_t> bits,
                   const stop_token& stop = {});
  // The device path (a CUDA plan): LLRs and bits both in device memory, any number of frames,
  // on the caller's `stream`. Throws invalid_argument for host views or wrong sizes.
  // decode(received, bits) with device views does the same on the default stream and waits.
  // int8 LLRs: queued (asynchronous: the bits are ready when the stream's work is).
  void decode(batch_view<std::int8_t> received, batch_span<std::uint8_t> bits, cuda_stream stream);
  // Float LLRs: quantized on the GPU exactly as the host float path quantizes (llr_scale, or per
  // frame auto_llr_scale with the same sums in the same order), so the bits equal the host's;
  // in chunks through the plan's device scratch (bounded memory). Returns when the bits are
  // ready: it waits for `stream` to report a NaN or infinite LLR as the host path does (naming
  // the frame and the position; no frame's output is then to be trusted).
  void decode(batch_view<float> received, batch_span<std::uint8_t> bits, cuda_stream stream);
  // Hard bits (0/1, non-zero = 1) as +-1, as decode_hard on the host; queued on `stream`.
  void decode_hard(batch_view<std::uint8_t> received, batch_span<std::uint8_t> bits,
                   cuda_stream stream);

 private:
  // make_engines = false: the choices only (preview).
  decoder_plan(const conv_code& code, const puncture_pattern& pattern, std::size_t frame_bits,
               termination term, const decoder_options& options, backend where,
               std::size_t max_batch, bool make_engines);
  void require_memory() const;

  conv_code code_;
  puncture_pattern pattern_;
  termination term_;
  decoder_options options_;
  plan_summary summary_;
  std::unique_ptr<detail::plan_engine> engine_;
};

}  // namespace gpufec::conv

template <>
struct gpufec::enum_names<gpufec::conv::decoder_kind> {
  static constexpr std::array entries{
      enum_entry{conv::decoder_kind::automatic, "auto"},
      enum_entry{conv::decoder_kind::reference, "reference"},
      enum_entry{conv::decoder_kind::fast, "fast"},
      enum_entry{conv::decoder_kind::tiled, "tiled"},
  };
};

template <>
struct gpufec::enum_names<gpufec::conv::cuda_kernel> {
  static constexpr std::array entries{
      enum_entry{conv::cuda_kernel::automatic, "auto"},
      enum_entry{conv::cuda_kernel::registers, "registers"},
      enum_entry{conv::cuda_kernel::shared_memory, "shared"},
  };
};
