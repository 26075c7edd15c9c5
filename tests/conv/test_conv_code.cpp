// The description layer: conv_code validation and trellis, puncture patterns, the encoder against
// known outputs and an independent convolution, termination and tail-biting start states.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_test_util.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/conv/encoder.hpp"

namespace gpufec::conv {
namespace {

using testing::random_bits;

// Expects `fn` to throw invalid_argument whose message contains every fragment.
template <class Fn>
void expect_invalid(Fn&& fn, std::vector<std::string> fragments) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one mentioning '" << fragments[0] << "'";
  } catch (const invalid_argument& e) {
    for (const auto& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "message '" << e.what() << "' lacks '" << f << "'";
  }
}

TEST(ConvCode, ValidationNamesTheField) {
  expect_invalid([] { conv_code(10, {0171, 0133}); }, {"K = 10", "3..9"});
  expect_invalid([] { conv_code(2, {03, 01}); }, {"K = 2"});
  expect_invalid([] { conv_code(7, {0171}); }, {"beta = 1"});
  expect_invalid([] { conv_code(7, {0171, 0133, 0165, 0117, 0155}); }, {"beta = 5"});
  expect_invalid([] { conv_code(7, {0171, 0}); }, {"polynomial 2", "zero"});
  expect_invalid([] { conv_code(7, {0171, 0233}); }, {"polynomial 2", "233", "wider than K = 7"});
  expect_invalid([] { conv_code(7, {071, 033}); }, {"current input"});
  expect_invalid([] { conv_code(7, {0170, 0132}); }, {"oldest input"});
  expect_invalid(
      [] {
        conv_code::recursive_systematic(4, {03, 015});
      },
      {"feedback", "current input"});
  expect_invalid([] { conv_code::parse(7, "171,1x3"); }, {"polynomial 2", "not octal"});
  expect_invalid([] { conv_code::parse(7, "171,"); }, {"polynomial 2", "empty"});
}

TEST(ConvCode, ParsesOctalAndPrints) {
  const auto code = conv_code::parse(7, "171,133");
  EXPECT_EQ(code.polynomials(), (std::vector<std::uint32_t>{0171, 0133}));
  EXPECT_EQ(code.to_string(), "K=7 (171,133)");
  EXPECT_EQ(code.states(), 64u);
  EXPECT_TRUE(code.symmetric_butterflies());
  EXPECT_FALSE(conv_code(5, {023, 012}).symmetric_butterflies());
  const auto rsc = conv_code::parse(4, "13,15", true);
  EXPECT_TRUE(rsc.recursive());
  EXPECT_EQ(rsc.to_string(), "K=4 RSC (13,15), feedback 13");
}

// The (2,1,7) code's impulse response: stream 0 reads the taps of 171 (1111001), stream 1 those of
// 133 (1011011), MSB first, interleaved stage by stage: 11 10 11 11 00 01 11.
TEST(ConvCode, Encoder171133ImpulseResponse) {
  const encoder enc(conv_code(7, {0171, 0133}), puncture_pattern::none(2), 7,
                    termination::truncated);
  std::vector<std::uint8_t> coded(14);
  enc.encode(std::vector<std::uint8_t>{1, 0, 0, 0, 0, 0, 0}, coded);
  EXPECT_EQ(coded, (std::vector<std::uint8_t>{1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1}));
  // 1011 then zeros: the XOR of the impulse response shifted by 0, 2 and 3 stages.
  enc.encode(std::vector<std::uint8_t>{1, 0, 1, 1, 0, 0, 0}, coded);
  EXPECT_EQ(coded, (std::vector<std::uint8_t>{1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0}));
}

// c_b[t] = XOR over k of tap(g_b, K-1-k) u[t-k]: the textbook convolution, written independently
// of the trellis tables.
std::vector<std::uint8_t> convolve(const conv_code& code, const std::vector<std::uint8_t>& u) {
  std::vector<std::uint8_t> out;
  for (std::size_t t = 0; t < u.size(); ++t)
    for (std::uint32_t g : code.polynomials()) {
      unsigned bit = 0;
      for (int k = 0; k < code.K(); ++k)
        if (t >= static_cast<std::size_t>(k) && ((g >> (code.K() - 1 - k)) & 1u)) bit ^= u[t - k];
      out.push_back(static_cast<std::uint8_t>(bit));
    }
  return out;
}

// The encoder (64 stages a word for feedforward codes) against the convolution written out, for
// every code, termination and puncturing (the sent bits in stage order), on frames from the
// shortest (K - 1 bits) through word boundaries to many words.
TEST(ConvCode, EncoderMatchesConvolutionForEveryTermination) {
  for (const auto& [name, code] : testing::all_codes()) {
    if (code.recursive()) continue;
    std::vector<puncture_pattern> patterns = {puncture_pattern::none(code.beta())};
    if (code.beta() == 2) patterns.push_back(puncture_pattern::standard("3/4", 2));
    if (code.beta() == 3) patterns.push_back(puncture_pattern({{1, 1}, {1, 0}, {0, 1}}));
    for (const std::size_t N :
         {static_cast<std::size_t>(code.memory()), std::size_t{40}, std::size_t{63},
          std::size_t{64}, std::size_t{65}, std::size_t{1000}})
      for (const puncture_pattern& pattern : patterns)
        for (termination term : testing::all_terminations) {
          SCOPED_TRACE(name + " " + std::string(name_of(term)) + ", N = " + std::to_string(N) +
                       ", pattern " + pattern.to_string());
          const auto info = random_bits(7, N, N);
          const encoder enc(code, pattern, N, term);
          std::vector<std::uint8_t> coded(enc.shape().coded_bits);
          enc.encode(info, coded);
          std::vector<std::uint8_t> input = info;
          if (term == termination::zero_tail) input.resize(N + code.memory(), 0);
          if (term == termination::tail_biting) {
            // Circular convolution: the frame as if preceded by its own last K-1 bits.
            input.insert(input.begin(), info.end() - code.memory(), info.end());
          }
          auto full = convolve(code, input);
          if (term == termination::tail_biting)
            full.erase(full.begin(), full.begin() + code.memory() * code.beta());
          std::vector<std::uint8_t> expected;
          for (std::size_t t = 0; t < full.size() / code.beta(); ++t)
            for (int b = 0; b < code.beta(); ++b)
              if (pattern.sends(b, t)) expected.push_back(full[t * code.beta() + b]);
          ASSERT_EQ(coded, expected);
        }
  }
}

TEST(ConvCode, RecursiveSystematicSendsTheInputOnStreamZero) {
  const auto code = conv_code::recursive_systematic(4, {013, 015});
  const std::size_t N = 64;
  const auto info = random_bits(3, 1, N);
  for (termination term : testing::all_terminations) {
    const encoder enc(code, puncture_pattern::none(2), N, term);
    std::vector<std::uint8_t> coded(enc.shape().coded_bits);
    enc.encode(info, coded);
    for (std::size_t t = 0; t < N; ++t) EXPECT_EQ(coded[2 * t], info[t]) << "stage " << t;
  }
}

// Running the trellis from the start state over the frame must come back to it; with a zero tail
// it ends in state 0.
TEST(ConvCode, TerminationsEndWhereTheyShould) {
  for (const auto& [name, code] : testing::small_codes()) {
    SCOPED_TRACE(name);
    for (std::size_t N : {std::size_t(code.memory()), std::size_t{13}, std::size_t{50}}) {
      const auto info = random_bits(5, N, N);
      const encoder tb(code, puncture_pattern::none(code.beta()), N, termination::tail_biting);
      unsigned s = tb.start_state(info);
      for (std::uint8_t u : info) s = code.next_state(s, code.register_bit(s, u));
      EXPECT_EQ(s, tb.start_state(info)) << "N = " << N;
    }
  }
  // A recursive code cannot tail-bite a frame whose length is a multiple of the feedback's period
  // (feedback 7 = 1 + D + D^2 has period 3).
  expect_invalid(
      [] {
        encoder(conv_code::recursive_systematic(3, {07, 05}), puncture_pattern::none(2), 9,
                termination::tail_biting);
      },
      {"tail-biting is impossible", "frame_bits = 9"});
}

TEST(ConvCode, FrameLengthValidation) {
  const conv_code code(7, {0171, 0133});
  const auto none = puncture_pattern::none(2);
  expect_invalid([&] { make_frame_shape(code, none, 0, termination::truncated); },
                 {"frame_bits = 0"});
  expect_invalid([&] { make_frame_shape(code, none, 5, termination::zero_tail); },
                 {"zero-tail", "K-1 = 6", "frame_bits = 5"});
  expect_invalid([&] { make_frame_shape(code, none, 5, termination::tail_biting); },
                 {"tail-biting", "K-1 = 6", "frame_bits = 5"});
  expect_invalid(
      [&] { make_frame_shape(code, puncture_pattern::none(3), 100, termination::zero_tail); },
      {"3 rows", "beta = 2"});
  const auto shape =
      make_frame_shape(code, puncture_pattern::standard("3/4", 2), 1000, termination::zero_tail);
  EXPECT_EQ(shape.stages, 1006u);
  EXPECT_EQ(shape.coded_bits, 1006u / 3 * 4 + 2);  // 335 periods of 4, then stage 1005 sends X, Y
}

TEST(ConvPuncture, BuiltinsParsingAndRates) {
  const auto p34 = puncture_pattern::standard("3/4", 2);
  EXPECT_EQ(p34.to_string(), "101,110");
  EXPECT_EQ(p34.rate_string(), "3/4");
  EXPECT_EQ(puncture_pattern::parse("7/8", 2).to_string(), "1000101,1111010");
  EXPECT_EQ(puncture_pattern::parse("5/6", 2).rate_string(), "5/6");
  EXPECT_EQ(puncture_pattern::parse("2/3", 2).rate_string(), "2/3");
  EXPECT_EQ(puncture_pattern::parse("1/3", 3), puncture_pattern::none(3));
  EXPECT_EQ(puncture_pattern::parse("110,101", 2).rate_string(), "3/4");
  EXPECT_FALSE(puncture_pattern::none(2).punctures());
  EXPECT_TRUE(p34.punctures());
  EXPECT_EQ(p34.sent_before(0), 0u);
  EXPECT_EQ(p34.sent_before(1), 2u);
  EXPECT_EQ(p34.sent_before(2), 3u);
  EXPECT_EQ(p34.sent_before(3), 4u);
  EXPECT_EQ(p34.sent_before(7), 10u);
}

TEST(ConvPuncture, ValidationNamesTheProblem) {
  expect_invalid([] { puncture_pattern::parse("101,001", 2); }, {"column 2", "all zeros"});
  expect_invalid([] { puncture_pattern::parse("101,110,111", 2); }, {"3 rows", "beta = 2"});
  expect_invalid([] { puncture_pattern::parse("101,11", 2); }, {"row 2", "2 columns"});
  expect_invalid([] { puncture_pattern::parse("1a1,110", 2); }, {"'a'"});
  expect_invalid([] { puncture_pattern::parse("4/5", 2); }, {"unknown puncturing rate '4/5'"});
  expect_invalid([] { puncture_pattern::standard("3/4", 3); }, {"beta = 3"});
  expect_invalid([] { puncture_pattern::parse("", 2); }, {"empty"});
}

TEST(ConvPuncture, DepunctureInvertsPuncture) {
  const auto p = puncture_pattern::standard("7/8", 2);
  const std::size_t stages = 23;
  std::vector<std::uint8_t> full(2 * stages);
  for (std::size_t i = 0; i < full.size(); ++i) full[i] = static_cast<std::uint8_t>(1 + i % 7);
  std::vector<std::uint8_t> sent(p.sent_before(stages));
  p.puncture(full, sent);
  std::vector<float> sent_llr(sent.begin(), sent.end()), back(full.size());
  p.depuncture(sent_llr, back);
  for (std::size_t i = 0; i < full.size(); ++i)
    EXPECT_EQ(back[i], p.sends(static_cast<int>(i % 2), i / 2) ? full[i] : 0.0f) << i;
  expect_invalid([&] { p.depuncture(std::span<const float>(sent_llr).first(3), back); },
                 {"send", "not 3"});
}

}  // namespace
}  // namespace gpufec::conv
