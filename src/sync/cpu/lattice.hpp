// The receiver metric R(y|x) by the lattice recursion (seed paper (7)-(10)), for one (i, m') and
// every message symbol D at once (the CPU decoder's vector dimension).
//
// Lattice node F[r][j]: r codeword symbols consumed, j received symbols consumed, so j - r is the
// drift inside the codeword. F[0][0] = 1;
//   F[r][j] = (ins F[r][j-1] + del F[r-1][j]) + Q(y_{j-1} | x_{r-1}) F[r-1][j-1]   (r < n)
//   F[n][j] =                   del F[n-1][j]  + Q(y_{j-1} | x_{n-1}) F[n-1][j-1]  (no insertion
// after the last symbol: insertions belong to the symbol they precede), and R for drift change
// delta is F[n][n + delta]. The corridor variant keeps only nodes with m_n^- <= j - r <= m_n^+.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sync/plan/engine.hpp"

namespace gpufec::sync::detail {

template <class real>
struct lattice_constants {
  real ins, del, match, mismatch;
  bool corridor;
  int m_n_min, m_n_max;
  explicit lattice_constants(const geometry& g)
      : ins(static_cast<real>(g.ins)),
        del(static_cast<real>(g.del)),
        match(static_cast<real>(g.match)),
        mismatch(static_cast<real>(g.mismatch)),
        corridor(g.lattice == lattice_mode::corridor),
        m_n_min(g.codeword.lo),
        m_n_max(g.codeword.hi) {}

  // Columns [jlo, jhi] of row r in a lattice with columns 0..mu (never empty, see segment_for).
  void row_range(int r, int mu, int& jlo, int& jhi) const {
    jlo = corridor ? std::max(0, r + m_n_min) : 0;
    jhi = corridor ? std::min(mu, r + m_n_max) : mu;
  }
};

// The received segment the lattice of (i, m') reads, and the drift changes it yields:
// y[start, start + mu) with mu = n + d1, and delta in [d0, d1], clipped so that m = m' + delta
// stays within the frame limits and the segment within the received sequence.
struct segment {
  std::int64_t start = 0;
  int mu = 0;
  int d0 = 0, d1 = -1;
  bool empty() const { return d0 > d1; }
};

inline segment segment_for(const geometry& g, int i, int mp, std::int64_t rho) {
  segment s;
  const std::int64_t m_prev = g.frame.lo + mp;
  s.start = static_cast<std::int64_t>(g.n) * i + m_prev;
  if (s.start < 0 || s.start > rho) return s;
  s.d0 = static_cast<int>(std::max<std::int64_t>(g.codeword.lo, g.frame.lo - m_prev));
  s.d1 = static_cast<int>(std::min<std::int64_t>(
      std::min<std::int64_t>(g.codeword.hi, g.frame.hi - m_prev), rho - s.start - g.n));
  s.mu = g.n + s.d1;
  return s;
}

struct drift_range {
  int d0, d1;
};
inline drift_range drift_change_range(const geometry& g, int mp, std::int64_t rho, int i) {
  const segment s = segment_for(g, i, mp, rho);
  return {s.d0, s.d1};
}

// qv[(r * alphabet + y) * q + D] = Q(y | x_r) for x = C_i(D): match or mismatch weight.
template <class real>
void fill_symbol_metrics(const tvb_code& code, const geometry& g, int i,
                         const lattice_constants<real>& k, real* qv) {
  for (int D = 0; D < g.q; ++D) {
    const std::uint8_t* x = code.codeword(i, D);
    for (int r = 0; r < g.n; ++r)
      for (int y = 0; y < g.alphabet; ++y)
        qv[(static_cast<std::size_t>(r) * g.alphabet + y) * g.q + D] =
            x[r] == y ? k.match : k.mismatch;
  }
}

// Runs the lattice of one (i, m') for every D. `prev` and `cur` hold (mu + 2) * q values each (a
// zero column at j = -1, then j = 0..mu); `out` receives R at [delta - m_n^-][D] for
// delta in [s.d0, s.d1] and is not touched elsewhere.
template <class real>
void lattice_all_symbols(const geometry& g, const lattice_constants<real>& k, const real* qv,
                         const std::uint8_t* y, const segment& s, real* prev, real* cur,
                         real* out) {
  const int q = g.q, n = g.n, mu = s.mu;
  auto at = [q](real* row, int j) { return row + static_cast<std::size_t>(j + 1) * q; };
  auto zero = [q](real* p) { std::fill(p, p + q, real(0)); };

  int jlo, jhi;
  k.row_range(0, mu, jlo, jhi);  // jlo == 0
  zero(at(prev, -1));
  std::fill(at(prev, 0), at(prev, 0) + q, real(1));
  for (int j = 1; j <= jhi; ++j) {
    real* __restrict c = at(prev, j);
    const real* __restrict l = at(prev, j - 1);
    for (int D = 0; D < q; ++D) c[D] = k.ins * l[D];
  }
  if (jhi + 1 <= mu) zero(at(prev, jhi + 1));

  for (int r = 1; r <= n; ++r) {
    k.row_range(r, mu, jlo, jhi);
    const real* qr = qv + static_cast<std::size_t>(r - 1) * g.alphabet * q;
    const real ins = r < n ? k.ins : real(0);  // the last row takes no insertion (10)
    zero(at(cur, jlo - 1));
    int j = jlo;
    if (j == 0) {  // no diagonal into column 0
      real* __restrict c = at(cur, 0);
      const real* __restrict u = at(prev, 0);
      for (int D = 0; D < q; ++D) c[D] = k.del * u[D];
      ++j;
    }
    for (; j <= jhi; ++j) {
      real* __restrict c = at(cur, j);
      const real* __restrict l = at(cur, j - 1);
      const real* __restrict u = at(prev, j);
      const real* __restrict dg = at(prev, j - 1);
      const real* __restrict qy = qr + static_cast<std::size_t>(y[j - 1]) * q;
      for (int D = 0; D < q; ++D) c[D] = (ins * l[D] + k.del * u[D]) + qy[D] * dg[D];
    }
    if (jhi + 1 <= mu) zero(at(cur, jhi + 1));
    std::swap(prev, cur);
  }
  for (int d = s.d0; d <= s.d1; ++d)
    std::copy_n(at(prev, n + d), q, out + static_cast<std::size_t>(d - g.codeword.lo) * q);
}

}  // namespace gpufec::sync::detail
