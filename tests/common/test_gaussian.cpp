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

// Block indices past 2^32 - 1 wrap in the bulk draws as in the scalar index (positions past
// 2^34, four a block), across the wrap.
TEST(Gaussians, TheLastBlocksOfAStreamToo) {
  const philox_stream s(3, rng_channel, 1);
  const std::uint64_t end = (std::uint64_t{1} << 34) + 101, begin = end - 203;
  std::vector<float> got(end - begin);
  gaussians(s, begin, end, got.data());
  for (std::uint64_t k = begin; k < end; ++k)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got[k - begin]),
              std::bit_cast<std::uint32_t>(gaussian_at(s, k)))
        << k;
}

// The exact transform in long double of the uniforms that words a and b (and u1's exponent e)
// stand for, and the error of (g0, g1) against it in units of r 2^-23 (a float ulp of the radius:
// the components' absolute error scales with it).
double error_in_radius_ulps(std::uint32_t a, std::uint32_t b, float e) {
  float g0, g1;
  detail::box_muller_words(detail::scalar_box_muller_ops{}, a, b, e, g0, g1);
  const long double m = 1 + (2.0L * (b >> 10) + 1) * 0x1p-23L;
  const long double u1 = std::ldexp(m, static_cast<int>(e));
  const long double u2 = ((a >> 29) + (2.0L * ((a >> 8) & 0x1FFFFFu) + 1) * 0x1p-22L) / 8;
  const long double r = std::sqrt(-2.0L * std::log(u1));
  const long double theta = 2.0L * 3.14159265358979323846264338327950288L * u2;
  const long double e0 = std::fabs(g0 - r * std::cos(theta));
  const long double e1 = std::fabs(g1 - r * std::sin(theta));
  return static_cast<double>(std::max(e0, e1) / (r * 0x1p-23L));
}

// The error for words a and b as a block gives them (a tail draw with tail bits `t`).
double error_in_radius_ulps(std::uint32_t a, std::uint32_t b, std::uint64_t t = 0) {
  const float e = detail::is_tail_pair(a, b)
                      ? detail::tail_exponent(static_cast<std::uint32_t>(t >> 32),
                                              static_cast<std::uint32_t>(t))
                      : detail::binade_exponent(detail::scalar_box_muller_ops{}, a, b);
  return error_in_radius_ulps(a, b, e);
}

TEST(Gaussians, WithinAFewUlpsOfTheExactTransform) {
  // Every octant's first and last angle; the mantissa's ends and either side of sqrt(2) (M =
  // 0x1A827A: m = 1.41421...); u1's exponent at both ends of the binades and in the tail.
  std::vector<std::uint32_t> as, bs;
  for (std::uint32_t octant = 0; octant < 8; ++octant)
    for (const std::uint32_t F : {0u, 1u, 0x100000u, 0x1FFFFEu, 0x1FFFFFu})
      for (const std::uint32_t zhigh : {0u, 1u, 0x80u, 0xFFu})
        as.push_back(octant << 29 | F << 8 | zhigh);
  for (const std::uint32_t M : {0u, 1u, 0x1A8279u, 0x1A827Au, 0x1A827Bu, 0x3FFFFEu, 0x3FFFFFu})
    for (const std::uint32_t zlow : {0u, 1u, 0x200u, 0x3FFu}) bs.push_back(M << 10 | zlow);
  double worst = 0;
  for (const std::uint32_t a : as)
    for (const std::uint32_t b : bs)
      for (const std::uint64_t t : {0ull, 1ull, 1ull << 63, 0x123456789abcdefull})
        worst = std::max(worst, error_in_radius_ulps(a, b, t));
  std::mt19937_64 rng(2024);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t w = rng(), t = rng() >> (rng() % 64);
    worst = std::max(worst, error_in_radius_ulps(static_cast<std::uint32_t>(w >> 32),
                                                 static_cast<std::uint32_t>(w), t));
  }
  EXPECT_LT(worst, 4.0);
  // ln u1 alone, relative (near u1 = 1 it is tiny, and must stay accurate).
  for (const auto& [m, e] : std::vector<std::pair<float, float>>{{1.0f + 0x1p-23f, -83.0f},
                                                                 {1.2f, -2.0f},
                                                                 {1.0f + 0x1p-23f, -1.0f},
                                                                 {1.8f, -1.0f},
                                                                 {2.0f - 0x1p-20f, -1.0f},
                                                                 {2.0f - 0x1p-23f, -1.0f},
                                                                 {1.5f, -18.0f}}) {
    const long double exact =
        std::log(std::ldexp(static_cast<long double>(m), static_cast<int>(e)));
    const float got = detail::log_of_binade(detail::scalar_box_muller_ops{}, m, e);
    EXPECT_LT(std::fabs((got - exact) / exact), 4 * 0x1p-24L) << m << " 2^" << e;
  }
}

// u1's exponent: 2^e of the draws in each binade, a tail draw's from the tail bits (-19 less their
// leading zeros, -83 at the deepest).
TEST(Gaussians, TheRadiusKeepsItsWholeTail) {
  const detail::scalar_box_muller_ops o;
  EXPECT_EQ(detail::binade_exponent(o, 0xFFu, 0x3FFu), -1.0f);
  EXPECT_EQ(detail::binade_exponent(o, 0x80u, 0u), -1.0f);
  EXPECT_EQ(detail::binade_exponent(o, 0x7Fu, 0x3FFu), -2.0f);
  EXPECT_EQ(detail::binade_exponent(o, 0u, 1u), -18.0f);
  EXPECT_TRUE(detail::is_tail_pair(0xFFFFFF00u, 0xFFFFFC00u));
  EXPECT_FALSE(detail::is_tail_pair(0xFFFFFF00u, 0xFFFFFC01u));
  EXPECT_EQ(detail::tail_exponent(0x80000000u, 0), -19.0f);
  EXPECT_EQ(detail::tail_exponent(0, 1), -82.0f);
  EXPECT_EQ(detail::tail_exponent(0, 0), -83.0f);
  // The deepest draw's radius: sqrt(-2 ln 2^-83) = 10.73.
  float g0, g1;
  detail::box_muller_words(o, 0u, 0u, -83.0f, g0, g1);
  EXPECT_NEAR(std::hypot(g0, g1), std::sqrt(2 * 83 * std::log(2.0)), 1e-5);
  // Tail draws continue the exponential law of r^2 / 2 past 18 ln 2: r^2 / 2 - 18 ln 2 of a draw
  // with Z = 0 has mean 1 (exponential), over 10^5 random words and tail bits (deviation 1/316).
  std::mt19937_64 rng(7);
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const auto a = static_cast<std::uint32_t>(rng()) & ~0xFFu;
    const auto b = static_cast<std::uint32_t>(rng()) & ~0x3FFu;
    const std::uint64_t t = rng();
    detail::box_muller_words(
        o, a, b,
        detail::tail_exponent(static_cast<std::uint32_t>(t >> 32), static_cast<std::uint32_t>(t)),
        g0, g1);
    sum += (static_cast<double>(g0) * g0 + static_cast<double>(g1) * g1) / 2 - 18 * std::log(2.0);
  }
  EXPECT_NEAR(sum / n, 1.0, 5.0 / std::sqrt(n));
}

// A stream's tail draws: the bulk draws give the positional ones there too, on every target, and
// the tail companion's block is what they read (a changed tail block would change them).
TEST(Gaussians, TailDrawsAreTheSameInBulkOnEveryTarget) {
  const philox_stream s(0x5eed, rng_channel, 11);
  std::vector<std::uint64_t> tails;  // positions of tail draws among the first 2^23
  for (std::uint32_t block = 0; block < (1u << 21); ++block) {
    const philox4x32_ctr w = s.block(block);
    for (int h = 0; h < 2; ++h)
      if (detail::is_tail_pair(w.v[2 * h], w.v[2 * h + 1])) tails.push_back(4 * block + 2 * h);
  }
  ASSERT_GE(tails.size(), 4u);  // 16 expected
  for (const std::uint64_t k : tails) {
    const auto block = static_cast<std::uint32_t>(k >> 2);
    const int h = static_cast<int>(k >> 1) & 1;
    const philox4x32_ctr w = s.block(block), t = s.tail_block(block);
    float g0, g1;
    detail::box_muller_words(detail::scalar_box_muller_ops{}, w.v[2 * h], w.v[2 * h + 1],
                             detail::tail_exponent(t.v[2 * h], t.v[2 * h + 1]), g0, g1);
    EXPECT_EQ(gaussian_at(s, k), g0);
    EXPECT_EQ(gaussian_at(s, k + 1), g1);
  }
  for (const std::int64_t target : simd_targets_to_test()) {
    SCOPED_TRACE(simd_target_name(target));
    const simd_target_override only(target);
    for (const std::uint64_t k : tails) {
      const std::uint64_t begin = k < 32 ? 0 : k - 32;
      std::vector<float> got(k + 32 - begin);
      gaussians(s, begin, k + 32, got.data());
      for (std::uint64_t j = begin; j < k + 32; ++j)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got[j - begin]),
                  std::bit_cast<std::uint32_t>(gaussian_at(s, j)))
            << j;
      const float r = std::hypot(gaussian_at(s, k), gaussian_at(s, k + 1));
      EXPECT_GT(r, std::sqrt(36 * std::log(2.0f)) - 1e-5f) << k;  // u1 < 2^-18
    }
  }
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
