// Confidence intervals for error rates: k errors observed in n independent trials (bits, frames,
// symbols). Wilson's score interval is the default (good coverage, cheap, never outside [0, 1]);
// Clopper-Pearson is the exact, conservative interval from the binomial tails.
#pragma once

#include <cstdint>

namespace gpufec::sim {

struct interval {
  double lower = 0.0;
  double upper = 1.0;
};

// Two-sided 95% standard-normal quantile, z = Phi^-1(0.975).
inline constexpr double z_95 = 1.959963984540054;

// Wilson score interval for k successes in n trials; n == 0 gives [0, 1].
interval wilson_interval(std::uint64_t k, std::uint64_t n, double z = z_95);
// Clopper-Pearson interval at `confidence` (e.g. 0.95); n == 0 gives [0, 1].
interval clopper_pearson_interval(std::uint64_t k, std::uint64_t n, double confidence = 0.95);
// Regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1].
double regularized_incomplete_beta(double a, double b, double x);
// Q(x) = P(N(0, 1) > x): the uncoded BPSK bit error rate is Q(sqrt(2 Eb/N0)).
double gaussian_q(double x);

}  // namespace gpufec::sim
