// Polar decoders behind one plan (describe -> plan -> execute, docs/polar.md): successive
// cancellation (SC) and belief propagation (BP) on the m-stage factor graph, each with an exact
// scalar reference (the oracle) and a fast path vectorized over codewords (Highway SIMD, one
// codeword per lane) with OpenMP over groups of codewords.
//
// Inputs are channel LLRs, L = log P(x = 0 | y) / P(x = 1 | y) (positive means 0; BPSK/AWGN gives
// 2y / sigma^2, channel/awgn.hpp), N per codeword, finite. Outputs per codeword: the K information
// bits, or soft values (LLRs of the information bits or of the codeword), and for BP the number of
// iterations it ran. A plan owns its scratch; `decode` allocates nothing and is not safe for
// concurrent calls on one plan.
//
//   polar::polar_code code(1024, 512);                        // 5G construction
//   polar::decoder_plan plan(code, {.decoder = polar::decoder_kind::bp,
//                                   .update = polar::update_rule::min_sum, .early_stop = true},
//                            backend::cpu, 4096);
//   plan.decode(batch_view<float>::uniform(llr, frames, 1024),
//               batch_span<std::uint8_t>::uniform(bits, frames, 512), iterations);
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "gpufec/common/backend.hpp"
#include "gpufec/common/batch.hpp"
#include "gpufec/common/cuda_stream.hpp"
#include "gpufec/common/enum_names.hpp"
#include "gpufec/common/stop_token.hpp"
#include "gpufec/polar/polar_code.hpp"

namespace gpufec::polar {

enum class decoder_kind { sc, bp };
// The check-node update f (docs/polar.md has the equations):
// - lr_sum_product: the seed's likelihood-ratio updates (slide 16) as written, messages
//   lambda = P(0)/P(1) kept in [2^-40, 2^40] (BP only);
// - sum_product: f(a, b) = 2 atanh(tanh(a/2) tanh(b/2)), evaluated as
//   sign(a) sign(b) [min(|a|, |b|) + log1p(e^-(|a|+|b|)) - log1p(e^-||a|-|b||)]; BP messages kept
//   in [-40 ln 2, 40 ln 2], the same bound as the LR rule's, so the two compute the same function;
// - min_sum: sign(a) sign(b) min(|a|, |b|);
// - scaled_min_sum: scale * min_sum (offset-free), scale in (0, 1] (BP only).
// SC takes sum_product (its exact f, the default) or min_sum.
enum class update_rule { lr_sum_product, sum_product, min_sum, scaled_min_sum };
// The order of a BP iteration's two sweeps over the factor graph (u on the left, the channel on
// the right; docs/polar.md, "BP schedules"):
// - lr_rl: the left-to-right sweep (every R, from the frozen bits outwards), then the right-to-left
//   sweep (every L, down to u): the decisions read L_0 as the iteration left it, the freshest
//   messages (the common schedule, as Sionna's PolarBPDecoder); systematic codes decide x^_A, the
//   signs of the codeword posteriors at the information positions;
// - rl_lr: the right-to-left sweep, then the left-to-right one: the second half never reaches the
//   decisions of u (the seed's order; systematic codes decide (u^ G_N)_A).
// Both decide after every iteration, u^ = hard(L_0 + R_0) and x^ = hard(L_m + R_m).
enum class bp_schedule { lr_rl, rl_lr };
// hard: decode() gives the K information bits. info_llrs: decode_soft() gives K LLRs of the
// information bits (BP: posterior of u_A, or of x_A when systematic; SC: the LLR each information
// bit was decided on). codeword_llrs: decode_soft() gives N posterior LLRs of x (BP only).
enum class output_kind { hard, info_llrs, codeword_llrs };
// reference: the scalar oracle, one codeword at a time. fast: SIMD over codewords. automatic:
// fast unless its scratch would exceed 256 MiB per thread (N beyond ~2^18 for BP).
enum class implementation { automatic, reference, fast };

// How the CUDA BP kernel refills a codeword slot that early stopping (or the last iteration)
// finished: replace: at once, from the batch's next frame, while the other slots of its block go
// on; block: only when every slot of its block is done (fixed groups of codewords).
enum class refill_policy { replace, block };
// The CUDA BP kernel (docs/polar.md, CUDA): registers (each thread keeps 8 nodes of every group of
// 3 stages in registers, only every third column goes through shared memory; N <= 2048, min-sum
// and scaled min-sum), memory (every message in shared memory, or global memory beyond N = 2048;
// every rule and length), automatic (registers where they apply, else memory).
enum class cuda_kernel { automatic, registers, memory };
// BP message precision on CUDA: fp32 (the CPU's numbers), or fp16 (two codewords per __half2
// register; register kernel, min-sum and scaled min-sum; FER loss in docs/polar.md).
enum class message_precision { fp32, fp16 };

struct decoder_options {
  decoder_kind decoder = decoder_kind::sc;
  update_rule update = update_rule::sum_product;
  float scale = 0.9375f;    // scaled_min_sum
  int iterations = 10;      // BP: the most iterations (each one sweep each way, see schedule)
  bool early_stop = false;  // BP: stop a codeword once G-matrix check holds (docs/polar.md)
  bp_schedule schedule = bp_schedule::lr_rl;  // BP: the order of an iteration's two sweeps
  output_kind output = output_kind::hard;
  implementation path = implementation::automatic;
  int threads = 0;  // OpenMP threads for a batch; 0: omp_get_max_threads() at plan time
  refill_policy refill = refill_policy::replace;  // CUDA BP with early stopping
  cuda_kernel kernel = cuda_kernel::automatic;    // CUDA BP (the plan refuses what cannot run)
  message_precision precision = message_precision::fp32;  // fp16: CUDA BP only
};

// What a plan chose; describe() prints it.
struct plan_summary {
  backend where = backend::cpu;
  implementation path = implementation::reference;  // resolved, never automatic
  std::string simd_target;                          // fast path: Highway's target, e.g. "AVX2"
  std::size_t lanes = 1;                            // codewords per SIMD vector (fast path), else 1
  int threads = 1;
  std::size_t max_batch = 1;
  std::size_t scratch_bytes = 0;  // everything the plan allocated
  // SC fast path: the nodes of the decoding tree after merging rate-0 and rate-1 subtrees.
  std::size_t sc_rate0_nodes = 0, sc_rate1_nodes = 0, sc_leaves = 0;
  // CUDA: the kernel's message layout and launch shape as the plan chose them from the device.
  std::string kernel;
  // Asked for backend::automatic: why the plan runs where it does ("a CUDA device and BP", "SC
  // runs on the CPU only", ...); empty when the backend was named.
  std::string backend_reason;
  // Frames per call that keep the plan's device busy, at most max_batch (plan with a generous
  // max_batch and decode batches of this size): CUDA, a host chunk of at least 8 waves of
  // codewords; CPU, a group of SIMD lanes per thread.
  std::size_t preferred_batch = 1;
};

// Where backend::automatic runs a decoder: CUDA when a device is usable and the request can run
// there (BP with path automatic; fp16 or a kernel choice need CUDA), else the CPU; the reason in
// words. A named backend is returned as it is, with no reason.
backend_choice choose_backend(const decoder_options& options, backend where);

namespace detail {
class polar_engine;
class bp_device_engine;
}  // namespace detail

class decoder_plan {
 public:
  // Throws invalid_argument naming the option: an update rule the decoder does not have, a scale
  // outside (0, 1], iterations outside [1, 10000], a soft output the decoder cannot give,
  // max_batch 0, threads < 0; on backend::cuda, the SC decoder or a CPU path (reference, fast)
  // (backend_unavailable without CUDA or a device; out_of_memory when the device lacks the
  // memory the plan needs, checked before allocating). backend::automatic: choose_backend.
  decoder_plan(const polar_code& code, const decoder_options& options = {},
               backend where = backend::cpu, std::size_t max_batch = 1);
  // What the constructor refuses of the description, without planning or allocating anything
  // (the same exceptions; the device's memory is checked by the plan itself).
  static void check(const polar_code& code, const decoder_options& options, backend where);
  ~decoder_plan();
  decoder_plan(decoder_plan&&) noexcept;
  decoder_plan& operator=(decoder_plan&&) noexcept;

  const polar_code& code() const { return code_; }
  const decoder_options& options() const { return options_; }
  const plan_summary& summary() const { return summary_; }
  std::string describe() const;

  // llr: uniform host batch, N per frame, at most max_batch frames. info_bits: K per frame.
  // iterations (BP; optional): one entry per frame, the iterations run (the one after which the
  // G-matrix check first held, or `iterations`). Throws invalid_argument for a wrong shape or
  // output kind, and for a NaN or infinite LLR (naming frame and position) before decoding any.
  // `stop`, when requested, ends the call within a fraction of a second, throwing
  // gpufec::stopped (the outputs are then not to be used): on the CPU between BP iterations; on
  // CUDA the running launch takes no more codewords and, beyond N = 2048, leaves the ones it holds
  // at their next iteration (also with device views, which wait on the default stream).
  void decode(batch_view<float> llr, batch_span<std::uint8_t> info_bits,
              std::span<std::uint32_t> iterations = {}, const stop_token& stop = {});
  // Soft outputs (options.output info_llrs: K per frame; codeword_llrs: N per frame).
  void decode_soft(batch_view<float> llr, batch_span<float> soft,
                   std::span<std::uint32_t> iterations = {}, const stop_token& stop = {});
  // The device path (a CUDA plan): LLRs, outputs and `iterations` (null, or one entry per frame)
  // all in device memory, any number of frames, queued on the caller's `stream` (asynchronous:
  // the outputs are ready when the stream's work is). LLRs are not checked for finiteness here
  // (they are never read on the host); a NaN gives unspecified outputs. decode()/decode_soft()
  // above with device views do the same on the default stream and wait.
  void decode(batch_view<float> llr, batch_span<std::uint8_t> info_bits, cuda_stream stream,
              std::uint32_t* iterations = nullptr);
  void decode_soft(batch_view<float> llr, batch_span<float> soft, cuda_stream stream,
                   std::uint32_t* iterations = nullptr);
  // Waits for the work queued on `stream`. A `stop` requested first ends the running launch
  // within a fraction of a second (as decode's) and throws gpufec::stopped: the outputs of the
  // calls queued on `stream` are then not to be used. A CPU plan returns at once.
  void wait(cuda_stream stream, const stop_token& stop = {});
  // BP on CUDA: the iterations run by the frames of the device-path calls made without an
  // iterations array since the last call, summed (calls on one stream at a time; waits for the
  // device). 0 for a CPU plan.
  std::uint64_t device_iterations();
  // A CUDA plan's device path timed without CUDA in the caller: the host batch is copied to the
  // device once, decoded once to warm up and `repeats` times more, each timed with CUDA events
  // (decoder only); the outputs of the last call are copied back. Returns the median seconds.
  double time_device(batch_view<float> llr, batch_span<std::uint8_t> info_bits,
                     std::span<std::uint32_t> iterations, int repeats);

 private:
  void check_input(batch_view<float> llr, std::size_t out_frames, std::size_t out_stride,
                   std::size_t iteration_entries) const;

  polar_code code_;
  decoder_options options_;
  plan_summary summary_;
  void check_device(batch_view<float> llr, std::size_t out_frames, std::size_t out_stride) const;

  std::unique_ptr<detail::polar_engine> engine_;
  detail::bp_device_engine* device_ = nullptr;  // engine_ on a CUDA plan
};

}  // namespace gpufec::polar

template <>
struct gpufec::enum_names<gpufec::polar::decoder_kind> {
  static constexpr std::array entries{enum_entry{polar::decoder_kind::sc, "sc"},
                                      enum_entry{polar::decoder_kind::bp, "bp"}};
};
template <>
struct gpufec::enum_names<gpufec::polar::update_rule> {
  static constexpr std::array entries{enum_entry{polar::update_rule::lr_sum_product, "lr"},
                                      enum_entry{polar::update_rule::sum_product, "sp"},
                                      enum_entry{polar::update_rule::min_sum, "minsum"},
                                      enum_entry{polar::update_rule::scaled_min_sum, "scaled"}};
};
template <>
struct gpufec::enum_names<gpufec::polar::bp_schedule> {
  static constexpr std::array entries{enum_entry{polar::bp_schedule::lr_rl, "lr-rl"},
                                      enum_entry{polar::bp_schedule::rl_lr, "rl-lr"}};
};
template <>
struct gpufec::enum_names<gpufec::polar::cuda_kernel> {
  static constexpr std::array entries{enum_entry{polar::cuda_kernel::automatic, "auto"},
                                      enum_entry{polar::cuda_kernel::registers, "registers"},
                                      enum_entry{polar::cuda_kernel::memory, "memory"}};
};
template <>
struct gpufec::enum_names<gpufec::polar::message_precision> {
  static constexpr std::array entries{enum_entry{polar::message_precision::fp32, "fp32"},
                                      enum_entry{polar::message_precision::fp16, "fp16"}};
};
template <>
struct gpufec::enum_names<gpufec::polar::output_kind> {
  static constexpr std::array entries{
      enum_entry{polar::output_kind::hard, "hard"},
      enum_entry{polar::output_kind::info_llrs, "info-llr"},
      enum_entry{polar::output_kind::codeword_llrs, "codeword-llr"}};
};
template <>
struct gpufec::enum_names<gpufec::polar::refill_policy> {
  static constexpr std::array entries{enum_entry{polar::refill_policy::replace, "replace"},
                                      enum_entry{polar::refill_policy::block, "block"}};
};
template <>
struct gpufec::enum_names<gpufec::polar::implementation> {
  static constexpr std::array entries{enum_entry{polar::implementation::automatic, "auto"},
                                      enum_entry{polar::implementation::reference, "reference"},
                                      enum_entry{polar::implementation::fast, "fast"}};
};
