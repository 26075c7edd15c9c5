// The drift S_T of the BSID channel after T transmitted symbols, and the state-space limits that
// keep all but a probability Pr of it (Briffa, Schaathun, Wesemeyer, "An improved decoding
// algorithm for the Davey-MacKay construction", ICC 2010, and the seed paper, sec. II-C).
#pragma once

#include <cstdint>
#include <vector>

#include "gpufec/sync/bsid_channel.hpp"

namespace gpufec::sync {

// log Pr{S_T = m} = log sum_{j = max(-m, 0)}^{T} Pt^T Pi^m Pf^j C(T, j) C(T+m+j-1, m+j), with
// Pf = Pi Pd / Pt, computed in the log domain (no overflow for T up to 1e6 and beyond). Returns
// -infinity where the probability is exactly 0 (m < -T, or the events needed have probability 0).
double log_drift_pmf(const bsid_params& p, std::int64_t T, std::int64_t m);

// The pmf over [lo, hi] (linear domain), index m - lo.
std::vector<double> drift_pmf(const bsid_params& p, std::int64_t T, std::int64_t lo,
                              std::int64_t hi);

struct drift_limits {
  std::int32_t lo = 0;                               // m_T^-
  std::int32_t hi = 0;                               // m_T^+
  double excluded = 0;                               // Pr{S_T outside [lo, hi]}
  std::int32_t size() const { return hi - lo + 1; }  // M_T
};

// Limits excluding less than Pr: step out from 0 on each side while the pmf >= Pr/2, then widen
// the side with more remaining mass until the excluded total is below Pr. lo >= -T always.
drift_limits compute_drift_limits(const bsid_params& p, std::int64_t T, double Pr);

// The per-codeword probability Pr_N = 1 - (1 - Pr)^(1/N), so that N codewords together exclude
// about Pr (computed without cancellation).
double per_codeword_probability(double Pr, std::int64_t N);

}  // namespace gpufec::sync
