// Reliability of the synthetic channels: the 5G sequence restricted to N, Bhattacharyya parameters
// and the Gaussian approximation, all walking a channel index from its most significant bit
// (construction.hpp says why). Everything is double and, where a value can underflow, logarithmic.
#include "gpufec/polar/construction.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpufec/common/error.hpp"

namespace gpufec::polar {

namespace {

constexpr double pi = 3.14159265358979323846;

double log_phi_low(double x) {  // the fit's first piece
  return -0.4527 * std::pow(x, 0.86) + 0.0218;
}
double log_phi_high(double x) {  // the fit's second piece
  return 0.5 * std::log(pi / x) - 0.25 * x + std::log1p(-10.0 / (7.0 * x));
}
double log_phi_high_slope(double x) {
  const double c = 10.0 / (7.0 * x);
  return -0.5 / x - 0.25 + (c / x) / (1.0 - c);
}

// Below x = 0.2 the first piece bends up to 1.022 at x = 0 (phi is at most 1): there phi is the
// chord 1 - c x to (0.2, phi_1(0.2)), c = 0.4377, close to the exact slope 1/2 at 0. In 1 - phi
// terms, W- squares: 1 - phi' = (1 - phi)^2, so tiny means stay exact (m' = c m^2).
constexpr double chord_end = 0.2;
double chord_slope() {
  static const double c = -std::expm1(log_phi_low(chord_end)) / chord_end;
  return c;
}
// The pieces cross at x* = 14.394 (at 10, the textbook split, they differ by 2.5%, phi jumping
// up): joined there, phi is continuous and strictly decreasing, so its inverse is unique.
double pieces_cross() {
  static const double x = [] {
    double lo = 10.0, hi = 20.0;  // phi_1 < phi_2 at 10, phi_1 > phi_2 at 20
    for (int i = 0; i < 100; ++i) {
      const double mid = 0.5 * (lo + hi);
      (log_phi_low(mid) < log_phi_high(mid) ? lo : hi) = mid;
    }
    return lo;
  }();
  return x;
}

// Applies f_minus / f_plus to every channel, most significant index bit first: after level l
// (l = 0 .. m-1) the 2^(l+1) values are those of the channels whose top l+1 bits are the index.
template <class Minus, class Plus>
std::vector<double> polarize(std::uint32_t N, double start, Minus f_minus, Plus f_plus) {
  std::vector<double> value{start};
  while (value.size() < N) {
    std::vector<double> next(value.size() * 2);
    for (std::size_t i = 0; i < value.size(); ++i) {
      next[2 * i] = f_minus(value[i]);     // next bit 0: W-
      next[2 * i + 1] = f_plus(value[i]);  // next bit 1: W+
    }
    value.swap(next);
  }
  return value;
}

void require_power_of_two(std::uint32_t N) {
  require(N >= 2 && (N & (N - 1)) == 0 && N <= (1u << 20),
          "N must be a power of two in [2, 2^20] (N = ", N, ")");
}

}  // namespace

std::vector<std::uint32_t> nr5g_sequence_for(std::uint32_t N) {
  require_power_of_two(N);
  require(N <= 1024,
          "the 5G reliability sequence (TS 38.212 Table 5.3.1.2-1) covers N <= 1024 (N = ", N,
          "); use ga:SNR or bhatt:SNR for longer codes");
  std::vector<std::uint32_t> out;
  out.reserve(N);
  for (std::uint16_t q : nr5g_reliability_sequence())
    if (q < N) out.push_back(q);
  return out;
}

double design_esn0(double design_ebn0_db, std::uint32_t N, std::uint32_t K) {
  require(std::isfinite(design_ebn0_db) && design_ebn0_db >= -100.0 && design_ebn0_db <= 100.0,
          "the design SNR must be a finite Eb/N0 in [-100, 100] dB (design SNR = ", design_ebn0_db,
          ")");
  return static_cast<double>(K) / N * std::pow(10.0, design_ebn0_db / 10.0);
}

std::vector<double> bhattacharyya_log_z(std::uint32_t N, double esn0) {
  require_power_of_two(N);
  // ln Z(W-) = ln(2Z - Z^2) = ln Z + ln(2 - Z) = ln Z + log1p(1 - Z), 1 - Z = -expm1(ln Z).
  auto minus = [](double log_z) { return log_z + std::log1p(-std::expm1(log_z)); };
  auto plus = [](double log_z) { return 2.0 * log_z; };  // Z^2
  return polarize(N, -esn0, minus, plus);                // Z(AWGN) = exp(-Es/N0)
}

double gaussian_log_phi(double x) {
  if (x < chord_end) return std::log1p(-chord_slope() * std::max(x, 0.0));
  return x <= pieces_cross() ? log_phi_low(x) : log_phi_high(x);
}

double gaussian_log_phi_inverse(double log_phi) {
  if (log_phi >= 0.0) return 0.0;
  if (log_phi >= log_phi_low(chord_end)) return -std::expm1(log_phi) / chord_slope();
  const double cross = pieces_cross();
  if (log_phi >= log_phi_low(cross)) return std::pow((0.0218 - log_phi) / 0.4527, 1.0 / 0.86);
  // ln phi_2 decreases on (x*, inf), ln phi_2(x*) > log_phi, and ln phi_2(-4 log_phi) < log_phi
  // (its other two terms are negative there): Newton inside that bracket, bisecting when a step
  // leaves it.
  double lo = cross, hi = -4.0 * log_phi, x = hi;
  for (int step = 0; step < 200; ++step) {
    const double g = log_phi_high(x) - log_phi;  // decreasing in x
    (g > 0 ? lo : hi) = x;
    double next = x - g / log_phi_high_slope(x);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::abs(next - x) <= 1e-14 * x) return next;
    x = next;
  }
  return x;
}

std::vector<double> gaussian_approximation_means(std::uint32_t N, double esn0) {
  require_power_of_two(N);
  // m(W-) = phi^-1(1 - (1 - phi)^2) = phi^-1(phi (2 - phi)): ln phi' = ln phi + ln(2 - phi), no
  // cancellation however small phi is.
  auto minus = [](double mean) {
    if (mean < chord_end) {  // 1 - phi' = (1 - phi)^2 on the chord, no rounding of 1 - tiny
      const double one_minus_phi = chord_slope() * mean;
      return one_minus_phi * one_minus_phi / chord_slope();
    }
    const double log_phi = gaussian_log_phi(mean);
    return gaussian_log_phi_inverse(log_phi + std::log(2.0 - std::exp(log_phi)));
  };
  auto plus = [](double mean) { return 2.0 * mean; };
  return polarize(N, 4.0 * esn0, minus, plus);
}

std::vector<std::uint32_t> least_reliable(std::span<const double> reliability,
                                          std::uint32_t count) {
  std::vector<std::uint32_t> order(reliability.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return reliability[a] < reliability[b];
  });
  order.resize(count);
  std::sort(order.begin(), order.end());
  return order;
}

}  // namespace gpufec::polar
