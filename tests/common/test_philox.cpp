#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "gpufec/common/philox.hpp"
#include "gpufec/common/random.hpp"
#include "gpufec/sim/awgn_chain.hpp"

namespace gpufec {
namespace {

// Known-answer vectors published with Random123 (kat_vectors, philox4x32 with 10 rounds).
struct kat {
  philox4x32_ctr ctr;
  philox4x32_key key;
  philox4x32_ctr expected;
};

TEST(Philox, KnownAnswerVectors) {
  const kat kats[] = {
      {{{0, 0, 0, 0}}, {{0, 0}}, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       {{0xffffffff, 0xffffffff}},
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       {{0xa4093822, 0x299f31d0}},
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const auto& k : kats) {
    const auto out = philox4x32_10(k.ctr, k.key);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(out.v[w], k.expected.v[w]) << "word " << w;
  }
}

TEST(Philox, StreamIsSequentialBlocks) {
  philox_stream s(0x1234567890abcdefULL, rng_channel, 42);
  for (std::uint32_t b = 0; b < 5; ++b) {
    const auto words = s.block(b);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(s.next_u32(), words.v[w]);
  }
  // Position-addressable access agrees with sequential access.
  philox_stream t(0x1234567890abcdefULL, rng_channel, 42);
  for (std::uint64_t k = 0; k < 20; ++k) EXPECT_EQ(t.next_u32(), u32_at(s, k));
}

TEST(Philox, StreamsAndFramesAreDistinct) {
  std::set<std::uint32_t> firsts;
  for (std::uint32_t stream = 1; stream <= 3; ++stream)
    for (std::uint64_t frame : {0ULL, 1ULL, 1ULL << 32})
      firsts.insert(philox_stream(7, stream, frame).next_u32());
  EXPECT_EQ(firsts.size(), 9u);
}

TEST(Philox, UniformIsOpenAndUnbiased) {
  EXPECT_GT(uniform_open01(0, 0), 0.0);
  EXPECT_LT(uniform_open01(0xffffffff, 0xffffffff), 1.0);
  philox_stream s(99, rng_source, 0);
  const int n = 200000;
  double sum = 0, sum2 = 0;
  for (int k = 0; k < n; ++k) {
    const double u = s.next_uniform();
    sum += u;
    sum2 += u * u;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // Mean of n uniforms has sd sqrt(1/12/n) ~ 6.5e-4: 5 sigma.
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 2e-3);
}

TEST(Philox, BelowIsUniformOverSmallRange) {
  philox_stream s(5, rng_source, 3);
  int hist[3] = {0, 0, 0};
  const int n = 300000;
  for (int k = 0; k < n; ++k) ++hist[s.next_below(3)];
  for (int h : hist) EXPECT_NEAR(h, n / 3.0, 5 * std::sqrt(n * (1.0 / 3) * (2.0 / 3)));
}

TEST(Philox, GaussianMoments) {
  philox_stream s(11, rng_channel, 0);
  const int n = 200000;
  double m1 = 0, m2 = 0, m4 = 0;
  for (int k = 0; k < n; ++k) {
    const double g = gaussian_at(s, k);
    m1 += g;
    m2 += g * g;
    m4 += g * g * g * g;
  }
  m1 /= n, m2 /= n, m4 /= n;
  EXPECT_NEAR(m1, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(m2, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(m4, 3.0, 5 * std::sqrt(96.0 / n));
}

// The bulk draws give exactly the positional ones, for ranges that start and end anywhere in a
// block (Gaussians, four per block; source bits, 128 per block).
TEST(Philox, BulkDrawsEqualThePositionalOnes) {
  const philox_stream s(99, rng_channel, 7);
  for (const auto& [begin, end] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {0, 1}, {0, 2}, {1, 2}, {1, 6}, {3, 1000}, {128, 257}, {5, 5}}) {
    std::vector<float> got(end - begin);
    gaussians(s, begin, end, got.data());
    for (std::uint64_t k = begin; k < end; ++k) EXPECT_EQ(got[k - begin], gaussian_at(s, k)) << k;
    std::vector<std::uint8_t> bits(end - begin);
    sim::source_bits(s, begin, end, bits.data());
    for (std::uint64_t i = begin; i < end; ++i)
      EXPECT_EQ(bits[i - begin], sim::source_bit(s, i)) << i;
  }
}

}  // namespace
}  // namespace gpufec
