// polar_code and its constructions: the 5G table against TS 38.212, Bhattacharyya by hand, the
// Gaussian approximation against an independent density evolution with the exact phi, numerics at
// extreme design SNRs, the frozen-set file and every validation message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "gpufec/common/error.hpp"
#include "gpufec/polar/construction.hpp"
#include "gpufec/polar/polar_code.hpp"

namespace gpufec::polar {
namespace {

TEST(PolarConstruction, NrSequenceSpotChecksAgainstTs38212) {
  // TS 38.212 Table 5.3.1.2-1, read from the table as (reliability index i, Q_i): the first
  // column starts 0,1,2,4,8,16,32,3,5,64,9,6,17,10,18,128 (Q_0..Q_15), the last column ends with
  // Q_1016..Q_1023 = 991, 1020, 1007, 1015, 1019, 1021, 1022, 1023.
  const auto q = nr5g_reliability_sequence();
  ASSERT_EQ(q.size(), 1024u);
  const std::pair<int, int> spots[] = {{0, 0},      {1, 1},       {7, 3},       {15, 128},
                                       {20, 256},   {27, 512},    {100, 140},   {500, 421},
                                       {511, 190},  {512, 364},   {700, 670},   {1000, 1012},
                                       {1016, 991}, {1017, 1020}, {1022, 1022}, {1023, 1023}};
  for (auto [i, value] : spots) EXPECT_EQ(q[i], value) << "Q_" << i;
  std::vector<std::uint16_t> sorted(q.begin(), q.end());
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(sorted[i], i) << "not a permutation of 0..1023";
}

TEST(PolarConstruction, NrFrozenSetN1024K512IsTheTablesFirstHalf) {
  const polar_code code(1024, 512);
  const auto q = nr5g_reliability_sequence();
  for (int i = 0; i < 1024; ++i)
    EXPECT_EQ(code.frozen_mask()[q[i]], i < 512 ? 1 : 0) << "Q_" << i << " = " << q[i];
  // From the table: Q_511 = 190 is the most reliable frozen index, Q_512 = 364 the least reliable
  // information index; 127 (Q_640-ish, all 7 low bits set) is the smallest information index.
  EXPECT_TRUE(code.frozen_mask()[190]);
  EXPECT_FALSE(code.frozen_mask()[364]);
  EXPECT_EQ(code.info_positions().front(), 127u);
  EXPECT_EQ(code.frozen_positions().back(), 896u);
  EXPECT_EQ(code.info_positions().size(), 512u);
}

TEST(PolarConstruction, NrShorterCodesTakeTheEntriesBelowN) {
  // TS 38.212 5.3.1.2: Q_0^(N-1) keeps the order of the entries < N. N = 8: 0,1,2,4,3,5,6,7.
  EXPECT_EQ(nr5g_sequence_for(8), (std::vector<std::uint32_t>{0, 1, 2, 4, 3, 5, 6, 7}));
  const polar_code code(8, 4);
  EXPECT_EQ(code.info_positions(), (std::vector<std::uint32_t>{3, 5, 6, 7}));
}

TEST(PolarConstruction, BhattacharyyaByHandForN4) {
  // Z = exp(-Es/N0); channel j walks its bits from the top: j = 1 = (0,1) is (W-)+ and j = 2 =
  // (1,0) is (W+)-: Z_0 = 1-(1-(2Z-Z^2))... written out: Z- = 2Z - Z^2, Z+ = Z^2.
  const double esn0 = 0.5, z = std::exp(-esn0);
  auto minus = [](double v) { return 2 * v - v * v; };
  const double expected[4] = {minus(minus(z)), minus(z) * minus(z), minus(z * z), z * z * z * z};
  const auto log_z = bhattacharyya_log_z(4, esn0);
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(log_z[j], std::log(expected[j]), 1e-12) << j;
  // u_2 is more reliable than u_1 in natural order (the 5G sequence agrees: 0,1,2,3 for N = 4).
  EXPECT_LT(log_z[2], log_z[1]);
}

// phi(x) = E[2 / (1 + e^L)], L ~ N(x, 2x), by Simpson's rule over mean -+ 12 deviations and the
// far tail near -x where 2 / (1 + e^L) is largest: the exact function the approximation fits.
double exact_phi(double x) {
  if (x <= 0) return 1.0;
  const double s = std::sqrt(2 * x), lo = -x - 12 * s, hi = x + 12 * s;
  const int n = 2000;
  const double h = (hi - lo) / n;
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double u = lo + i * h;
    const double w = 2.0 / (1.0 + std::exp(std::min(u, 700.0))) *
                     std::exp(-(u - x) * (u - x) / (4 * x)) / std::sqrt(4 * M_PI * x);
    sum += w * (i == 0 || i == n ? 1 : i % 2 ? 4 : 2);
  }
  return sum * h / 3;
}

TEST(PolarConstruction, GaussianApproximationMatchesExactDensityEvolution) {
  // Independent computation: the same recursion with the exact phi (numerical integration above)
  // and its inverse by bisection. The approximate phi is accurate to a few percent, so the
  // information sets agree wherever no two channels are that close: checked here for
  // N = 32 (K = 8, 16, 24) at design Eb/N0 of 0, 1, 2 and 3 dB.
  const std::uint32_t N = 32;
  for (double snr : {0.0, 1.0, 2.0, 3.0}) {
    for (std::uint32_t K : {8u, 16u, 24u}) {
      const double esn0 = design_esn0(snr, N, K);
      std::vector<double> mean{4 * esn0};
      while (mean.size() < N) {
        std::vector<double> next;
        for (double m : mean) {
          const double p = exact_phi(m), target = p * (2 - p);
          double lo = 0, hi = m;
          for (int i = 0; i < 45; ++i)
            (exact_phi(0.5 * (lo + hi)) > target ? lo : hi) = 0.5 * (lo + hi);
          next.push_back(0.5 * (lo + hi));
          next.push_back(2 * m);
        }
        mean.swap(next);
      }
      const polar_code code(N, K, construction_spec::parse("ga:" + std::to_string(snr)));
      EXPECT_EQ(code.frozen_positions(), least_reliable(mean, N - K))
          << "snr " << snr << " K " << K;
    }
  }
}

TEST(PolarConstruction, GaussianApproximationIsFiniteAndOrderedAtExtremeSnr) {
  for (double snr : {-100.0, -20.0, 0.0, 20.0, 60.0, 100.0}) {
    const auto m = gaussian_approximation_means(1u << 12, design_esn0(snr, 4096, 2048));
    for (double v : m) ASSERT_TRUE(std::isfinite(v) && v >= 0) << "snr " << snr << " mean " << v;
    // Channel N-1 (all W+) is the best and channel 0 (all W-) the worst at every SNR.
    EXPECT_EQ(*std::max_element(m.begin(), m.end()), m.back()) << snr;
    EXPECT_EQ(*std::min_element(m.begin(), m.end()), m.front()) << snr;
    const auto z = bhattacharyya_log_z(4096, design_esn0(snr, 4096, 2048));
    for (double v : z) ASSERT_TRUE(std::isfinite(v) && v <= 0) << "snr " << snr << " ln Z " << v;
  }
  // phi is strictly decreasing from phi(0) = 1 (no piece exceeds 1, no upward jump between the
  // pieces), and the inverse undoes it on every piece, deep in the tail where phi underflows too.
  EXPECT_EQ(gaussian_log_phi(0.0), 0.0);
  double previous = gaussian_log_phi(0.0);
  for (double x = 0.001; x < 100; x *= 1.01) {
    ASSERT_LT(gaussian_log_phi(x), previous) << x;
    previous = gaussian_log_phi(x);
  }
  for (double x : {1e-30, 0.05, 0.2, 1.0, 9.99, 14.3, 14.5, 50.0, 1e4, 1e12})
    EXPECT_NEAR(gaussian_log_phi_inverse(gaussian_log_phi(x)) / x, 1.0, 1e-9) << x;
}

TEST(PolarCode, ValidationNamesTheField) {
  auto message = [](auto&& make) {
    try {
      make();
    } catch (const error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { polar_code(1000, 500); }).find("N = 1000"), std::string::npos);
  EXPECT_NE(message([] { polar_code(1024, 0); }).find("K = 0"), std::string::npos);
  EXPECT_NE(message([] { polar_code(1024, 1025); }).find("K = 1025"), std::string::npos);
  EXPECT_NE(message([] { polar_code(2048, 1024); }).find("N <= 1024"), std::string::npos);
  EXPECT_NE(message([] {
              polar_code(64, 32, construction_spec{construction::gaussian_approximation, NAN, ""});
            }).find("design SNR"),
            std::string::npos);
  EXPECT_NE(
      message([] { polar_code(64, 32, construction_spec::parse("ga:inf")); }).find("design SNR"),
      std::string::npos);
  EXPECT_NE(message([] { construction_spec::parse("ga:abc"); }).find("not a number"),
            std::string::npos);
  const std::uint32_t dup[] = {0, 1, 1, 2};
  EXPECT_NE(
      message([&] { polar_code::from_indices(8, dup, index_set::frozen); }).find("repeats index 1"),
      std::string::npos);
  const std::uint32_t out[] = {0, 9};
  EXPECT_NE(
      message([&] { polar_code::from_indices(8, out, index_set::info); }).find("is 9, outside"),
      std::string::npos);
}

TEST(PolarCode, FrozenSetFileRoundTripAndErrors) {
  const polar_code code(256, 100, construction_spec::parse("ga:1.5"));
  std::ostringstream text;
  code.write_frozen_set(text);
  const auto mask = parse_index_file(text.str(), 256, 100, "written");
  EXPECT_EQ(mask, code.frozen_mask());
  // An info-set file of the same code.
  std::string info = "# info set\ninfo\n";
  for (auto j : code.info_positions()) info += std::to_string(j) + ", ";
  EXPECT_EQ(parse_index_file(info, 256, 100, "info"), code.frozen_mask());
  auto file_error = [](const std::string& t, std::uint32_t K) {
    try {
      parse_index_file(t, 8, K, "f.txt");
    } catch (const format_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(file_error("0 1 2 2", 4).find("repeats index 2"), std::string::npos);
  EXPECT_NE(file_error("0 1 2 8", 4).find("is 8, outside [0, N)"), std::string::npos);
  EXPECT_NE(file_error("0 1 2", 4).find("expected 4 frozen indices (N - K), found 3"),
            std::string::npos);
  EXPECT_NE(file_error("info 3 5 6 7 1", 4).find("expected 4 info indices (K), found 5"),
            std::string::npos);
  EXPECT_NE(file_error("0 1 x 3", 4).find("line 1: 'x' is not an index"), std::string::npos);
  EXPECT_NE(file_error("0 1 -2 3", 4).find("'-2' is not an index"), std::string::npos);
  EXPECT_THROW(polar_code(8, 4, construction_spec::parse("/no/such/frozen/file")), format_error);
}

TEST(PolarCode, SystematicNeedsAnInvolutoryInformationSet) {
  EXPECT_NO_THROW(polar_code(1024, 512, {}, encoding::systematic));
  EXPECT_NO_THROW(polar_code(4096, 1000, construction_spec::parse("ga:2"), encoding::systematic));
  // Row i of G_N has ones at the j whose bits are a subset of i's. A = {1, 3, 7} of N = 8 gives
  // G_AA = [[1,0,0],[1,1,0],[1,1,1]], whose square has third row [1,0,1]: not an involution (and
  // A is not closed: 7 dominates 5 dominates 1, 5 is not in A).
  const std::uint32_t bad[] = {1, 3, 7};
  EXPECT_THROW(polar_code::from_indices(8, bad, index_set::info, encoding::systematic),
               invalid_argument);
}

}  // namespace
}  // namespace gpufec::polar
