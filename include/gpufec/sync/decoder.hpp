// The MAP decoder for TVB codes over the BSID channel (seed paper sec. II-C): forward-backward over
// the drift at codeword boundaries, with the receiver metric R(y|x) from a lattice per (i, m', D).
//
// Describe -> plan -> execute: a plan is made once from the code, the channel, the options, the
// backend and the largest batch; it fixes the drift limits, the storage mode and (on CUDA) the
// kernel shapes, and owns its scratch. `decode` then runs on batches of received frames. A plan is
// not safe for concurrent `decode` calls (it owns its workspace, like a cuFFT plan).
//
// Outputs, per frame (index f): APPs L_i(D) normalized per symbol, hard decisions, and the drift
// posterior at each codeword boundary i = 0..N (lambda_i(m) = alpha_i(m) beta_i(m), normalized).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpufec/common/backend.hpp"
#include "gpufec/common/batch.hpp"
#include "gpufec/common/cuda_stream.hpp"
#include "gpufec/common/enum_names.hpp"
#include "gpufec/common/stop_token.hpp"
#include "gpufec/sync/bsid_channel.hpp"
#include "gpufec/sync/drift.hpp"
#include "gpufec/sync/tvb_code.hpp"

namespace gpufec::sync {

// global: gamma kept for every i (N M_tau M_n q values). local (the seed paper's): gamma of one
// index at a time (the CPU) or of a ring of four (CUDA), computed in the forward pass and again in
// the backward pass. compact (CUDA): sum_D Pr{D} gamma kept for every i (q times fewer values than
// global), the lattices run again for L; the CPU runs it as local. The same results in every mode;
// automatic picks the fastest that fits the budget: global, then compact, then local.
enum class storage_mode { automatic, global, compact, local };
// CUDA, a chunk that folds beta into gamma (docs/sync.md): items, a warp per states of one
// (frame, i) handed out across the device; frames, a block per frame running its indices alone.
// automatic picks by the geometry (measured); the digits are the same either way.
enum class fold_kernel { automatic, items, frames };
// corridor: lattice paths stay within the codeword drift limits (the paper); full: unconstrained.
enum class lattice_mode { corridor, full };
enum class real_kind { f32, f64 };

struct decoder_options {
  double Pr = 1e-10;  // probability of drift outside the frame limits (and, per codeword, Pr_N)
  storage_mode storage = storage_mode::automatic;
  lattice_mode lattice = lattice_mode::corridor;
  // Receiver metric (lattice and gamma storage); alpha, beta and L are computed in double on
  // every backend.
  real_kind lattice_real = real_kind::f32;
  // Frame end: known (drift rho - tau) or unknown, with the drift pmf Pr{S_tau = m} as prior
  // (then symbols beyond tau + m are ignored, as when a frame is cut from a stream).
  bool end_known = true;
  // Bytes the gamma storage of one batch may take before `automatic` chooses local storage
  // (0: 1 GiB on the CPU, 80% of free device memory on CUDA).
  std::size_t memory_budget = 0;
  // Also compute and return the drift posterior ((N + 1) M_tau doubles per frame, often more than
  // the APPs; off, decode_output::drift_posterior stays empty and the GPU does not copy it back).
  bool drift_posterior = true;
  // Explicit limits instead of the ones computed from Pr (tests, experiments). Frame limits must
  // contain the codeword limits; both must contain 0.
  std::optional<drift_limits> frame_limits;
  std::optional<drift_limits> codeword_limits;
  // CUDA: a chunk of at least this many frames runs gamma and beta interleaved, storing
  // V = sum beta R instead of R (docs/sync.md); 0: from the device and the kernel, enough frames
  // to fill the device many times over (measured). Tests and experiments: the digits are the
  // same either way.
  std::size_t fold_min_frames = 0;
  fold_kernel fold = fold_kernel::automatic;  // which kernel folds (tests, experiments)
};

}  // namespace gpufec::sync

// The names users type and read for each option (gpufec/common/enum_names.hpp).
template <>
struct gpufec::enum_names<gpufec::sync::storage_mode> {
  using E = sync::storage_mode;
  static constexpr std::array entries{
      enum_entry{E::automatic, "auto"}, enum_entry{E::global, "global"},
      enum_entry{E::compact, "compact"}, enum_entry{E::local, "local"}};
};
template <>
struct gpufec::enum_names<gpufec::sync::fold_kernel> {
  using E = sync::fold_kernel;
  static constexpr std::array entries{enum_entry{E::automatic, "auto"},
                                      enum_entry{E::items, "items"},
                                      enum_entry{E::frames, "frames"}};
};
template <>
struct gpufec::enum_names<gpufec::sync::lattice_mode> {
  using E = sync::lattice_mode;
  static constexpr std::array entries{enum_entry{E::corridor, "corridor"},
                                      enum_entry{E::full, "full"}};
};
template <>
struct gpufec::enum_names<gpufec::sync::real_kind> {
  using E = sync::real_kind;
  static constexpr std::array entries{enum_entry{E::f32, "float"}, enum_entry{E::f64, "double"}};
};

namespace gpufec::sync {

inline std::string to_string(storage_mode s) {
  return std::string(name_of(s));
}
inline std::string to_string(fold_kernel k) {
  return std::string(name_of(k));
}
inline std::string to_string(lattice_mode l) {
  return std::string(name_of(l));
}
inline std::string to_string(real_kind r) {
  return std::string(name_of(r));
}

// What a plan chose; `describe()` prints it.
struct plan_summary {
  backend where = backend::cpu;
  storage_mode storage = storage_mode::global;  // resolved, never automatic
  drift_limits frame;                           // [m_tau^-, m_tau^+]
  drift_limits codeword;                        // [m_n^-, m_n^+]
  std::size_t gamma_bytes_per_frame = 0;        // global-storage gamma for one frame
  std::size_t memory_bytes = 0;                 // everything the plan allocates for max_batch
  std::size_t max_batch = 1;
  std::size_t chunk = 1;  // frames decoded at once: CUDA, per chunk of buffers; CPU, per thread set
  std::vector<std::string> kernel_shapes;  // CUDA: one line per kernel (block, grid, shared mem)
  // Asked for backend::automatic: why the plan runs where it does; empty when it was named.
  std::string backend_reason;
  // Frames per call that keep the plan's device busy, at most max_batch (plan with a generous
  // max_batch and decode batches of this size): the chunk, a frame per thread on the CPU and the
  // frames the memory budget lets decode at once on CUDA.
  std::size_t preferred_batch = 1;
};

// Where backend::automatic runs a decoder of `code`: CUDA when a device is usable and the code is
// binary (the CUDA decoder's alphabet), else the CPU, with the reason; a named backend as it is.
backend_choice choose_backend(const tvb_code& code, const decoder_options& options, backend where);

struct decode_output {
  std::size_t frames = 0;
  int N = 0, q = 0, M_tau = 0, m_tau_min = 0;
  std::vector<double> app;               // [frame][i][D]
  std::vector<std::uint32_t> decisions;  // [frame][i], argmax_D L_i(D) (lowest D on ties)
  std::vector<double> drift_posterior;   // [frame][i = 0..N][m - m_tau_min] (if asked for)
  std::vector<std::uint8_t> decoded;     // [frame] 1 = decoded, 0 = undecodable (see messages)
  std::vector<std::string> messages;     // [frame] why a frame was undecodable, else empty

  const double* frame_app(std::size_t f) const { return app.data() + f * N * q; }
  const std::uint32_t* frame_decisions(std::size_t f) const { return decisions.data() + f * N; }
  const double* frame_drift(std::size_t f) const {
    return drift_posterior.data() + f * (N + 1) * M_tau;
  }
};

// Why a frame was not decoded: decode_output::messages says it in words, the device path reports
// the code (device_outputs::status).
enum class frame_status : std::int32_t {
  decoded = 0,
  rejected = 1,       // before decoding: received length outside the limits, or a symbol outside
                      // the alphabet (device path)
  zero_forward = 2,   // the received sequence has zero probability (forward pass)
  no_end = 3,         // no frame end within the drift limits
  zero_backward = 4,  // zero probability (backward pass)
  zero_app = 5,       // zero probability (APP)
};
std::string to_string(frame_status s);

// The outputs of decoder_plan's device path (decode with a stream), all in device memory, laid out
// as decode_output's.
struct device_outputs {
  std::uint32_t* decisions = nullptr;  // [frame][i]; required
  std::int32_t* status = nullptr;      // [frame] frame_status; required
  double* app = nullptr;               // [frame][i][D], or null: not written
  double* drift_posterior = nullptr;   // [frame][i = 0..N][m - m_tau_min], or null: not computed
};

// Where the time of the last decode call went (seconds). `total` is the call's wall time on every
// backend; with phase timings on (decoder_plan::set_phase_timings), CUDA also splits its GPU time
// by phase with events: gamma, alpha+beta, L (and lambda), host<->device copies (sums over a
// chunk's pipelined parts, which may overlap), and sets `phases`.
struct decode_timings {
  double total = 0, gamma = 0, forward_backward = 0, app = 0, transfer = 0;
  bool phases = false;
};

namespace detail {
class decoder_engine;
}

class decoder_plan {
 public:
  // Throws invalid_argument (bad options or sizes), out_of_memory (the plan's buffers do not fit).
  decoder_plan(const tvb_code& code, const bsid_params& channel,
               const decoder_options& options = {}, backend where = backend::cpu,
               std::size_t max_batch = 1);
  ~decoder_plan();
  decoder_plan(decoder_plan&&) noexcept;
  decoder_plan& operator=(decoder_plan&&) noexcept;

  const plan_summary& summary() const { return summary_; }
  const tvb_code& code() const { return code_; }
  const bsid_params& channel() const { return channel_; }
  const decoder_options& options() const { return options_; }
  std::string describe() const;

  // Bytes `where`'s buffers take for a batch of `frames` frames under `storage` (never
  // automatic): the formula the plans choose storage and chunk by (memory_budget is in its units).
  static std::size_t memory_estimate(const tvb_code& code, const drift_limits& frame,
                                     const drift_limits& codeword, storage_mode storage,
                                     real_kind lattice_real, std::size_t frames,
                                     backend where = backend::cpu);
  std::size_t memory_estimate() const { return summary_.memory_bytes; }

  // Decodes a batch of received frames (each any length; out-of-range lengths are reported per
  // frame as undecodable). `priors` is null (uniform 1/q) or frames*N*q symbol probabilities
  // Pr{D_i = D}, [frame][i][D], each row summing to 1. Throws invalid_argument for a batch larger
  // than the plan's max_batch or invalid priors. A `stop` requested during the call (an interrupt,
  // a deadline) ends it within about a second, throwing gpufec::stopped; `out` is then unusable.
  void decode(batch_view<std::uint8_t> received, decode_output& out, const double* priors = nullptr,
              const stop_token& stop = {});
  // One frame; an undecodable frame throws undecodable_error with the reason.
  decode_output decode(std::span<const std::uint8_t> received, const double* priors = nullptr);

  // The device path: decodes a batch that lives on the device into device outputs, queued on the
  // caller's `stream` (CUDA plans only; a CPU plan throws invalid_argument), as every family's
  // decode(received, outputs, stream) does. `received` is a device view:
  // ragged (device offsets) or padded (frames at a fixed stride with device per-frame lengths);
  // `priors` is null or device memory as for decode(). The call returns once the work is queued:
  // the outputs are ready when `stream` reaches this point, and no byte goes through the host.
  // Frames of a length outside the plan's limits, or holding a symbol outside the alphabet, are
  // reported as frame_status::rejected. At most max_batch frames per call.
  void decode(batch_view<std::uint8_t> received, const device_outputs& out, cuda_stream stream,
              const double* priors = nullptr);

  const decode_timings& last_timings() const;
  // CUDA: record the time of each phase (events between the kernels). Off by default: a chunk
  // then runs as one captured CUDA graph, which saves ~10 us of launch gaps per chunk.
  void set_phase_timings(bool on);

  // The check `decode` applies: empty string if the length is decodable, else the reason.
  std::string check_received_length(std::size_t rho) const;

 private:
  tvb_code code_;
  bsid_params channel_;
  decoder_options options_;
  plan_summary summary_;
  std::unique_ptr<detail::decoder_engine> engine_;
};

}  // namespace gpufec::sync
