// The Gaussians of the AWGN channel (box_muller.hpp, random_simd.cpp): the bulk draws equal the
// positional ones bit for bit on every SIMD target this CPU has; the transform in correctly
// rounded steps stays within a few ulps of the exact one (long double libm as the judge), at the
// edges of its domain too; and the draws are standard normal by a chi-square test of fit.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "common/simd_targets_util.hpp"
#include "gpufec/common/box_muller.hpp"
#include "gpufec/common/random.hpp"
#include "gpufec/sim/stats.hpp"

namespace gpufec {
namespace {

using testing::simd_target_name;
using testing::simd_target_override;
using testing::simd_targets_to_test;

// Bulk draws over ranges that start and end on either parity, short and long, on every target:
// the same bits as gaussian_at (compared as bits, so -0.0 against 0.0 would fail too).
TEST(Gaussians, EveryTargetDrawsThePositionalValuesBitForBit) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges = {
      {0, 1}, {1, 2}, {0, 2}, {1, 6}, {3, 1000}, {128, 257}, {5, 5}, {7, 70007}};
  for (const std::int64_t target : simd_targets_to_test()) {
    SCOPED_TRACE(simd_target_name(target));
    const simd_target_override only(target);
    for (const std::uint64_t frame : {0ull, 7ull, 0x123456789ull}) {
      const philox_stream s(0xfeedface12345ull, rng_channel, frame);
      for (const auto& [begin, end] : ranges) {
        std::vector<float> got(end - begin);
        gaussians(s, begin, end, got.data());
        for (std::uint64_t k = begin; k < end; ++k)
          ASSERT_EQ(std::bit_cast<std::uint32_t>(got[k - begin]),
                    std::bit_cast<std::uint32_t>(gaussian_at(s, k)))
              << "frame " << frame << ", k " << k;
      }
    }
  }
}

// Blocks past 2^32 - 1 wrap as the scalar block index does (a frame's last pairs).
TEST(Gaussians, TheLastBlocksOfAStreamToo) {
  const philox_stream s(3, rng_channel, 1);
  const std::uint64_t end = std::uint64_t{1} << 33, begin = end - 101;
  std::vector<float> got(end - begin);
  gaussians(s, begin, end, got.data());
  for (std::uint64_t k = begin; k < end; ++k) ASSERT_EQ(got[k - begin], gaussian_at(s, k)) << k;
}

// The exact transform in long double of the same float uniforms, and the error of (g0, g1)
// against it in units of r 2^-23 (a float ulp of the radius: the components' absolute error
// scales with it).
double error_in_radius_ulps(float u1, float u2) {
  float g0, g1;
  detail::box_muller(detail::scalar_box_muller_ops{}, u1, u2, g0, g1);
  const long double r = std::sqrt(-2.0L * std::log(static_cast<long double>(u1)));
  const long double theta = 2.0L * 3.14159265358979323846264338327950288L * u2;
  const long double e0 = std::fabs(g0 - r * std::cos(theta));
  const long double e1 = std::fabs(g1 - r * std::sin(theta));
  return static_cast<double>(std::max(e0, e1) / (r * 0x1p-23L));
}

TEST(Gaussians, WithinAFewUlpsOfTheExactTransform) {
  std::vector<float> u1s = {0x1p-53f,       0x1.8p-53f,     1e-10f,       0.25f,        0.5f,
                            0x1.6a09e6p-1f, 0x1.6a09e4p-1f, 1 - 0x1p-24f, 1 - 0x1p-23f, 0.999f};
  std::vector<float> u2s = {0x1p-53f, 0.5f - 0x1p-25f, 0.5f, 1 - 0x1p-24f, 0.3f, 1.0f};
  for (int k = 1; k < 8; ++k) {  // the octant boundaries, and a float either side
    u2s.push_back(k / 8.0f);
    u2s.push_back(std::nextafter(k / 8.0f, 0.0f));
    u2s.push_back(std::nextafter(k / 8.0f, 1.0f));
  }
  double worst = 0;
  for (const float u1 : u1s)
    for (const float u2 : u2s) worst = std::max(worst, error_in_radius_ulps(u1, u2));
  std::mt19937_64 rng(2024);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t a = rng(), b = rng();
    worst = std::max(
        worst, error_in_radius_ulps(static_cast<float>(uniform_open01(a >> 32, a & 0xffffffffu)),
                                    static_cast<float>(uniform_open01(b >> 32, b & 0xffffffffu))));
  }
  EXPECT_LT(worst, 4.0);
  // ln u1 alone, relative (near u1 = 1 it is tiny, and must stay accurate).
  for (const float u1 : {0x1p-53f, 0.3f, 0.5f, 0.9f, 1 - 0x1p-20f, 1 - 0x1p-24f}) {
    const long double exact = std::log(static_cast<long double>(u1));
    const float got = detail::exact_steps_log(detail::scalar_box_muller_ops{}, u1);
    EXPECT_LT(std::fabs((got - exact) / exact), 4 * 0x1p-24L) << u1;
  }
  // u1 = 1 (a uniform within 2^-25 of 1, rounded) is a zero radius, not a NaN.
  float g0 = 1, g1 = 1;
  detail::box_muller(detail::scalar_box_muller_ops{}, 1.0f, 0.3f, g0, g1);
  EXPECT_EQ(g0, 0.0f);
  EXPECT_EQ(g1, 0.0f);
}

// Pearson's chi-square over 40 cells of equal probability under N(0, 1), 10^6 draws: the
// statistic has 39 degrees of freedom (mean 39, deviation 8.8); 90 lies beyond p = 1e-5. The tails
// beyond 4 sigma, where a faulty transform would show first, are counted against their
// probability too.
TEST(Gaussians, AreStandardNormal) {
  const philox_stream s(42, rng_channel, 3);
  const std::size_t n = 1000000;
  std::vector<float> g(n);
  gaussians(s, 0, n, g.data());
  constexpr int cells = 40;
  std::vector<double> edges;  // the cells' upper edges, by bisection on the Gaussian Q
  for (int c = 1; c < cells; ++c) {
    double lo = -10, hi = 10;
    for (int it = 0; it < 100; ++it) {
      const double mid = (lo + hi) / 2;
      (1 - sim::gaussian_q(mid) < static_cast<double>(c) / cells ? lo : hi) = mid;
    }
    edges.push_back(lo);
  }
  std::vector<double> count(cells, 0);
  std::size_t tails = 0;
  for (const float x : g) {
    ++count[std::upper_bound(edges.begin(), edges.end(), x) - edges.begin()];
    tails += std::fabs(x) > 4;
  }
  double chi2 = 0;
  const double expected = static_cast<double>(n) / cells;
  for (const double c : count) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 90.0);
  const double tail_mean = 2 * sim::gaussian_q(4) * n;  // 63.3
  EXPECT_NEAR(static_cast<double>(tails), tail_mean, 5 * std::sqrt(tail_mean));
}

}  // namespace
}  // namespace gpufec
