// Encoders: the worked N = 8 example of docs/polar.md, x = u G_N against the Kronecker definition,
// the seed's constant-geometry drawing, systematic encoding and the batch form.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "gpufec/common/error.hpp"
#include "gpufec/polar/encoder.hpp"
#include "polar_test_util.hpp"

namespace gpufec::polar {
namespace {

TEST(PolarEncoder, WorkedExampleN8) {
  // docs/polar.md: N = 8, K = 4, 5G set A = {3, 5, 6, 7}, information 1 0 1 1.
  const polar_code code(8, 4);
  const std::vector<std::uint8_t> info{1, 0, 1, 1};
  std::vector<std::uint8_t> x(8);
  encode(code, info, x);
  // u = 0 0 0 1 0 0 1 1; x = rows 3 ^ 6 ^ 7 of G_8 = 11110000 ^ 10101010 ^ 11111111.
  EXPECT_EQ(x, (std::vector<std::uint8_t>{1, 0, 1, 0, 0, 1, 0, 1}));
  const polar_code systematic(8, 4, {}, encoding::systematic);
  encode(systematic, info, x);
  // y = u G = 10100101, y_F cleared = 00000101 (= u), x = rows 5 ^ 7 = 11001100 ^ 11111111.
  EXPECT_EQ(x, (std::vector<std::uint8_t>{0, 0, 1, 1, 0, 0, 1, 1}));
  std::vector<std::uint8_t> back(4);
  info_from_codeword(systematic, x, back);
  EXPECT_EQ(back, info);
}

TEST(PolarEncoder, TransformIsTheKroneckerPowerInNaturalOrder) {
  // G_N[i][j] = prod_b F[i_b][j_b] with F = [[1,0],[1,1]]: 1 iff the bits of j are a subset of
  // those of i. Each unit vector e_i must map to row i.
  for (std::uint32_t N : {2u, 4u, 16u, 64u}) {
    for (std::uint32_t i = 0; i < N; ++i) {
      std::vector<std::uint8_t> v(N, 0);
      v[i] = 1;
      polar_transform(v);
      for (std::uint32_t j = 0; j < N; ++j) ASSERT_EQ(v[j], (j & ~i) == 0 ? 1 : 0) << N << " " << i;
      polar_transform(v);  // an involution
      for (std::uint32_t j = 0; j < N; ++j) ASSERT_EQ(v[j], j == i ? 1 : 0);
    }
  }
}

TEST(PolarEncoder, SeedConstantGeometryDrawingIsTheSameTransform) {
  // The seed (slides 10-12) draws every stage alike: a butterfly on each adjacent pair
  // (2i, 2i + 1) whose outputs go to i and i + N/2 (the perfect shuffle). m such stages compute
  // exactly u G_N in natural order, for every u of N = 8 and random u of N = 1024.
  auto stage = [](const std::vector<std::uint8_t>& x) {
    const std::size_t N = x.size();
    std::vector<std::uint8_t> y(N);
    for (std::size_t i = 0; i < N / 2; ++i) {
      y[i] = x[2 * i] ^ x[2 * i + 1];
      y[i + N / 2] = x[2 * i + 1];
    }
    return y;
  };
  for (unsigned word = 0; word < 256; ++word) {
    std::vector<std::uint8_t> u(8), x(8);
    for (int b = 0; b < 8; ++b) u[b] = word >> b & 1;
    x = u;
    for (int s = 0; s < 3; ++s) x = stage(x);
    polar_transform(u);
    ASSERT_EQ(x, u) << word;
  }
  philox_stream bits(5, rng_source, 0);
  std::vector<std::uint8_t> u(1024);
  for (auto& b : u) b = static_cast<std::uint8_t>(bits.next_bit());
  auto x = u;
  for (int s = 0; s < 10; ++s) x = stage(x);
  polar_transform(u);
  EXPECT_EQ(x, u);
}

TEST(PolarEncoder, SystematicCodewordsCarryTheInformationAndAreCodewords) {
  for (auto spec : {"5g", "ga:1", "bhatt:3"}) {
    const polar_code code(256, 77, construction_spec::parse(spec), encoding::systematic);
    const auto batch = test::make_batch(code, 20, 0.0, 9, false);
    for (std::size_t f = 0; f < 20; ++f) {
      std::vector<std::uint8_t> u(batch.codeword.begin() + f * 256,
                                  batch.codeword.begin() + (f + 1) * 256);
      for (std::size_t k = 0; k < 77; ++k)
        ASSERT_EQ(u[code.info_positions()[k]], batch.info[f * 77 + k]);
      polar_transform(u);
      for (auto j : code.frozen_positions()) ASSERT_EQ(u[j], 0) << spec << " frame " << f;
    }
  }
}

// The encoders (64 positions a word) against the definition on bytes, u G_N by polar_transform
// (and, systematic, the frozen positions cleared and transformed again), for every length from 2
// (below a word) to 4096, both encodings, random information, single and batch calls.
TEST(PolarEncoder, PackedEncodersEqualTheTransformOnBytes) {
  philox_stream bits(17, rng_source, 1);
  for (std::uint32_t N = 2; N <= 4096; N *= 2)
    for (const encoding e : {encoding::non_systematic, encoding::systematic}) {
      const polar_code code(N, N / 2 + 1 - (N == 2), construction_spec::parse("ga:2"), e);
      SCOPED_TRACE("N = " + std::to_string(N) + (code.systematic() ? ", systematic" : ""));
      const std::size_t frames = 5, K = code.K();
      std::vector<std::uint8_t> info(frames * K), expected(frames * N), got(frames * N);
      for (auto& b : info) b = static_cast<std::uint8_t>(bits.next_bit());
      for (std::size_t f = 0; f < frames; ++f) {
        std::span<std::uint8_t> x(expected.data() + f * N, N);
        for (std::size_t k = 0; k < K; ++k) x[code.info_positions()[k]] = info[f * K + k];
        polar_transform(x);
        if (code.systematic()) {
          for (const auto j : code.frozen_positions()) x[j] = 0;
          polar_transform(x);
        }
        encode(code, std::span<const std::uint8_t>(info.data() + f * K, K),
               std::span<std::uint8_t>(got.data() + f * N, N));
      }
      ASSERT_EQ(got, expected);
      std::vector<std::uint8_t> batch(frames * N);
      encode(code, batch_view<std::uint8_t>::uniform(info.data(), frames, K),
             batch_span<std::uint8_t>::uniform(batch.data(), frames, N));
      ASSERT_EQ(batch, expected);
    }
}

TEST(PolarEncoder, BatchEqualsSingleCallsAndRejectsBadInput) {
  const polar_code code(64, 20);
  const auto batch = test::make_batch(code, 9, 0.0, 3, false);
  std::vector<std::uint8_t> out(9 * 64);
  encode(code, batch_view<std::uint8_t>::uniform(batch.info.data(), 9, 20),
         batch_span<std::uint8_t>::uniform(out.data(), 9, 64));
  EXPECT_EQ(out, batch.codeword);
  std::vector<std::uint8_t> info(20, 0), x(64);
  info[4] = 2;
  EXPECT_THROW(encode(code, info, x), invalid_argument);
  EXPECT_THROW(encode(code, std::span<const std::uint8_t>(info.data(), 19), x), invalid_argument);
}

}  // namespace
}  // namespace gpufec::polar
