// The BSID drift pmf and the state-space limits derived from it.
//
// The formula of the header factors into two independent counts: after T input symbols the drift
// is S_T = K - J, where K ~ NegBin(T, 1 - Pi) counts the insertions (a geometric number before
// each input symbol) and J ~ Binomial(T, Pd / (1 - Pi)) counts the deletions (each input symbol,
// once no further insertion happens, is deleted with probability Pd / (Pd + Pt)). Indeed
//   Pt^(T-j) Pd^j Pi^(m+j) C(T, j) C(T+m+j-1, m+j)
//     = [C(T, j) pd^j (1-pd)^(T-j)] * [C(T+k-1, k) (1-Pi)^T Pi^k],  pd = Pd/(1-Pi), k = m + j.
// Each factor is evaluated in the log domain with Loader's saddle-point form (stirlerr + bd0, as in
// R's dbinom), which keeps full relative precision for T up to 1e6 and beyond, where differences of
// lgamma values would lose ~1e-9. The sum over j starts at its largest term (the terms are
// log-concave in j; the peak is found by bisection on the term ratio) and walks outward with the
// exact ratio t_{j+1}/t_j = Pf (T-j)(T+m+j) / ((j+1)(m+j+1)) until the terms drop below 1e-20 of
// the peak.
#include "gpufec/sync/drift.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpufec/common/error.hpp"

namespace gpufec::sync {
namespace {

constexpr double kLn2Pi = 1.837877066409345483560659472811;  // log(2 pi)
constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kRelStop = 1e-20;  // terms below this fraction of the peak are dropped

// stirlerr(n) = log(n!) - log(sqrt(2 pi n) (n/e)^n), for integer n >= 0.
double stirlerr(double n) {
  if (n <= 15.0) {
    if (n == 0) return 0.0;  // by convention (never used: x = 0 and x = n are special cases)
    // Small n: long double lgamma keeps the cancellation harmless (error ~1e-18).
    const long double nl = n;
    return static_cast<double>(std::lgamma(nl + 1.0L) - (nl + 0.5L) * std::log(nl) + nl -
                               0.5L * static_cast<long double>(kLn2Pi));
  }
  constexpr double S0 = 1.0 / 12, S1 = 1.0 / 360, S2 = 1.0 / 1260, S3 = 1.0 / 1680, S4 = 1.0 / 1188;
  const double nn = n * n;
  return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}

// bd0(x, np) = x log(x/np) + np - x, computed without cancellation near x = np.
double bd0(double x, double np) {
  if (std::fabs(x - np) < 0.1 * (x + np)) {
    double v = (x - np) / (x + np);
    double s = (x - np) * v;
    if (std::fabs(s) < std::numeric_limits<double>::min()) return s;
    double ej = 2 * x * v;
    v *= v;
    for (int j = 1; j < 1000; ++j) {
      ej *= v;
      const double s1 = s + ej / (2 * j + 1);
      if (s1 == s) return s1;
      s = s1;
    }
  }
  return x * std::log(x / np) + np - x;
}

// log of C(n, x) p^x q^(n-x), with p + q = 1 given separately (both exact inputs).
double log_dbinom(double x, double n, double p, double q) {
  if (x < 0 || x > n) return kNegInf;
  if (p == 0) return x == 0 ? 0.0 : kNegInf;
  if (q == 0) return x == n ? 0.0 : kNegInf;
  if (x == 0) {
    if (n == 0) return 0.0;
    return p < 0.1 ? -bd0(n, n * q) - n * p : n * std::log(q);
  }
  if (x == n) return q < 0.1 ? -bd0(n, n * p) - n * q : n * std::log(p);
  const double lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p) - bd0(n - x, n * q);
  const double lf = kLn2Pi + std::log(x) + std::log1p(-x / n);
  return lc - 0.5 * lf;
}

// log of C(size+x-1, x) prob^size (1-prob)^x, with q = 1 - prob, size >= 1.
double log_dnbinom(double x, double size, double prob, double q) {
  if (x < 0) return kNegInf;
  if (q == 0) return x == 0 ? 0.0 : kNegInf;
  return std::log(size / (size + x)) + log_dbinom(size, size + x, prob, q);
}

struct pmf_context {
  double T = 0;
  double Pi = 0, Pd = 0;
  double pd = 0, qd = 0;  // deletion given no further insertion, and its complement
  double qi = 0;          // 1 - Pi
  double Pf = 0;          // Pi Pd / Pt

  explicit pmf_context(const bsid_params& p, std::int64_t T_) {
    T = static_cast<double>(T_);
    Pi = p.Pi;
    Pd = p.Pd;
    qi = 1.0 - p.Pi;
    pd = p.Pd / qi;
    qd = p.Pt() / qi;
    Pf = p.Pi * p.Pd / p.Pt();
  }

  // log t_j, the j-th term of the sum for drift m.
  double log_term(double m, double j) const {
    return log_dbinom(j, T, pd, qd) + log_dnbinom(m + j, T, qi, Pi);
  }
  // t_{j+1} / t_j.
  double ratio(double m, double j) const {
    return Pf * (T - j) * (T + m + j) / ((j + 1) * (m + j + 1));
  }

  double log_pmf(std::int64_t T_, std::int64_t m) const {
    if (T_ == 0) return m == 0 ? 0.0 : kNegInf;
    if (m < -T_) return kNegInf;
    const double md = static_cast<double>(m);
    const double j0 = static_cast<double>(std::max<std::int64_t>(-m, 0));
    // The peak: the smallest j in [j0, T] with ratio(j) < 1 (ratio is decreasing in j).
    double lo = j0, hi = T;  // invariant: the answer lies in [lo, hi]
    if (Pf > 0) {
      while (lo < hi) {
        const double mid = std::floor((lo + hi) / 2);
        if (ratio(md, mid) < 1.0)
          hi = mid;
        else
          lo = mid + 1;
      }
    }
    const double jp = lo;
    const double lpeak = log_term(md, jp);
    if (lpeak == kNegInf) return kNegInf;
    double sum = 1.0;  // in units of the peak term
    if (Pf > 0) {
      double t = 1.0;
      for (double j = jp; j > j0;) {  // downward: t_{j-1} = t_j / ratio(j-1)
        j -= 1;
        t /= ratio(md, j);
        sum += t;
        if (t < kRelStop) break;
      }
      t = 1.0;
      for (double j = jp; j < T; j += 1) {  // upward
        t *= ratio(md, j);
        sum += t;
        if (t < kRelStop) break;
      }
    }
    return lpeak + std::log(sum);
  }
};

void check_T(std::int64_t T) {
  require(T >= 0, "drift: T = ", T, " must be >= 0");
}

}  // namespace

double log_drift_pmf(const bsid_params& p, std::int64_t T, std::int64_t m) {
  p.validate();
  check_T(T);
  return pmf_context(p, T).log_pmf(T, m);
}

std::vector<double> drift_pmf(const bsid_params& p, std::int64_t T, std::int64_t lo,
                              std::int64_t hi) {
  p.validate();
  check_T(T);
  require(lo <= hi, "drift_pmf: lo = ", lo, " exceeds hi = ", hi);
  const pmf_context ctx(p, T);
  std::vector<double> out(static_cast<std::size_t>(hi - lo + 1));
  for (std::int64_t m = lo; m <= hi; ++m)
    out[static_cast<std::size_t>(m - lo)] = std::exp(ctx.log_pmf(T, m));
  return out;
}

namespace {

// The pmf values from `start` outward in direction `dir` (+1 or -1), stopping at `bound`
// (inclusive) or once the terms are decreasing and negligible against the mass collected.
// Returns the suffix sums: tail[k] = sum of pmf(start + dir*i) for i >= k, accumulated from the far
// end inward (smallest terms first) so that each tail keeps full relative precision.
std::vector<double> outward_tails(const pmf_context& ctx, std::int64_t T, std::int64_t start,
                                  int dir, std::int64_t bound) {
  // The pmf is log-concave in m (a convolution of log-concave pmfs), so once past its mean in the
  // direction of travel it only decreases: stop there when a term is negligible (or exactly 0).
  const double mean = ctx.T * (ctx.Pi - ctx.Pd) / ctx.qi;
  std::vector<double> terms;
  double acc = 0;
  for (std::int64_t m = start; dir > 0 ? m <= bound : m >= bound; m += dir) {
    const double v = std::exp(ctx.log_pmf(T, m));
    terms.push_back(v);
    acc += v;
    const bool past_mean = (static_cast<double>(m) - mean) * dir > 1.0;
    if (past_mean && v <= 1e-30 * acc) break;
  }
  std::vector<double> tail(terms.size() + 1, 0.0);
  for (std::size_t k = terms.size(); k-- > 0;) tail[k] = tail[k + 1] + terms[k];
  return tail;
}

}  // namespace

drift_limits compute_drift_limits(const bsid_params& p, std::int64_t T, double Pr) {
  p.validate();
  check_T(T);
  require(Pr > 0 && Pr < 1, "drift limits: Pr = ", Pr, " must be in (0, 1)");
  const pmf_context ctx(p, T);
  const double half = Pr / 2;
  std::int64_t hi = 0, lo = 0;
  while (std::exp(ctx.log_pmf(T, hi + 1)) >= half) ++hi;
  while (lo - 1 >= -T && std::exp(ctx.log_pmf(T, lo - 1)) >= half) --lo;

  // Tail masses beyond the current limits, summed outward (never as 1 - sum).
  constexpr std::int64_t kMaxUp = std::numeric_limits<std::int32_t>::max();
  const std::vector<double> up = outward_tails(ctx, T, hi + 1, +1, kMaxUp);
  const std::vector<double> down =
      lo - 1 >= -T ? outward_tails(ctx, T, lo - 1, -1, -T) : std::vector<double>{0.0};
  std::size_t iu = 0, id = 0;  // how far each side has been widened
  while (up[iu] + down[id] >= Pr) {
    if (up[iu] >= down[id] && iu + 1 < up.size()) {
      ++iu;
    } else if (id + 1 < down.size()) {
      ++id;
    } else if (iu + 1 < up.size()) {
      ++iu;
    } else {
      break;  // both sides exhausted: what is left is below what doubles can resolve
    }
  }
  hi += static_cast<std::int64_t>(iu);
  lo -= static_cast<std::int64_t>(id);
  require(hi <= kMaxUp && lo >= std::numeric_limits<std::int32_t>::min(), "drift limits [", lo,
          ", ", hi, "] for T = ", T, " do not fit in 32 bits");
  drift_limits out;
  out.lo = static_cast<std::int32_t>(lo);
  out.hi = static_cast<std::int32_t>(hi);
  out.excluded = up[iu] + down[id];
  return out;
}

double per_codeword_probability(double Pr, std::int64_t N) {
  require(Pr > 0 && Pr < 1, "per-codeword probability: Pr = ", Pr, " must be in (0, 1)");
  require(N >= 1, "per-codeword probability: N = ", N, " must be >= 1");
  // 1 - (1 - Pr)^(1/N) = -expm1(log1p(-Pr) / N): no cancellation for small Pr.
  return -std::expm1(std::log1p(-Pr) / static_cast<double>(N));
}

}  // namespace gpufec::sync
