// The encoder's units (conv/model/encoder_units.hpp), run here on the host as the CUDA encoder
// runs them per frame and per 32 stages, write what encoder::encode writes: feedforward and
// recursive codes of every rate, every termination, built-in and custom puncturing, frames from
// K-1 bits to a few thousand.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <string>
#include <vector>

#include "conv/conv_test_util.hpp"
#include "conv/model/encoder_units.hpp"
#include "gpufec/conv/encoder.hpp"

namespace gpufec::conv::detail {
namespace {

// The units' output for one frame, as the device computes it: a word of 32 stages at a time, in
// any order (here the last first), each writing where sent_before says its bits begin.
std::vector<std::uint8_t> by_units(const encoder& e, const std::vector<std::uint8_t>& info) {
  const encoder_units u = make_encoder_units(e);
  const auto phases = puncture_phases(e);
  const auto parity = feedback_parities(e);
  std::vector<std::uint8_t> w(u.recursive ? info.size() : 0);
  const unsigned start =
      frame_start(u, info.data(), parity.data(), e.tailbiting_starts().data(), w.data());
  const std::uint8_t* bits = u.recursive ? w.data() : info.data();
  std::vector<std::uint8_t> coded(u.coded_bits, 2);  // 2: never written
  for (std::uint64_t word = (u.stages + 31) / 32; word-- > 0;) {
    const std::uint64_t t0 = 32 * word, end = std::min<std::uint64_t>(t0 + 32, u.stages);
    const unsigned n = coded_word(u, phases.data(), register_window(u, bits, start, t0), t0,
                                  coded.data() + sent_before(u, phases.data(), t0));
    EXPECT_EQ(n, sent_before(u, phases.data(), end) - sent_before(u, phases.data(), t0));
  }
  EXPECT_EQ(sent_before(u, phases.data(), u.stages), u.coded_bits);
  return coded;
}

TEST(ConvEncoderUnits, WriteWhatTheEncoderWritesForEveryCodeAndTermination) {
  std::mt19937_64 rng(20261202);
  std::size_t frames = 0;
  for (const auto& [name, code] : testing::all_codes())
    for (const puncture_pattern& pattern : testing::encoder_patterns_for(code))
      for (const termination term : testing::all_terminations)
        for (const std::size_t N : {std::size_t(code.memory()), std::size_t{13}, std::size_t{64},
                                    std::size_t{129}, std::size_t{2049}}) {
          if (!testing::can_encode(code, pattern, N, term)) continue;
          const auto e = std::make_unique<encoder>(code, pattern, N, term);
          std::vector<std::uint8_t> info(N), expected(e->shape().coded_bits);
          for (int trial = 0; trial < 3; ++trial) {
            for (auto& b : info) b = static_cast<std::uint8_t>(rng() & 1u);
            if (trial == 1) std::fill(info.begin(), info.end(), std::uint8_t{1});
            e->encode(info, expected);
            const std::string what = name + " " + pattern.to_string() + " " +
                                     std::string(name_of(term)) + " N " + std::to_string(N);
            ASSERT_EQ(by_units(*e, info), expected) << what;
            ++frames;
          }
        }
  EXPECT_GT(frames, 500u);
}

TEST(ConvEncoderUnits, TablesDescribeThePeriod) {
  // DVB-S 3/4: stage 0 sends both streams, stage 1 stream 1, stage 2 stream 0 (rows 101, 110).
  const encoder e(conv_code(7, {0171, 0133}), puncture_pattern::standard("3/4", 2), 120,
                  termination::truncated);
  const auto phases = puncture_phases(e);
  ASSERT_EQ(phases.size(), 3u);
  std::uint32_t before = 0;
  for (std::size_t p = 0; p < phases.size(); ++p) {
    EXPECT_EQ(phases[p] >> 4, before) << p;
    for (int b = 0; b < 2; ++b)
      EXPECT_EQ((phases[p] >> b) & 1u, e.pattern().sends(b, p) ? 1u : 0u) << p << " " << b;
    before += std::popcount(phases[p] & 15u);
  }
  EXPECT_EQ(before, 4u);  // 3 stages send 4 bits
  const encoder_units u = make_encoder_units(e);
  EXPECT_EQ(u.taps[0], 0b1001111u);  // 171 = 1 111 001 read from the current input back
  EXPECT_EQ(u.taps[1], 0b1101101u);  // 133 = 1 011 011
  EXPECT_EQ(u.memory, 6u);
  EXPECT_EQ(u.beta, 2u);
  EXPECT_EQ(u.stages, 120u);
  EXPECT_EQ(sent_before(u, phases.data(), 7), e.pattern().sent_before(7));
  EXPECT_EQ(feedback_parities(e), std::vector<std::uint8_t>(64, 0));
}

}  // namespace
}  // namespace gpufec::conv::detail
