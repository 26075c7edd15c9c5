// The CUDA convolutional encoder writes what encoder::encode writes, on fresh random frames: every
// code shape (K = 3..9, beta = 2..4, feedforward and recursive), every termination, built-in and
// custom puncturing, batches of one to thousands of frames and frames of K-1 to 2^16 bits (32-bit
// indices) and one frame past 2^32 coded bits would need too much memory to test, so the 64-bit
// path is the host test's (test_conv_encoder_units.cpp). Skips without a GPU.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/device_bytes.hpp"
#include "conv/plan/device_encoder.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/conv/encoder.hpp"

namespace gpufec::conv {
namespace {

using gpufec::testing::device_bytes;

TEST(ConvCudaEncoder, WritesWhatTheHostEncoderWrites) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto make = cuda_factory<detail::device_encoder_entry>("the CUDA conv encoder");
  const std::vector<conv_code> codes = {
      conv_code(3, {07, 05}),
      conv_code(7, {0171, 0133}),
      conv_code(9, {0561, 0753}),
      conv_code(7, {0133, 0171, 0165}),
      conv_code(5, {023, 035, 027, 031}),
      conv_code::recursive_systematic(4, {013, 015}),
      conv_code::recursive_systematic(7, {0171, 0133}),
  };
  std::mt19937_64 rng(std::random_device{}());
  int cases = 0;
  for (const conv_code& code : codes) {
    std::vector<puncture_pattern> patterns = {puncture_pattern::none(code.beta())};
    if (code.beta() == 2)
      for (const char* rate : {"2/3", "3/4", "7/8"})
        patterns.push_back(puncture_pattern::standard(rate, 2));
    if (code.beta() == 3) patterns.push_back(puncture_pattern::parse("10,11,01", 3));
    for (const puncture_pattern& pattern : patterns)
      for (const termination term :
           {termination::zero_tail, termination::truncated, termination::tail_biting})
        for (const auto& [N, frames] : {std::pair<std::size_t, std::size_t>{code.memory(), 7},
                                        {1000, 300},
                                        {8192, 40},
                                        {65537, 3}}) {
          std::unique_ptr<encoder> e;
          try {
            e = std::make_unique<encoder>(code, pattern, N, term);
          } catch (const std::exception&) {
            continue;  // a recursive code that cannot tail-bite this length
          }
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
              << code.to_string() << " " << pattern.to_string() << " " << name_of(term) << " N "
              << N << " frames " << frames;
          ++cases;
        }
  }
  EXPECT_GT(cases, 80);
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
