// The CUDA polar encoder writes what polar::encode writes, on fresh random frames: N = 2 .. 2^20,
// systematic and not, 5G, designed and random frozen sets, batches of one to thousands of frames
// (a warp a codeword up to N = 1024; beyond, the words in shared memory at every length the
// device allows, global scratch past it), batches on and off 16 bytes.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "common/device_bytes.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/polar/encoder.hpp"
#include "polar/plan/device_encoder.hpp"

namespace gpufec::polar {
namespace {

using gpufec::testing::device_bytes;

// Batches `offset` bytes past an allocation's start (codewords off 16 bytes take byte stores).
void expect_device_encodes_alike(const polar_code& code, std::size_t frames, std::mt19937_64& rng,
                                 std::size_t offset = 0) {
  const std::size_t K = code.K(), N = code.N();
  std::vector<std::uint8_t> info(offset + frames * K), expected(frames * N);
  for (auto& b : info) b = static_cast<std::uint8_t>(rng() & 1u);
  encode(code, batch_view<std::uint8_t>::uniform(info.data() + offset, frames, K),
         batch_span<std::uint8_t>::uniform(expected.data(), frames, N));
  const device_bytes d_info(info);
  device_bytes d_coded(offset + frames * N);
  cuda_factory<detail::device_encoder_entry>("the CUDA polar encoder")(code)->encode(
      batch_view<std::uint8_t>::uniform(d_info.get() + offset, frames, K, memory_space::device),
      batch_span<std::uint8_t>::uniform(d_coded.get() + offset, frames, N, memory_space::device),
      nullptr);
  const std::vector<std::uint8_t> coded = d_coded.read();
  ASSERT_TRUE(std::equal(expected.begin(), expected.end(), coded.begin() + offset))
      << "N " << N << " K " << K << " frames " << frames << " offset " << offset
      << (code.systematic() ? " systematic" : "");
}

TEST(PolarCudaEncoder, WritesWhatTheHostEncoderWrites) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(std::random_device{}());
  for (const bool systematic : {false, true})
    for (unsigned m = 1; m <= 20; ++m) {
      const std::uint32_t N = 1u << m;
      const std::uint32_t K = std::max<std::uint32_t>(1, N / 2 - (m % 3));
      const auto spec = construction_spec::parse(N <= 1024 ? "5g" : "ga:2");
      std::unique_ptr<polar_code> code;
      try {
        code = std::make_unique<polar_code>(
            N, K, spec, systematic ? encoding::systematic : encoding::non_systematic);
      } catch (const invalid_argument&) {
        continue;  // a set that systematic encoding cannot use
      }
      const std::size_t frames = m <= 10 ? 3000 : m <= 16 ? 40 : 2;
      expect_device_encodes_alike(*code, frames, rng);
    }
  // A random frozen set and K = N (nothing frozen), K = 1.
  std::vector<std::uint32_t> positions(512);
  std::iota(positions.begin(), positions.end(), 0u);
  std::shuffle(positions.begin(), positions.end(), rng);
  positions.resize(300);
  std::sort(positions.begin(), positions.end());
  expect_device_encodes_alike(polar_code::from_indices(512, positions, index_set::frozen), 999,
                              rng);
  expect_device_encodes_alike(polar_code(64, 64), 17, rng);
  expect_device_encodes_alike(polar_code(64, 1), 17, rng);
  // Batches that do not start on 16 bytes, on both sides of the warp kernel's limit.
  for (const std::uint32_t N : {16u, 1024u, 2048u})
    for (const std::size_t offset : {1u, 5u})
      expect_device_encodes_alike(
          polar_code(N, N / 2, construction_spec::parse(N <= 1024 ? "5g" : "ga:2"),
                     encoding::systematic),
          301, rng, offset);
}

}  // namespace
}  // namespace gpufec::polar
