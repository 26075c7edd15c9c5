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

// The units' output for one frame, as the device computes it: rounds of `round` words of 32
// stages in any order (here the last first), each round's stream words first, then its sent bits
// in any order (here from the last), each where sent_before says the round's bits begin.
std::vector<std::uint8_t> by_units(const encoder& e, const std::vector<std::uint8_t>& info,
                                   std::uint64_t round) {
  const encoder_units u = make_encoder_units(e);
  const auto phases = puncture_phases(e);
  const auto slots = puncture_slots(e);
  const auto per_period = small_divisor::of(u.sent_per_period);
  const auto parity = feedback_parities(e);
  std::vector<std::uint8_t> w(u.recursive ? info.size() : 0);
  const unsigned start =
      frame_start(u, info.data(), parity.data(), e.tailbiting_starts().data(), w.data());
  const std::uint8_t* bits = u.recursive ? w.data() : info.data();
  std::vector<std::uint8_t> coded(u.coded_bits, 2);  // 2: never written
  const std::uint64_t total = (u.stages + 31) / 32;
  std::vector<std::uint32_t> words(u.beta * round);
  for (std::uint64_t base = (total - 1) / round * round;; base -= round) {
    const std::uint64_t end = std::min(base + round, total);
    for (std::uint64_t word = base; word < end; ++word) {
      std::uint32_t streams[conv_code::max_beta];
      stream_words(u, register_window(u, bits, start, 32 * word), streams);
      for (unsigned b = 0; b < u.beta; ++b) words[b * round + (word - base)] = streams[b];
    }
    const std::uint64_t first = sent_before(u, phases.data(), 32 * base);
    const std::uint64_t last =
        end * 32 < u.stages ? sent_before(u, phases.data(), 32 * end) : u.coded_bits;
    const auto p0 = static_cast<unsigned>((32 * base) % u.period);
    for (std::uint64_t r = last - first; r-- > 0;)
      coded[first + r] = static_cast<std::uint8_t>(
          sent_bit(u, phases.data(), slots.data(), per_period, p0, static_cast<std::uint32_t>(r),
                   words.data(), static_cast<unsigned>(round)));
    if (base == 0) break;
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
            // Rounds of one word, of a few, and of the device's 256.
            for (const std::uint64_t round : {1, 3, 256})
              ASSERT_EQ(by_units(*e, info, round), expected) << what << " round " << round;
            ++frames;
          }
        }
  EXPECT_GT(frames, 500u);
}

TEST(ConvEncoderUnits, SmallDivisorsDivideExactlyWhereTheyMultiply) {
  std::mt19937_64 rng(7);
  std::vector<std::uint32_t> divisors = {1000, 4095, 16383, 16384, 16385, 70000};
  for (std::uint32_t d = 1; d <= 64; ++d) divisors.push_back(d);
  for (const std::uint32_t d : divisors) {
    const auto div = small_divisor::of(d);
    EXPECT_EQ(div.m == 0, d == 1 || d > small_divisor::exact_limit) << d;
    for (int i = 0; i < 2000; ++i) {
      const auto n = static_cast<std::uint32_t>(rng() % (1u << 17));
      ASSERT_EQ(div.quotient(n), n / d) << n << " / " << d;
    }
    ASSERT_EQ(div.quotient((1u << 17) - 1), ((1u << 17) - 1) / d) << d;
  }
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
  // The slots: bit 0 of the period is stage 0's stream 0, then its stream 1, stage 1's stream 1,
  // stage 2's stream 0.
  EXPECT_EQ(puncture_slots(e), (std::vector<std::uint32_t>{0x00, 0x01, 0x11, 0x20}));
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
