// Frame error rates at the reference points: N = 1024, K = 512, 5G construction,
// BPSK/AWGN, SC at 2.0 and 2.5 dB against the expected 1.0e-1 and 1.6e-2, and BP measured there
// with 10 and 35 iterations (figures printed; docs/polar.md and bench/RESULTS.md record them).
//
// Tolerance: with n frames and true FER p, the error count is binomial; the test accepts the
// measured FER within 4 standard deviations sqrt(p (1 - p) / n) of the expected p (a false alarm
// once in ~16 000 runs; the seed is fixed, so a given build either passes or fails).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "polar_test_util.hpp"

namespace gpufec::polar {
namespace {

double fer(decoder_plan& plan, const test::noisy_batch& batch, double* mean_iterations = nullptr) {
  std::vector<std::uint32_t> iterations;
  const auto bits = test::decode_bits(plan, batch.llr, &iterations);
  const std::size_t K = plan.code().K(), frames = batch.info.size() / K;
  if (mean_iterations) {
    double sum = 0;
    for (auto i : iterations) sum += i;
    *mean_iterations = sum / frames;
  }
  return static_cast<double>(test::frame_errors(bits, batch.info, K)) / frames;
}

TEST(PolarFer, ScAtTheReferencePoints) {
  const polar_code code(1024, 512);
  struct point {
    double ebn0, expected;
    std::size_t frames;
  };
  for (const point p : {point{2.0, 1.0e-1, 2000}, point{2.5, 1.6e-2, 4000}}) {
    const auto batch = test::make_batch(code, p.frames, p.ebn0, 2024);
    decoder_options o;  // SC, exact f; the fast path gives the reference's decisions (tested)
    decoder_plan plan(code, o, backend::cpu, p.frames);
    const double measured = fer(plan, batch);
    const double tolerance = 4 * std::sqrt(p.expected * (1 - p.expected) / p.frames);
    std::printf("SC N=1024 K=512 5G at %.1f dB: FER %.4f over %zu frames (expected %.3f +- %.4f)\n",
                p.ebn0, measured, p.frames, p.expected, tolerance);
    EXPECT_NEAR(measured, p.expected, tolerance) << p.ebn0 << " dB";
  }
}

TEST(PolarFer, BpWithTenAndThirtyFiveIterations) {
  // Measured, not prescribed: BP with early stopping at 10 and 35 iterations at the same points,
  // the seed's LR sum-product (the same function as the LLR one, 25x faster here) and scaled
  // min-sum (0.9375). Asserted: more iterations never hurt much, and
  // BP at 35 iterations stays within a factor 3 of SC's FER (the "small factor").
  const polar_code code(1024, 512);
  for (double ebn0 : {2.0, 2.5}) {
    const std::size_t frames = 800;
    const auto batch = test::make_batch(code, frames, ebn0, 77);
    decoder_plan sc(code, {}, backend::cpu, frames);
    const double sc_fer = fer(sc, batch);
    for (auto rule : {update_rule::lr_sum_product, update_rule::scaled_min_sum}) {
      double f10 = 0, f35 = 0, it10 = 0, it35 = 0;
      for (int iterations : {10, 35}) {
        decoder_options o;
        o.decoder = decoder_kind::bp;
        o.update = rule;
        o.iterations = iterations;
        o.early_stop = true;
        decoder_plan plan(code, o, backend::cpu, frames);
        (iterations == 10 ? f10 : f35) = fer(plan, batch, iterations == 10 ? &it10 : &it35);
      }
      std::printf(
          "BP %s N=1024 K=512 5G at %.1f dB, %zu frames: FER %.4f (10 it, mean %.2f), "
          "%.4f (35 it, mean %.2f); SC %.4f\n",
          std::string(name_of(rule)).c_str(), ebn0, frames, f10, it10, f35, it35, sc_fer);
      EXPECT_LE(f35, f10 + 0.02) << name_of(rule) << " " << ebn0;
      EXPECT_LE(f35, 3 * sc_fer + 0.01) << name_of(rule) << " " << ebn0;
    }
  }
}

// The BP schedules at N = 1024, K = 512, 5G, plain min-sum, 3 dB, no early stopping. lr-rl (the
// left-to-right sweep first, decisions from the iteration's last messages) is the common schedule:
// an independent implementation of it (Sionna's PolarBPDecoder) gets FER about 0.08 at 10
// iterations. rl-lr wastes the second half of each iteration as far as u is concerned: about 0.12.
// Asserted: lr-rl within the tolerance above of 0.08, and better than rl-lr at 5, 10 and 20
// iterations on the same frames, by McNemar's test: of the frames that one schedule decodes and
// the other does not, lr-rl must win more than 3 standard deviations beyond half (rl-lr does win
// some: the schedules differ frame by frame, lr-rl wins on the whole).
TEST(PolarFer, BpLeftFirstScheduleIsTheCommonOneAndBeatsTheOther) {
  const polar_code code(1024, 512);
  const std::size_t K = 512;
  const auto all = test::make_batch(code, 10000, 3.0, 1031);
  for (int iterations : {5, 10, 20}) {
    // Fewer frames fail at 20 iterations: more frames keep the test's power.
    const std::size_t frames = iterations == 20 ? 10000 : 4000;
    test::noisy_batch batch = all;
    batch.llr.resize(frames * 1024);
    batch.info.resize(frames * K);
    std::vector<std::uint8_t> bits[2];
    for (auto schedule : {bp_schedule::lr_rl, bp_schedule::rl_lr}) {
      decoder_options o;
      o.decoder = decoder_kind::bp;
      o.update = update_rule::min_sum;
      o.iterations = iterations;
      o.schedule = schedule;
      decoder_plan plan(code, o, backend::cpu, frames);
      bits[schedule == bp_schedule::lr_rl ? 0 : 1] = test::decode_bits(plan, batch.llr);
    }
    std::size_t errors[2] = {}, only[2] = {};  // frame errors; frames only this schedule fails
    for (std::size_t f = 0; f < frames; ++f) {
      bool wrong[2];
      for (int k = 0; k < 2; ++k) {
        wrong[k] = !std::equal(bits[k].begin() + f * K, bits[k].begin() + (f + 1) * K,
                               batch.info.begin() + f * K);
        errors[k] += wrong[k];
      }
      if (wrong[0] != wrong[1]) ++only[wrong[0] ? 0 : 1];
    }
    const double fer_lr = static_cast<double>(errors[0]) / frames;
    std::printf(
        "BP min-sum N=1024 K=512 5G at 3.0 dB, %d iterations, %zu frames: FER %.4f (lr-rl) "
        "%.4f (rl-lr); frames only one fails: %zu (lr-rl), %zu (rl-lr)\n",
        iterations, frames, fer_lr, static_cast<double>(errors[1]) / frames, only[0], only[1]);
    const double discordant = static_cast<double>(only[0] + only[1]);
    EXPECT_GT(static_cast<double>(only[1]) - static_cast<double>(only[0]),
              3 * std::sqrt(discordant))
        << iterations << " iterations";
    if (iterations == 10) {
      EXPECT_NEAR(fer_lr, 0.08, 4 * std::sqrt(0.08 * 0.92 / frames));
    }
  }
}

}  // namespace
}  // namespace gpufec::polar
