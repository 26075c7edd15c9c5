#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/simd_targets_util.hpp"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/channel/bsc.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::channel {
namespace {

TEST(Awgn, SigmaFromEbN0RateAndBitsPerSymbol) {
  EXPECT_NEAR(sigma_from_ebn0(0.0), std::sqrt(0.5), 1e-15);  // Es/N0 = 1: sigma^2 = 1/2
  EXPECT_NEAR(sigma_from_ebn0(0.0, 0.5), 1.0, 1e-15);        // R = 1/2 halves Es/N0
  EXPECT_NEAR(sigma_from_ebn0(10.0), std::sqrt(0.05), 1e-15);
  EXPECT_NEAR(sigma_from_ebn0(3.0, 1.0, 2), sigma_from_esn0(3.0 + 10.0 * std::log10(2.0)), 1e-15);
  EXPECT_NEAR(esn0_from_ebn0(2.0, 0.5), 2.0 - 10.0 * std::log10(2.0), 1e-12);
}

TEST(Awgn, NoiseVarianceMatchesEbN0AndRate) {
  const double ebn0 = 1.0, rate = 0.5;
  const auto ch = bpsk_awgn::from_ebn0(ebn0, rate);
  const double expected = 1.0 / (2.0 * rate * std::pow(10.0, ebn0 / 10.0));
  const std::size_t n = 1 << 16;
  double sum = 0, sum2 = 0;
  std::vector<std::uint8_t> bits(n);
  for (std::size_t i = 0; i < n; ++i) bits[i] = i & 1;
  std::vector<float> y(n);
  for (std::uint64_t frame = 0; frame < 4; ++frame) {
    ch.transmit(7, frame, bits, y);
    for (std::size_t i = 0; i < n; ++i) {
      const double noise = y[i] - bpsk_symbol(bits[i]);
      sum += noise;
      sum2 += noise * noise;
    }
  }
  const double count = 4.0 * n, mean = sum / count, var = sum2 / count - mean * mean;
  // The sample variance of 2^18 normals has relative deviation sqrt(2 / n) ~ 0.28%; allow 1.5%.
  EXPECT_NEAR(var / expected, 1.0, 0.015);
  EXPECT_NEAR(mean, 0.0, 5.0 * std::sqrt(expected / count));
}

TEST(Awgn, ReceivedSampleIsAddressableByPosition) {
  const auto ch = bpsk_awgn::from_ebn0(2.0);
  std::vector<std::uint8_t> bits = {0, 1, 1, 0, 1};
  std::vector<float> y(bits.size());
  ch.transmit(11, 3, bits, y);
  for (std::size_t i = 0; i < bits.size(); ++i)
    EXPECT_EQ(y[i], static_cast<float>(awgn_received(11, 3, i, bits[i], ch.sigma())));
  EXPECT_NE(awgn_received(11, 3, 0, 0, 0.5), awgn_received(11, 4, 0, 0, 0.5));  // frames differ
}

// The chain's bulk channel stage (awgn_llrs) gives the scalar formulas' values, bit for bit, on
// every SIMD target, for every kind of decoder input, ranges starting on either parity and
// spanning chunks, and noise from negligible to overwhelming (int8 saturating at sigma = 0.05).
TEST(Awgn, BulkLlrsAreTheScalarFormulasOnEveryTarget) {
  const std::uint64_t seed = 77, frame = 9;
  std::mt19937 rng(5);
  std::vector<std::uint8_t> bits(5000);
  for (auto& b : bits) b = rng() & 1;
  for (const std::int64_t target : gpufec::testing::simd_targets_to_test()) {
    SCOPED_TRACE(gpufec::testing::simd_target_name(target));
    const gpufec::testing::simd_target_override only(target);
    for (const double sigma : {0.05, 0.7, 1.3, 40.0})
      for (const llr_kind kind : {llr_kind::f32, llr_kind::i8, llr_kind::hard})
        for (const auto& [begin, end] : std::vector<std::pair<std::size_t, std::size_t>>{
                 {0, 1}, {1, 1030}, {5, 5000}, {4096, 4097}}) {
          SCOPED_TRACE(std::string(name_of(kind)) + ", sigma " + std::to_string(sigma));
          std::vector<float> f32(end - begin);
          std::vector<std::uint8_t> bytes(end - begin);
          void* out = kind == llr_kind::f32 ? static_cast<void*>(f32.data()) : bytes.data();
          awgn_llrs(seed, frame, begin, end, bits.data() + begin, sigma, kind, out);
          const double scale = int8_llr_scale(sigma);
          for (std::size_t j = begin; j < end; ++j) {
            const double llr =
                llr_from_sample(awgn_received(seed, frame, j, bits[j], sigma), sigma);
            if (kind == llr_kind::f32)
              ASSERT_EQ(std::bit_cast<std::uint32_t>(f32[j - begin]),
                        std::bit_cast<std::uint32_t>(static_cast<float>(llr)))
                  << j;
            else if (kind == llr_kind::i8)
              ASSERT_EQ(static_cast<std::int8_t>(bytes[j - begin]), llr_to_int8(llr, scale)) << j;
            else
              ASSERT_EQ(bytes[j - begin], hard_decision(static_cast<float>(llr))) << j;
          }
        }
  }
}

TEST(Awgn, LlrSignAndScale) {
  const bpsk_awgn ch(0.5);
  const std::vector<float> y = {1.0f, -1.0f, 0.25f, 0.0f};
  std::vector<float> llr(y.size());
  ch.llr(y, llr);
  EXPECT_FLOAT_EQ(llr[0], 8.0f);  // 2 y / sigma^2: positive means bit 0
  EXPECT_FLOAT_EQ(llr[1], -8.0f);
  EXPECT_FLOAT_EQ(llr[2], 2.0f);
  EXPECT_EQ(hard_decision(llr[0]), 0);
  EXPECT_EQ(hard_decision(llr[1]), 1);
  EXPECT_EQ(hard_decision(llr[3]), 0);
}

TEST(Awgn, Int8LlrsSaturateSymmetrically) {
  EXPECT_EQ(llr_to_int8(1e9, 1.0), 127);
  EXPECT_EQ(llr_to_int8(-1e9, 1.0), -127);  // never -128
  EXPECT_EQ(llr_to_int8(2.4, 10.0), 24);
  EXPECT_EQ(llr_to_int8(-2.46, 10.0), -25);
  EXPECT_EQ(llr_to_int8(0.0, 10.0), 0);
  const double sigma = 0.8, scale = int8_llr_scale(sigma);
  EXPECT_EQ(llr_to_int8(llr_from_sample(1.0 + 3.0 * sigma, sigma), scale), 127);
  EXPECT_EQ(llr_to_int8(llr_from_sample(-(1.0 + 3.0 * sigma), sigma), scale), -127);
  EXPECT_EQ(llr_to_int8(llr_from_sample(1.0 + 9.0 * sigma, sigma), scale), 127);
  const bpsk_awgn ch(sigma);
  const std::vector<float> y = {1.0f, -50.0f};
  std::vector<std::int8_t> q(2);
  ch.llr_int8(y, q, scale);
  EXPECT_EQ(q[0], static_cast<std::int8_t>(std::nearbyint(127.0 / (1.0 + 3.0 * sigma))));
  EXPECT_EQ(q[1], -127);
}

TEST(Awgn, RejectsBadParametersNamingTheValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(bpsk_awgn{-1.0}, invalid_argument);
  EXPECT_THROW(bpsk_awgn{0.0}, invalid_argument);
  EXPECT_THROW(bpsk_awgn{nan}, invalid_argument);
  EXPECT_THROW(sigma_from_ebn0(nan), invalid_argument);
  EXPECT_THROW(sigma_from_ebn0(1.0, 0.0), invalid_argument);
  EXPECT_THROW(sigma_from_ebn0(1.0, 1.5), invalid_argument);
  try {
    bpsk_awgn bad(-2.5);
    FAIL() << "no exception";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("-2.5"), std::string::npos) << e.what();
  }
}

TEST(Bsc, FlipRateWithinStatisticalTolerance) {
  const double p = 0.1;
  const bsc ch(p);
  const std::size_t n = 1 << 18;
  std::vector<std::uint8_t> in(n, 0), out(n);
  in[5] = 1;
  ch.transmit(3, 9, in, out);
  std::size_t flips = 0;
  for (std::size_t i = 0; i < n; ++i) flips += (in[i] != out[i]);
  const double sd = std::sqrt(n * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(flips), n * p, 5.0 * sd);
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ((in[i] ^ out[i]) != 0, bsc_flips(3, 9, i, p));
}

TEST(Bsc, ExtremeProbabilities) {
  std::vector<std::uint8_t> in(1000, 1), out(1000);
  bsc(0.0).transmit(1, 1, in, out);
  EXPECT_EQ(out, in);
  bsc(1.0).transmit(1, 1, in, out);
  EXPECT_EQ(std::accumulate(out.begin(), out.end(), 0), 0);
}

TEST(Bsc, RejectsProbabilitiesOutsideUnitInterval) {
  EXPECT_THROW(bsc{-0.1}, invalid_argument);
  EXPECT_THROW(bsc{1.5}, invalid_argument);
  EXPECT_THROW(bsc{std::numeric_limits<double>::quiet_NaN()}, invalid_argument);
  try {
    bsc bad(1.25);
    FAIL() << "no exception";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1.25"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpufec::channel
