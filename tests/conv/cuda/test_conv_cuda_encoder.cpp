// The CUDA convolutional encoder writes what encoder::encode writes, on fresh random frames: every
// code shape of the conv tests (K = 3..9, beta = 2..4, feedforward and recursive), every
// termination, built-in and custom puncturing, batches of 3 to 300 frames of K-1 to 65537 bits.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/device_bytes.hpp"
#include "conv/conv_test_util.hpp"
#include "conv/plan/device_encoder.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/conv/encoder.hpp"

namespace gpufec::conv {
namespace {

using gpufec::testing::device_bytes;

TEST(ConvCudaEncoder, WritesWhatTheHostEncoderWrites) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto make = cuda_factory<detail::device_encoder_entry>("the CUDA conv encoder");
  std::mt19937_64 rng(std::random_device{}());
  int cases = 0;
  for (const auto& [name, code] : testing::all_codes())
    for (const puncture_pattern& pattern : testing::encoder_patterns_for(code))
      for (const termination term : testing::all_terminations)
        for (const auto& [N, frames] : {std::pair<std::size_t, std::size_t>{code.memory(), 7},
                                        {1000, 300},
                                        {8192, 40},
                                        {65536, 3},
                                        {65537, 3}}) {
          if (!testing::can_encode(code, pattern, N, term)) continue;
          const auto e = std::make_unique<encoder>(code, pattern, N, term);
          const std::size_t C = e->shape().coded_bits;
          std::vector<std::uint8_t> info(frames * N), expected(frames * C);
          for (auto& b : info) b = static_cast<std::uint8_t>(rng() & 1u);
          e->encode(batch_view<std::uint8_t>::uniform(info.data(), frames, N),
                    batch_span<std::uint8_t>::uniform(expected.data(), frames, C));
          const device_bytes d_info(info);
          device_bytes d_coded(frames * C);
          make(*e)->encode(
              batch_view<std::uint8_t>::uniform(d_info.get(), frames, N, memory_space::device),
              batch_span<std::uint8_t>::uniform(d_coded.get(), frames, C, memory_space::device),
              nullptr);
          ASSERT_EQ(d_coded.read(), expected)
              << name << " " << pattern.to_string() << " " << name_of(term) << " N " << N
              << " frames " << frames;
          ++cases;
        }
  EXPECT_GT(cases, 80);
}

// A batch that starts off 4 bytes (a view into a larger buffer) takes the general kernel, not the
// pair kernel's word stores: the same bits, no misaligned store.
TEST(ConvCudaEncoder, ABatchAtAnyAddress) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto make = cuda_factory<detail::device_encoder_entry>("the CUDA conv encoder");
  std::mt19937_64 rng(std::random_device{}());
  const encoder e(conv_code(7, {0171, 0133}), puncture_pattern::none(2), 1000,
                  termination::zero_tail);
  const std::size_t frames = 9, N = 1000, C = e.shape().coded_bits;
  std::vector<std::uint8_t> info(frames * N), expected(frames * C);
  for (auto& b : info) b = static_cast<std::uint8_t>(rng() & 1u);
  e.encode(batch_view<std::uint8_t>::uniform(info.data(), frames, N),
           batch_span<std::uint8_t>::uniform(expected.data(), frames, C));
  const device_bytes d_info(info);
  for (const std::size_t offset : {1u, 2u, 3u, 4u}) {
    device_bytes d_coded(frames * C + offset);
    make(e)->encode(
        batch_view<std::uint8_t>::uniform(d_info.get(), frames, N, memory_space::device),
        batch_span<std::uint8_t>::uniform(d_coded.get() + offset, frames, C, memory_space::device),
        nullptr);
    const std::vector<std::uint8_t> got = d_coded.read();
    EXPECT_EQ(
        std::vector<std::uint8_t>(got.begin() + static_cast<std::ptrdiff_t>(offset), got.end()),
        expected)
        << "offset " << offset;
  }
}

TEST(ConvCudaEncoder, RefusesHostAndMismatchedBatches) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const encoder e(conv_code(7, {0171, 0133}), puncture_pattern::none(2), 100,
                  termination::zero_tail);
  const auto device = cuda_factory<detail::device_encoder_entry>("the CUDA conv encoder")(e);
  std::vector<std::uint8_t> info(100), coded(212);
  EXPECT_THROW(device->encode(batch_view<std::uint8_t>::uniform(info.data(), 1, 100),
                              batch_span<std::uint8_t>::uniform(coded.data(), 1, 212), nullptr),
               invalid_argument);
  const device_bytes d_info(info);
  device_bytes d_coded(212);
  EXPECT_THROW(
      device->encode(batch_view<std::uint8_t>::uniform(d_info.get(), 1, 100, memory_space::device),
                     batch_span<std::uint8_t>::uniform(d_coded.get(), 1, 200, memory_space::device),
                     nullptr),
      invalid_argument);
}

}  // namespace
}  // namespace gpufec::conv
