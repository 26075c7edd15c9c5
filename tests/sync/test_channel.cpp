// The BSID channel simulator.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "gpufec/common/error.hpp"
#include "gpufec/common/philox.hpp"
#include "gpufec/sync/bsid_channel.hpp"
#include "gpufec/sync/drift.hpp"
#include "sync/test_util.hpp"

using gpufec::philox_stream;
using gpufec::rng_channel;
using gpufec::rng_source;
using gpufec::sync::bsid_params;
using gpufec::sync::bsid_transmit;

namespace {

using gpufec::sync::testing::params;

std::vector<std::uint8_t> random_bits(std::size_t n, std::uint64_t seed) {
  philox_stream s(seed, rng_source, 0);
  std::vector<std::uint8_t> x(n);
  for (auto& b : x) b = static_cast<std::uint8_t>(s.next_bit());
  return x;
}

}  // namespace

TEST(SyncChannel, ValidateRejectsBadParameters) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& p : {params(-0.1, 0), params(0, -1e-9), params(0, 0, -0.5), params(1.5, 0),
                        params(0, 1.1), params(0, 0, 1.01), params(0.5, 0.5), params(0.7, 0.4),
                        params(nan, 0), params(0, nan), params(0, 0, nan)}) {
    EXPECT_THROW(p.validate(), gpufec::invalid_argument) << p.Pi << " " << p.Pd << " " << p.Ps;
  }
  auto q = params(0.1, 0.1);
  q.alphabet = 4;
  EXPECT_THROW(q.validate(), gpufec::invalid_argument);
  EXPECT_NO_THROW(params(0, 0, 1).validate());
  EXPECT_NO_THROW(params(0.3, 0.6, 0.5).validate());
  try {
    params(0.1, 1.5).validate();
    FAIL();
  } catch (const gpufec::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Pd = 1.5"), std::string::npos) << e.what();
  }
  try {
    params(0.6, 0.4).validate();
    FAIL();
  } catch (const gpufec::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Pi + Pd"), std::string::npos) << e.what();
  }
}

TEST(SyncChannel, NoiselessChannelIsIdentity) {
  const auto x = random_bits(1000, 7);
  philox_stream rng(1, rng_channel, 0);
  std::vector<std::int32_t> drift;
  const auto y = bsid_transmit(params(0, 0, 0), x, rng, &drift, 10);
  EXPECT_EQ(y, x);
  ASSERT_EQ(drift.size(), 101u);
  for (auto d : drift) EXPECT_EQ(d, 0);
  // Empty frame.
  std::vector<std::int32_t> d0;
  EXPECT_TRUE(bsid_transmit(params(0.1, 0.1), {}, rng, &d0).empty());
  ASSERT_EQ(d0.size(), 1u);
  EXPECT_EQ(d0[0], 0);
}

TEST(SyncChannel, DeterministicAndHostMatchesDeviceCapableFunction) {
  const auto x = random_bits(5000, 3);
  // Pi = 0.5 doubles the length: the host overload must grow its buffer and replay identically.
  for (const auto& p : {params(0.01, 0.02, 0.03), params(0.5, 0.1, 0.1)}) {
    philox_stream a(42, rng_channel, 9), b(42, rng_channel, 9), c(42, rng_channel, 9);
    std::vector<std::int32_t> da, db;
    const auto ya = bsid_transmit(p, x, a, &da, 7);
    const auto yb = bsid_transmit(p, x, b, &db, 7);
    EXPECT_EQ(ya, yb);
    EXPECT_EQ(da, db);
    std::vector<std::uint8_t> yc(4 * x.size());
    std::vector<std::int32_t> dc(x.size() / 7 + 1);
    const auto rho = bsid_transmit(p, x.data(), x.size(), c, yc.data(), yc.size(), dc.data(), 7);
    ASSERT_EQ(rho, ya.size());
    yc.resize(rho);
    EXPECT_EQ(yc, ya);
    EXPECT_EQ(dc, da);
    // The stream is left where the device-capable function leaves it.
    EXPECT_EQ(a.next_u32(), c.next_u32());
    // A different frame gives a different output.
    philox_stream other(42, rng_channel, 10);
    EXPECT_NE(bsid_transmit(p, x, other), ya);
  }
}

TEST(SyncChannel, CapacityOverflowReportsTrueLength) {
  const auto x = random_bits(200, 5);
  const auto p = params(0.4, 0.0);
  philox_stream a(8, rng_channel, 0), b(8, rng_channel, 0);
  std::vector<std::uint8_t> small(50);
  const auto rho = bsid_transmit(p, x.data(), x.size(), a, small.data(), small.size());
  const auto full = bsid_transmit(p, x, b);
  EXPECT_EQ(rho, full.size());
  EXPECT_GT(rho, 50u);
  EXPECT_TRUE(std::equal(small.begin(), small.end(), full.begin()));
}

TEST(SyncChannel, DriftReporting) {
  const auto x = random_bits(3000, 11);
  for (const auto& p : {params(0.05, 0.03, 0.01), params(0.1, 0.0), params(0.0, 0.1)}) {
    for (std::size_t stride : {1u, 10u, 7u}) {
      philox_stream rng(5, rng_channel, stride);
      std::vector<std::int32_t> drift;
      const auto y = bsid_transmit(p, x, rng, &drift, stride);
      ASSERT_EQ(drift.size(), x.size() / stride + 1);
      EXPECT_EQ(drift[0], 0);
      if (x.size() % stride == 0) {
        EXPECT_EQ(drift.back(), static_cast<long>(y.size()) - static_cast<long>(x.size()));
      }
      for (std::size_t k = 1; k < drift.size(); ++k) {
        if (p.Pd == 0) {
          EXPECT_GE(drift[k], drift[k - 1]);
        }
        if (p.Pi == 0) {
          EXPECT_LE(drift[k], drift[k - 1]);
        }
        // The drift changes by at least -stride per stride symbols.
        EXPECT_GE(drift[k] - drift[k - 1], -static_cast<long>(stride));
      }
    }
  }
}

TEST(SyncChannel, SubstitutionOnlyFlipsAboutPs) {
  const std::size_t n = 200000;
  const auto x = random_bits(n, 13);
  const double Ps = 0.05;
  philox_stream rng(77, rng_channel, 0);
  std::vector<std::int32_t> drift;
  const auto y = bsid_transmit(params(0, 0, Ps), x, rng, &drift, 100);
  ASSERT_EQ(y.size(), n);
  for (auto d : drift) EXPECT_EQ(d, 0);
  std::size_t flips = 0;
  for (std::size_t i = 0; i < n; ++i) flips += x[i] != y[i];
  const double sd = std::sqrt(n * Ps * (1 - Ps));
  EXPECT_NEAR(static_cast<double>(flips), n * Ps, 5 * sd);
}

// Per input symbol the output count is K + B: K ~ Geometric (P(K = k) = Pi^k (1 - Pi)), mean
// Pi/(1-Pi), variance Pi/(1-Pi)^2, and B ~ Bernoulli(b), b = Pt/(1-Pi), independent of K. So
// E[rho] = tau (1 - Pd)/(1 - Pi) and Var[rho] = tau (Pi/(1-Pi)^2 + b(1-b)).
TEST(SyncChannel, ReceivedLengthStatistics) {
  const std::size_t tau = 1000;
  const int frames = 2000;
  const auto x = random_bits(tau, 17);
  for (const auto& p : {params(0.01, 0.01), params(0.05, 0.02, 0.1), params(0.2, 0.0),
                        params(0.0, 0.15), params(0.3, 0.3)}) {
    const double b = p.Pt() / (1 - p.Pi);
    const double mean = tau * (1 - p.Pd) / (1 - p.Pi);
    const double var = tau * (p.Pi / ((1 - p.Pi) * (1 - p.Pi)) + b * (1 - b));
    double s = 0, s2 = 0;
    for (int f = 0; f < frames; ++f) {
      philox_stream rng(2024, rng_channel, static_cast<std::uint64_t>(f));
      const double rho = static_cast<double>(bsid_transmit(p, x, rng).size());
      s += rho;
      s2 += rho * rho;
    }
    const double m = s / frames, v = s2 / frames - m * m;
    EXPECT_NEAR(m, mean, 5 * std::sqrt(var / frames)) << "Pi=" << p.Pi << " Pd=" << p.Pd;
    // Sample variance: relative standard error about sqrt(2/frames) ~ 3%.
    EXPECT_NEAR(v / var, 1.0, 0.15) << "Pi=" << p.Pi << " Pd=" << p.Pd;
  }
}

// The simulated final drift follows the exact drift pmf (a chi-square-like check on the central
// cells, each within 5 standard deviations).
TEST(SyncChannel, FinalDriftFollowsThePmf) {
  const std::size_t tau = 200;
  const int frames = 20000;
  const auto p = params(0.05, 0.05, 0.02);
  const auto x = random_bits(tau, 19);
  std::vector<int> count(81, 0);
  for (int f = 0; f < frames; ++f) {
    philox_stream rng(99, rng_channel, static_cast<std::uint64_t>(f));
    const long d = static_cast<long>(bsid_transmit(p, x, rng).size()) - static_cast<long>(tau);
    if (d >= -40 && d <= 40) ++count[static_cast<std::size_t>(d + 40)];
  }
  const auto pmf = gpufec::sync::drift_pmf(p, tau, -40, 40);
  for (std::size_t k = 0; k < pmf.size(); ++k) {
    const double e = frames * pmf[k];
    if (e < 20) continue;
    EXPECT_NEAR(count[k], e, 5 * std::sqrt(e)) << "drift " << static_cast<long>(k) - 40;
  }
}

TEST(SyncChannel, RejectsBadInput) {
  philox_stream rng(1, rng_channel, 0);
  EXPECT_THROW(bsid_transmit(params(0.1, 0.1), {0, 1, 2}, rng), gpufec::invalid_argument);
  EXPECT_THROW(bsid_transmit(params(0.6, 0.6), {0, 1}, rng), gpufec::invalid_argument);
  std::vector<std::int32_t> d;
  EXPECT_THROW(bsid_transmit(params(0.1, 0.1), {0, 1}, rng, &d, 0), gpufec::invalid_argument);
}

// Heavy insertion tails: some frames exceed any first guess of the received length, so the host
// overload's replay path runs; it must still match the device-capable function exactly.
TEST(SyncChannel, GrowingBufferReplaysIdentically) {
  const std::vector<std::uint8_t> x = {1, 0, 1, 1};
  const auto p = params(0.95, 0.0, 0.1);
  std::size_t longest = 0;
  for (std::uint64_t f = 0; f < 3000; ++f) {
    philox_stream a(5, rng_channel, f), b(5, rng_channel, f);
    std::vector<std::int32_t> da;
    const auto ya = bsid_transmit(p, x, a, &da, 2);
    std::vector<std::uint8_t> yb(2000);
    std::vector<std::int32_t> db(3);
    const auto rho = bsid_transmit(p, x.data(), x.size(), b, yb.data(), yb.size(), db.data(), 2);
    ASSERT_LE(rho, yb.size());
    yb.resize(rho);
    ASSERT_EQ(ya, yb) << "frame " << f;
    ASSERT_EQ(da, db) << "frame " << f;
    ASSERT_EQ(a.next_u32(), b.next_u32());
    longest = std::max(longest, rho);
  }
  // Mean 76, standard deviation 39; the overload's first guess is mean + 8 sqrt(mean) + 16 = 162
  // symbols, which the longest of 3000 frames exceeds (so the replay ran).
  EXPECT_GT(longest, 170u);
}
