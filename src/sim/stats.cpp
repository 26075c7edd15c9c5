#include "gpufec/sim/stats.hpp"

#include <algorithm>
#include <cmath>

#include "gpufec/common/error.hpp"

namespace gpufec::sim {

interval wilson_interval(std::uint64_t k, std::uint64_t n, double z) {
  require(k <= n, "wilson_interval: more successes than trials (k = ", k, ", n = ", n, ")");
  require(std::isfinite(z) && z > 0.0, "wilson_interval: z must be positive (z = ", z, ")");
  if (n == 0) return {0.0, 1.0};
  const double nn = static_cast<double>(n);
  const double p = static_cast<double>(k) / nn;
  const double z2 = z * z;
  const double centre = (p + z2 / (2.0 * nn)) / (1.0 + z2 / nn);
  const double half = z / (1.0 + z2 / nn) * std::sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn));
  // At k = 0 (k = n) the exact lower (upper) bound is 0 (1); rounding may leave a tiny residue.
  const double lower = k == 0 ? 0.0 : std::max(0.0, centre - half);
  const double upper = k == n ? 1.0 : std::min(1.0, centre + half);
  return {lower, upper};
}

namespace {
// Continued fraction for I_x(a, b) (modified Lentz), valid and fast for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-15;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    if (std::fabs(d) < tiny) d = tiny;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    if (std::fabs(d) < tiny) d = tiny;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < eps) break;
  }
  return h;
}
}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  require(a > 0.0 && b > 0.0, "incomplete beta: a and b must be positive (a = ", a, ", b = ", b,
          ")");
  require(x >= 0.0 && x <= 1.0, "incomplete beta: x must lie in [0, 1] (x = ", x, ")");
  if (x == 0.0 || x == 1.0) return x;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0))
    return std::exp(log_front) * beta_continued_fraction(a, b, x) / a;
  return 1.0 - std::exp(log_front) * beta_continued_fraction(b, a, 1.0 - x) / b;
}

namespace {
// The x in [0, 1] where I_x(a, b) = target, by bisection (I is increasing in x).
double beta_quantile(double a, double b, double target) {
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 200 && hi - lo > 1e-16 * std::max(hi, 1e-300); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (regularized_incomplete_beta(a, b, mid) < target)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}
}  // namespace

interval clopper_pearson_interval(std::uint64_t k, std::uint64_t n, double confidence) {
  require(k <= n, "clopper_pearson_interval: more successes than trials (k = ", k, ", n = ", n,
          ")");
  require(confidence > 0.0 && confidence < 1.0,
          "clopper_pearson_interval: confidence must lie in (0, 1) (confidence = ", confidence,
          ")");
  if (n == 0) return {0.0, 1.0};
  const double alpha = 1.0 - confidence;
  const double kk = static_cast<double>(k), nn = static_cast<double>(n);
  const double lower = k == 0 ? 0.0 : beta_quantile(kk, nn - kk + 1.0, alpha / 2.0);
  const double upper = k == n ? 1.0 : beta_quantile(kk + 1.0, nn - kk, 1.0 - alpha / 2.0);
  return {lower, upper};
}

double gaussian_q(double x) {
  return 0.5 * std::erfc(x / std::sqrt(2.0));
}

}  // namespace gpufec::sim
