// The BP decoders: the schedule by hand on N = 4, the LR rule against the LLR sum-product, the fast
// path against the reference (bit for bit where the arithmetic allows), early stopping, soft
// outputs and noise-free decoding for every construction, N and rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>

#include "polar_test_util.hpp"

namespace gpufec::polar {
namespace {

decoder_options bp(update_rule rule, int iterations, bool early_stop, implementation path,
                   output_kind out = output_kind::hard, bp_schedule schedule = bp_schedule::lr_rl) {
  decoder_options o;
  o.decoder = decoder_kind::bp;
  o.update = rule;
  o.iterations = iterations;
  o.early_stop = early_stop;
  o.path = path;
  o.output = out;
  o.schedule = schedule;
  return o;
}

constexpr bp_schedule schedules[] = {bp_schedule::lr_rl, bp_schedule::rl_lr};

std::vector<float> soft_of(decoder_plan& plan, const std::vector<float>& llr) {
  const std::size_t N = plan.code().N(), frames = llr.size() / N;
  const std::size_t stride =
      plan.options().output == output_kind::codeword_llrs ? N : plan.code().K();
  std::vector<float> soft(frames * stride);
  plan.decode_soft(batch_view<float>::uniform(llr.data(), frames, N),
                   batch_span<float>::uniform(soft.data(), frames, stride));
  return soft;
}

TEST(PolarBp, OneIterationOfEachScheduleByHand) {
  // N = 4, frozen {0, 1}, min-sum, channel L_2 = (3, -1, 2, -4), R_0 = (inf, inf, 0, 0), every
  // other message 0 (unknown).
  // rl-lr. Right-to-left, stage 1 (h = 2, pairs (0,2), (1,3)), R_1 = 0:
  //   L_1 = (f(3, 2), f(-1, -4), f(3, 0) + 2, f(-1, 0) - 4) = (2, 1, 2, -4)
  // stage 0 (h = 1, pairs (0,1), (2,3)):
  //   L_0[2] = f(L_1[2], L_1[3] + R_0[3]) = f(2, -4) = -2, L_0[3] = f(2, R_0[2]) + L_1[3] = -4
  // Left-to-right, stage 0: R_1 = (f(inf, 1 + inf), f(inf, 2) + inf, f(0, -4), f(0, 2) + 0)
  //   = (inf, inf, -0, 0); stage 1: R_2 = (f(inf, 2 - 0), f(inf, -4 + 0), f(inf, 3) - 0,
  //   f(inf, -1) + 0) = (2, -4, 3, -1).
  // Posteriors: u_A = L_0 + R_0 at {2, 3} = (-2, -4); x = L_2 + R_2 = (5, -5, 5, -5).
  // lr-rl. Left-to-right, stage 0 (L_1 = 0): R_1 = (f(inf, 0 + inf), f(inf, 0) + inf, f(0, 0),
  //   f(0, 0) + 0) = (inf, inf, 0, 0); stage 1: R_2 = (f(inf, 2 + 0), f(inf, -4 + 0),
  //   f(inf, 3) + 0, f(inf, -1) + 0) = (2, -4, 3, -1).
  // Right-to-left, stage 1: L_1 = (f(3, 2 + 0), f(-1, -4 + 0), f(3, inf) + 2, f(-1, inf) - 4)
  //   = (2, 1, 5, -5); stage 0: L_0[2] = f(5, -5 + 0) = -5, L_0[3] = f(5, 0) - 5 = -5.
  // Posteriors: u_A = (-5, -5): the frozen bits' knowledge reached u within the iteration;
  // x = (5, -5, 5, -5).
  const std::uint32_t frozen[] = {0, 1};
  const auto code = polar_code::from_indices(4, frozen, index_set::frozen);
  const std::vector<float> llr{3, -1, 2, -4};
  for (auto schedule : schedules)
    for (auto path : {implementation::reference, implementation::fast}) {
      const std::string what = cat(name_of(schedule), " ", name_of(path));
      decoder_plan info(code,
                        bp(update_rule::min_sum, 1, false, path, output_kind::info_llrs, schedule));
      EXPECT_EQ(soft_of(info, llr), schedule == bp_schedule::lr_rl ? (std::vector<float>{-5, -5})
                                                                   : (std::vector<float>{-2, -4}))
          << what;
      decoder_plan codeword(
          code, bp(update_rule::min_sum, 1, false, path, output_kind::codeword_llrs, schedule));
      EXPECT_EQ(soft_of(codeword, llr), (std::vector<float>{5, -5, 5, -5})) << what;
    }
}

TEST(PolarBp, NoiseFreeDecodingIsExactForEveryConstructionRuleAndPath) {
  for (std::uint32_t N : {2u, 8u, 64u, 1024u}) {
    for (const char* spec : {"5g", "ga:2", "bhatt:1"}) {
      for (auto enc : {encoding::non_systematic, encoding::systematic}) {
        const polar_code code(N, std::max(1u, N / 3), construction_spec::parse(spec), enc);
        const auto batch = test::make_batch(code, 9, 0.0, 5, false);
        for (auto rule : {update_rule::lr_sum_product, update_rule::sum_product,
                          update_rule::min_sum, update_rule::scaled_min_sum})
          for (auto path : {implementation::reference, implementation::fast})
            for (auto schedule : schedules) {
              decoder_plan plan(code, bp(rule, 5, true, path, output_kind::hard, schedule),
                                backend::cpu, 9);
              std::vector<std::uint32_t> iterations;
              EXPECT_EQ(test::decode_bits(plan, batch.llr, &iterations), batch.info)
                  << code.describe() << " " << name_of(rule) << " " << name_of(path) << " "
                  << name_of(schedule);
            }
      }
    }
  }
  // 2^16 once, on the fast path.
  const polar_code big(1u << 16, 1u << 15, construction_spec::parse("ga:1"));
  const auto batch = test::make_batch(big, 3, 0.0, 6, false);
  decoder_plan plan(big, bp(update_rule::min_sum, 3, true, implementation::fast), backend::cpu, 3);
  EXPECT_EQ(test::decode_bits(plan, batch.llr), batch.info);
}

// Frames whose every compared posterior lies at least `margin` from a tie, per the reference.
std::vector<bool> away_from_ties(const std::vector<float>& reference_soft, std::size_t stride,
                                 float margin) {
  std::vector<bool> keep(reference_soft.size() / stride, true);
  for (std::size_t i = 0; i < reference_soft.size(); ++i)
    if (!(std::abs(reference_soft[i]) >= margin)) keep[i / stride] = false;
  return keep;
}

// Random inputs at 2 dB, frames not a multiple of the lanes. Min-sum, scaled min-sum and the LR
// rule perform the reference's IEEE operations lane by lane: soft outputs bit for bit. The LLR
// sum-product uses Highway's exp/log1p: decisions equal away from ties (1e-2), soft within 1e-2
// (relative beyond 1).
void fast_path_equals_the_reference(const polar_code& code, bp_schedule schedule) {
  const std::size_t frames = 37, N = 1024;
  const auto batch = test::make_batch(code, frames, 2.0, 11);
  for (auto rule : {update_rule::lr_sum_product, update_rule::sum_product, update_rule::min_sum,
                    update_rule::scaled_min_sum}) {
    for (bool early : {false, true}) {
      SCOPED_TRACE(cat(code.describe(), " ", name_of(schedule), " early ", early));
      auto opts = [&](implementation path) {
        return bp(rule, 12, early, path, output_kind::codeword_llrs, schedule);
      };
      {  // The hard outputs (systematic codes decide them apart from the soft ones).
        decoder_plan ref(
            code, bp(rule, 12, early, implementation::reference, output_kind::hard, schedule),
            backend::cpu, frames);
        decoder_plan fast(code,
                          bp(rule, 12, early, implementation::fast, output_kind::hard, schedule),
                          backend::cpu, frames);
        if (rule != update_rule::sum_product) {
          EXPECT_EQ(test::decode_bits(fast, batch.llr), test::decode_bits(ref, batch.llr))
              << name_of(rule);
        }
      }
      decoder_plan ref(code, opts(implementation::reference), backend::cpu, frames);
      decoder_plan fast(code, opts(implementation::fast), backend::cpu, frames);
      std::vector<std::uint32_t> it_ref(frames), it_fast(frames);
      std::vector<float> s_ref(frames * N), s_fast(frames * N);
      ref.decode_soft(batch_view<float>::uniform(batch.llr.data(), frames, N),
                      batch_span<float>::uniform(s_ref.data(), frames, N), it_ref);
      fast.decode_soft(batch_view<float>::uniform(batch.llr.data(), frames, N),
                       batch_span<float>::uniform(s_fast.data(), frames, N), it_fast);
      const bool exact = rule != update_rule::sum_product;
      const auto keep = away_from_ties(s_ref, N, 1e-2f);
      std::size_t kept = 0;
      for (std::size_t f = 0; f < frames; ++f) {
        if (exact) {
          EXPECT_EQ(it_fast[f], it_ref[f]) << name_of(rule) << " frame " << f;
          for (std::size_t j = 0; j < N; ++j)
            ASSERT_EQ(std::bit_cast<std::uint32_t>(s_fast[f * N + j]),
                      std::bit_cast<std::uint32_t>(s_ref[f * N + j]))
                << name_of(rule) << " early " << early << " frame " << f << " x" << j;
          continue;
        }
        if (!keep[f]) continue;
        ++kept;
        for (std::size_t j = 0; j < N; ++j) {
          ASSERT_EQ(s_fast[f * N + j] < 0, s_ref[f * N + j] < 0) << "frame " << f << " x" << j;
          // A few ulps per exp/log1p, compounded over 12 iterations of 20 stages: 1e-2, relative
          // beyond 1.
          ASSERT_NEAR(s_fast[f * N + j], s_ref[f * N + j],
                      1e-2f * std::max(1.0f, std::abs(s_ref[f * N + j])))
              << "frame " << f << " x" << j;
        }
      }
      if (!exact) {
        EXPECT_GE(kept, frames * 3 / 4);
      }
    }
  }
}

TEST(PolarBp, FastPathEqualsTheReference) {
  // Both schedules; systematic codes too (their hard outputs differ between schedules).
  for (auto enc : {encoding::non_systematic, encoding::systematic})
    for (auto schedule : schedules)
      fast_path_equals_the_reference(polar_code(1024, 512, {}, enc), schedule);
}

TEST(PolarBp, LikelihoodRatioRuleAgreesWithLlrSumProduct) {
  // The seed's LR updates and the LLR sum-product compute the same function (same saturation,
  // docs/polar.md); in fp32 they differ by rounding. Decisions must agree on every frame whose
  // posteriors all lie 1e-2 away from a tie, and those must be most frames.
  for (std::uint32_t N : {64u, 1024u}) {
    const polar_code code(N, N / 2, construction_spec::parse("ga:2"));
    const std::size_t frames = 64;
    const auto batch = test::make_batch(code, frames, 2.5, 31 + N);
    decoder_plan lr(code,
                    bp(update_rule::lr_sum_product, 20, false, implementation::reference,
                       output_kind::info_llrs),
                    backend::cpu, frames);
    decoder_plan sp(
        code,
        bp(update_rule::sum_product, 20, false, implementation::reference, output_kind::info_llrs),
        backend::cpu, frames);
    const auto a = soft_of(lr, batch.llr), b = soft_of(sp, batch.llr);
    const auto keep = away_from_ties(b, code.K(), 1e-2f);
    std::size_t kept = 0;
    for (std::size_t f = 0; f < frames; ++f) {
      if (!keep[f]) continue;
      ++kept;
      for (std::size_t k = 0; k < code.K(); ++k)
        ASSERT_EQ(a[f * code.K() + k] < 0, b[f * code.K() + k] < 0) << "N " << N << " frame " << f;
    }
    EXPECT_GE(kept, frames * 3 / 4) << N;
  }
}

TEST(PolarBp, EarlyStoppingReportsIterationsAndKeepsResults) {
  // At 3.5 dB most codewords pass the G-matrix check within a few iterations; a codeword that
  // passed after i iterations must decode exactly as with early stopping off and i iterations.
  const polar_code code(256, 128);
  const std::size_t frames = 50;
  const auto batch = test::make_batch(code, frames, 3.5, 8);
  for (auto schedule : schedules) {
    decoder_plan early(
        code, bp(update_rule::min_sum, 30, true, implementation::fast, output_kind::hard, schedule),
        backend::cpu, frames);
    std::vector<std::uint32_t> used;
    const auto bits = test::decode_bits(early, batch.llr, &used);
    std::uint32_t fewer = 0;
    for (std::size_t f = 0; f < frames; ++f) {
      ASSERT_GE(used[f], 1u);
      ASSERT_LE(used[f], 30u);
      fewer += used[f] < 30;
      decoder_plan fixed(code, bp(update_rule::min_sum, static_cast<int>(used[f]), false,
                                  implementation::reference, output_kind::hard, schedule));
      const std::vector<float> one(batch.llr.begin() + f * 256, batch.llr.begin() + (f + 1) * 256);
      const auto alone = test::decode_bits(fixed, one);
      ASSERT_TRUE(std::equal(alone.begin(), alone.end(), bits.begin() + f * 128))
          << name_of(schedule) << " frame " << f;
    }
    EXPECT_GE(fewer, frames * 9 / 10) << name_of(schedule);
  }
}

// A stop ends a BP call between iterations (gpufec::stopped) on both paths; a token not requested
// changes nothing.
TEST(PolarBp, AStopEndsTheCallBetweenIterations) {
  const polar_code code(1024, 512);
  const auto batch = test::make_batch(code, 20, 2.0, 41);
  std::atomic<bool> flag{true};
  const stop_token requested(&flag, stop_token::clock::time_point::max());
  std::atomic<bool> idle{false};
  const stop_token quiet(&idle, stop_token::clock::time_point::max());
  for (auto path : {implementation::reference, implementation::fast}) {
    decoder_plan plan(code, bp(update_rule::min_sum, 10, false, path), backend::cpu, 20);
    std::vector<std::uint8_t> bits(20 * 512);
    const auto in = batch_view<float>::uniform(batch.llr.data(), 20, 1024);
    const auto out = batch_span<std::uint8_t>::uniform(bits.data(), 20, 512);
    EXPECT_THROW(plan.decode(in, out, {}, requested), stopped) << name_of(path);
    plan.decode(in, out, {}, quiet);
    EXPECT_EQ(bits, test::decode_bits(plan, batch.llr)) << name_of(path);
  }
}

}  // namespace
}  // namespace gpufec::polar
