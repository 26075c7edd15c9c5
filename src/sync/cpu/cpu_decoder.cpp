// The CPU reference MAP decoder: one thread per frame, frames in parallel with OpenMP.
//
// It is the oracle for the CUDA decoder and the baseline for its speedup, so it is both exact and
// fast: flat arrays allocated once per thread, and the lattice vectorized over the message symbol D
// (every D shares the lattice's shape and received segment; only the codeword bit differs), which
// is also the gamma layout [i][m'][m - m'][D] of the seed paper (sec. IV-A1, q innermost).
//
// Numbers: the lattice runs in `real` (float by default) and evaluates every node as
//   F = (ins * F_left + del * F_up) + Q * F_diag
// in exactly this order with no fused multiply-add, so the CUDA lattice (same order, __fmul_rn /
// __fadd_rn) produces bit-identical gamma. alpha, beta and L are double.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "sync/cpu/lattice.hpp"
#include "sync/plan/engine.hpp"

namespace gpufec::sync::detail {
namespace {

template <class real>
class cpu_engine final : public decoder_engine {
 public:
  cpu_engine(const tvb_code& code, const geometry& g, storage_mode storage)
      : code_(code), g_(g), storage_(storage) {}

  std::size_t allocated_bytes() const override {
    std::size_t bytes = 0;
    for (const auto& w : workspaces_)
      bytes += w.gamma.size() * sizeof(real) +
               (w.gsum.size() + w.alpha.size() + w.beta.size()) * 8 +
               (w.row_a.size() + w.row_b.size() + w.qv.size()) * sizeof(real);
    return bytes;
  }

  void decode(batch_view<std::uint8_t> received, const double* priors, decode_output& out,
              const stop_token& stop) override {
    const std::size_t threads = static_cast<std::size_t>(omp_get_max_threads());
    if (workspaces_.size() < threads) workspaces_.resize(threads);
    const auto frames = static_cast<std::int64_t>(received.frames());
    const std::size_t prior_stride = static_cast<std::size_t>(g_.N) * g_.q;
    stop_ = stop.possible() ? &stop : nullptr;
    stopped_ = false;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t f = 0; f < frames; ++f) {
      if (!out.decoded[f] || stopped_.load(std::memory_order_relaxed)) continue;
      workspace& w = workspaces_[omp_get_thread_num()];
      decode_frame(received.frame(f), priors ? priors + f * prior_stride : nullptr, out, f, w);
    }
    stop_ = nullptr;
    if (stopped_) throw stopped();
  }

 private:
  // Checked once per index of a frame (a frame of N = 10^5 runs for minutes): a stop request ends
  // every thread's frame and the call (decode throws stopped).
  bool stopping() const {
    if (stopped_.load(std::memory_order_relaxed)) return true;
    if (stop_ && stop_->requested()) stopped_ = true;
    return stopped_.load(std::memory_order_relaxed);
  }
  const stop_token* stop_ = nullptr;
  mutable std::atomic<bool> stopped_{false};

  struct workspace {
    std::vector<real> gamma;    // R values, [i][m'][m - m'][D] (global) or one i (local)
    std::vector<double> gsum;   // sum_D Pr{D} R, [i][m'][m - m'] (global) or one i (local)
    std::vector<double> alpha;  // [i = 0..N][m]
    std::vector<double> beta;   // [i = 0..N][m]
    std::vector<real> row_a, row_b, qv;
    std::vector<double> prior, acc;
  };

  bool global() const {
    return storage_ == storage_mode::global;
  }
  std::size_t gamma_block() const {
    return static_cast<std::size_t>(g_.M_tau) * g_.M_n * g_.q;
  }
  std::size_t gsum_block() const {
    return static_cast<std::size_t>(g_.M_tau) * g_.M_n;
  }

  void prepare(workspace& w) const {
    if (!w.alpha.empty()) return;
    const std::size_t rows = global() ? static_cast<std::size_t>(g_.N) : 1;
    w.gamma.assign(rows * gamma_block(), real(0));
    w.gsum.assign(rows * gsum_block(), 0.0);
    w.alpha.assign(static_cast<std::size_t>(g_.N + 1) * g_.M_tau, 0.0);
    w.beta.assign(w.alpha.size(), 0.0);
    const std::size_t row = static_cast<std::size_t>(g_.max_mu() + 2) * g_.q;
    w.row_a.assign(row, real(0));
    w.row_b.assign(row, real(0));
    w.qv.assign(static_cast<std::size_t>(g_.n) * g_.alphabet * g_.q, real(0));
    w.prior.assign(g_.q, 0.0);
    w.acc.assign(g_.q, 0.0);
  }

  // gamma (as R) and gsum for index i: every m' with a valid segment, every drift change.
  void compute_gamma(int i, std::span<const std::uint8_t> y, const double* prior, real* gamma,
                     double* gsum, workspace& w) const {
    const lattice_constants<real> k(g_);
    fill_symbol_metrics(code_, g_, i, k, w.qv.data());
    std::fill(gamma, gamma + gamma_block(), real(0));
    const auto rho = static_cast<std::int64_t>(y.size());
    for (int mp = 0; mp < g_.M_tau; ++mp) {
      const segment s = segment_for(g_, i, mp, rho);
      if (s.empty()) continue;
      real* out = gamma + static_cast<std::size_t>(mp) * g_.M_n * g_.q;
      lattice_all_symbols<real>(g_, k, w.qv.data(), y.data() + s.start, s, w.row_a.data(),
                                w.row_b.data(), out);
    }
    // gsum[m'][d] = sum_D Pr{D_i = D} R(D), summed in D order (the CUDA decoder sums likewise).
    for (std::size_t c = 0; c < gsum_block(); ++c) {
      const real* r = gamma + c * g_.q;
      double s = 0;
      for (int D = 0; D < g_.q; ++D) s += prior[D] * static_cast<double>(r[D]);
      gsum[c] = s;
    }
  }

  void set_prior(const double* priors, int i, workspace& w) const {
    if (priors)
      std::copy_n(priors + static_cast<std::size_t>(i) * g_.q, g_.q, w.prior.data());
    else
      std::fill(w.prior.begin(), w.prior.end(), 1.0 / g_.q);
  }

  // Normalizes v[0, M) to sum 1 (11)-(12); false when everything is zero.
  static bool normalize(double* v, int M) {
    double sum = 0;
    for (int m = 0; m < M; ++m) sum += v[m];
    if (!(sum > 0) || !std::isfinite(sum)) return false;
    const double inv = 1.0 / sum;
    for (int m = 0; m < M; ++m) v[m] *= inv;
    return true;
  }

  void decode_frame(std::span<const std::uint8_t> y, const double* priors, decode_output& out,
                    std::int64_t f, workspace& w) const {
    prepare(w);
    const int M = g_.M_tau, Mn = g_.M_n, N = g_.N, q = g_.q;
    const int m_tau_min = g_.frame.lo, m_n_min = g_.codeword.lo;
    const auto rho = static_cast<std::int64_t>(y.size());
    auto gamma_at = [&](int i) { return w.gamma.data() + (global() ? i * gamma_block() : 0); };
    auto gsum_at = [&](int i) { return w.gsum.data() + (global() ? i * gsum_block() : 0); };
    auto fail = [&](const char* why) {
      out.decoded[f] = 0;
      out.messages[f] = why;
    };

    // Forward pass (4), normalized (11)-(12): alpha_0 is the known start drift 0.
    std::fill(w.alpha.begin(), w.alpha.end(), 0.0);
    w.alpha[-m_tau_min] = 1.0;
    for (int i = 0; i < N; ++i) {
      if (stopping()) return;
      set_prior(priors, i, w);
      compute_gamma(i, y, w.prior.data(), gamma_at(i), gsum_at(i), w);
      const double* gs = gsum_at(i);
      const double* a = &w.alpha[static_cast<std::size_t>(i) * M];
      double* next = &w.alpha[static_cast<std::size_t>(i + 1) * M];
      for (int mp = 0; mp < M; ++mp) {
        if (a[mp] == 0) continue;
        const auto [d0, d1] = drift_change_range(g_, mp, rho, i);
        for (int d = d0; d <= d1; ++d) next[mp + d] += a[mp] * gs[mp * Mn + (d - m_n_min)];
      }
      if (!normalize(next, M))
        return fail(
            "the received sequence has zero probability under the channel model (forward pass)");
    }

    // Backward pass (5): beta_N is the frame-end prior.
    double* bN = &w.beta[static_cast<std::size_t>(N) * M];
    std::fill(bN, bN + M, 0.0);
    for (int m = 0; m < M; ++m) {
      const std::int64_t drift = m_tau_min + m;
      if (g_.end_known)
        bN[m] = (drift == rho - g_.tau) ? 1.0 : 0.0;
      else
        bN[m] = (g_.tau + drift <= rho) ? g_.end_prior[m] : 0.0;
    }
    if (!normalize(bN, M)) return fail("no frame end within the drift limits");
    for (int i = N - 1; i >= 0; --i) {
      if (stopping()) return;
      set_prior(priors, i, w);
      if (!global()) compute_gamma(i, y, w.prior.data(), gamma_at(i), gsum_at(i), w);
      const real* gm = gamma_at(i);
      const double* gs = gsum_at(i);
      const double* a = &w.alpha[static_cast<std::size_t>(i) * M];
      const double* b1 = &w.beta[static_cast<std::size_t>(i + 1) * M];
      double* b = &w.beta[static_cast<std::size_t>(i) * M];

      // APPs (1)-(3): L_i(D) = Pr{D} sum_{m', m} alpha_i(m') R beta_{i+1}(m), normalized over D.
      std::fill(w.acc.begin(), w.acc.end(), 0.0);
      for (int mp = 0; mp < M; ++mp) {
        const auto [d0, d1] = drift_change_range(g_, mp, rho, i);
        double bsum = 0;
        for (int d = d0; d <= d1; ++d) {
          const double gsd = gs[mp * Mn + (d - m_n_min)];
          bsum += gsd * b1[mp + d];
          const double weight = a[mp] * b1[mp + d];
          if (weight == 0) continue;
          const real* r = gm + (static_cast<std::size_t>(mp) * Mn + (d - m_n_min)) * q;
          for (int D = 0; D < q; ++D) w.acc[D] += weight * static_cast<double>(r[D]);
        }
        b[mp] = bsum;
      }
      double* app = out.app.data() + (static_cast<std::size_t>(f) * N + i) * q;
      double total = 0;
      for (int D = 0; D < q; ++D) total += app[D] = w.prior[D] * w.acc[D];
      if (!(total > 0))
        return fail("the received sequence has zero probability under the channel model (APP)");
      std::uint32_t best = 0;
      for (int D = 0; D < q; ++D) {
        app[D] /= total;
        if (app[D] > app[best]) best = static_cast<std::uint32_t>(D);
      }
      out.decisions[static_cast<std::size_t>(f) * N + i] = best;
      if (!normalize(b, M))
        return fail(
            "the received sequence has zero probability under the channel model (backward pass)");
    }

    // Drift posterior at codeword boundaries: lambda_i(m) = alpha_i(m) beta_i(m), normalized.
    if (out.drift_posterior.empty()) return;  // not asked for
    double* lambda = out.drift_posterior.data() + static_cast<std::size_t>(f) * (N + 1) * M;
    for (std::size_t k = 0; k < static_cast<std::size_t>(N + 1) * M; ++k)
      lambda[k] = w.alpha[k] * w.beta[k];
    for (int i = 0; i <= N; ++i) normalize(lambda + static_cast<std::size_t>(i) * M, M);
  }

  const tvb_code code_;  // a copy: the engine must not depend on where the plan lives
  geometry g_;
  storage_mode storage_;
  std::vector<workspace> workspaces_;
};

}  // namespace

std::unique_ptr<decoder_engine> make_cpu_engine(const tvb_code& code, const geometry& g,
                                                storage_mode storage, real_kind lattice_real) {
  if (lattice_real == real_kind::f64) return std::make_unique<cpu_engine<double>>(code, g, storage);
  return std::make_unique<cpu_engine<float>>(code, g, storage);
}

}  // namespace gpufec::sync::detail
