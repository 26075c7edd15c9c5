// The geometry of a decode (drift limits, state-space sizes, lattice weights) and the one memory
// formula every plan and test reads.
#include "sync/plan/geometry.hpp"

#include <algorithm>
#include <cmath>

#include "gpufec/common/align.hpp"
#include "gpufec/common/error.hpp"
#include "sync/cuda/policy.hpp"

namespace gpufec::sync::detail {

namespace {

void validate_limits(const drift_limits& l, std::int64_t T, const char* what) {
  require(l.lo <= 0 && l.hi >= 0, what, " drift limits [", l.lo, ", ", l.hi, "] must contain 0");
  require(l.lo >= -T, what, " lower drift limit ", l.lo, " is below -T = ", -T,
          " (more deletions than symbols)");
}

}  // namespace

geometry make_geometry(const tvb_code& code, const bsid_params& ch, const decoder_options& o) {
  require(std::isfinite(o.Pr) && o.Pr > 0 && o.Pr < 1, "Pr = ", o.Pr, " must lie in (0, 1)");
  geometry g;
  g.q = code.q();
  g.n = code.n();
  g.N = code.N();
  g.alphabet = code.alphabet();
  require(g.alphabet == ch.alphabet, "the code's alphabet (", g.alphabet,
          ") differs from the channel's (", ch.alphabet, ")");
  g.tau = code.tau();
  g.codeword = o.codeword_limits
                   ? *o.codeword_limits
                   : compute_drift_limits(ch, g.n, per_codeword_probability(o.Pr, g.N));
  g.frame = o.frame_limits ? *o.frame_limits : compute_drift_limits(ch, g.tau, o.Pr);
  validate_limits(g.codeword, g.n, "codeword");
  validate_limits(g.frame, g.tau, "frame");
  if (o.frame_limits)
    require(g.frame.lo <= g.codeword.lo && g.frame.hi >= g.codeword.hi, "frame drift limits [",
            g.frame.lo, ", ", g.frame.hi, "] must contain the codeword limits [", g.codeword.lo,
            ", ", g.codeword.hi, "]");
  // The seed paper's condition (III-B e): the frame state space contains every codeword change.
  g.frame.lo = std::min(g.frame.lo, g.codeword.lo);
  g.frame.hi = std::max(g.frame.hi, g.codeword.hi);
  g.M_tau = g.frame.size();
  g.M_n = g.codeword.size();
  g.lattice = o.lattice;
  g.end_known = o.end_known;
  g.ins = ch.Pi / ch.alphabet;
  g.del = ch.Pd;
  g.match = ch.Pt() * (1 - ch.Ps);
  g.mismatch = ch.Pt() * ch.Ps / (ch.alphabet - 1);
  if (!g.end_known) g.end_prior = drift_pmf(ch, g.tau, g.frame.lo, g.frame.hi);
  return g;
}

std::size_t bytes_per_frame(const geometry& g, storage_mode storage, real_kind lattice_real,
                            backend where) {
  require(storage != storage_mode::automatic, "a memory estimate needs a storage mode, not auto");
  const std::size_t N = g.N, M = g.M_tau, Mn = g.M_n, q = g.q;
  const std::size_t real_bytes = lattice_real == real_kind::f32 ? 4 : 8;
  if (where == backend::cpu) {
    // One frame per thread at a time: gamma and gsum of every index (global) or of one, alpha
    // and beta (compact runs as local on the CPU).
    const std::size_t rows = storage == storage_mode::global ? N : 1;
    return rows * M * Mn * (q * real_bytes + 8) + 2 * (N + 1) * M * 8;
  }
  // CUDA, per frame of a chunk: R (not in compact storage), gsum in both layouts (rows of
  // Kp = round_up(M_n, 4) + 2 doubles per state), alpha, beta and the drift posterior, the APPs
  // and the priors, the decisions, and the received symbols with their offset, length and status.
  const std::size_t rows =
      storage == storage_mode::local ? std::min<std::size_t>(N, policy::local_ring_rows) : N;
  const std::size_t gsum_stride = 2 * M * (round_up(g.M_n, 4) + 2);
  const std::size_t capacity = static_cast<std::size_t>(g.tau + g.frame.hi);
  return (storage != storage_mode::compact ? rows * M * Mn * q * real_bytes : 0) +
         rows * gsum_stride * 8 + 3 * (N + 1) * M * 8 + N * q * 8 * 2 + N * 4 + capacity + 2 * 8 +
         4;
}

geometry sizes_of(const tvb_code& code, const drift_limits& frame, const drift_limits& codeword) {
  geometry g;
  g.q = code.q();
  g.n = code.n();
  g.N = code.N();
  g.alphabet = code.alphabet();
  g.tau = code.tau();
  g.frame = frame;
  g.codeword = codeword;
  g.M_tau = frame.size();
  g.M_n = codeword.size();
  return g;
}

}  // namespace gpufec::sync::detail
