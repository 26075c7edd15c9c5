// The SC decoders: hand-computed LLRs for N = 4, exhaustive ML on tiny codes, noise-free decoding
// for every construction, N and path, and the fast path against the reference on random inputs.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>

#include "polar_test_util.hpp"

namespace gpufec::polar {
namespace {

decoder_options sc(update_rule rule, implementation path, output_kind out = output_kind::hard) {
  decoder_options o;
  o.decoder = decoder_kind::sc;
  o.update = rule;
  o.path = path;
  o.output = out;
  return o;
}

TEST(PolarSc, HandComputedLlrsN4) {
  // N = 4, no frozen bit (K = 4) so every leaf's LLR is an output; channel L = (1.5, -0.5, 2, 1).
  // Root halves: left gets f(L0, L2), f(L1, L3); its leaves u0 = f(p, q), u1 = q +- p; then the
  // right half gets L2 +- L0, L3 +- L1 by the left half's re-encoded bits (u0 ^ u1, u1).
  const std::uint32_t all[] = {0, 1, 2, 3};
  const auto code = polar_code::from_indices(4, all, index_set::info);
  const std::vector<float> llr{1.5f, -0.5f, 2.0f, 1.0f};
  for (auto rule : {update_rule::sum_product, update_rule::min_sum}) {
    auto f = [&](double a, double b) {
      if (rule == update_rule::min_sum)
        return (a * b < 0 ? -1 : 1) * std::min(std::abs(a), std::abs(b));
      return 2 * std::atanh(std::tanh(a / 2) * std::tanh(b / 2));
    };
    const double p = f(1.5, 2.0), q = f(-0.5, 1.0);
    const double l0 = f(p, q);
    const int u0 = l0 < 0;
    const double l1 = q + (u0 ? -p : p);
    const int u1 = l1 < 0;
    const double r0 = 2.0 + ((u0 ^ u1) ? -1.5 : 1.5), r1 = 1.0 + (u1 ? 0.5 : -0.5);
    const double l2 = f(r0, r1);
    const int u2 = l2 < 0;
    const double l3 = r1 + (u2 ? -r0 : r0);
    decoder_plan plan(code, sc(rule, implementation::reference, output_kind::info_llrs));
    std::vector<float> soft(4);
    plan.decode_soft(batch_view<float>::uniform(llr.data(), 1, 4),
                     batch_span<float>::uniform(soft.data(), 1, 4));
    const double expected[4] = {l0, l1, l2, l3};
    for (int j = 0; j < 4; ++j)
      EXPECT_NEAR(soft[j], expected[j], 1e-5) << name_of(rule) << " u" << j;
  }
}

TEST(PolarSc, AgreesWithExhaustiveMlAtHighSnr) {
  // ML over all 2^K information words maximizes sum_j (1 - 2 x_j) L_j. SC is never better than ML
  // (its codeword's correlation is at most ML's), and at 6 dB they pick the same word in almost
  // every frame: at least 99% of 2000 frames for N = 16, K = 8 and N = 8, K = 4.
  for (std::uint32_t N : {8u, 16u}) {
    const polar_code code(N, N / 2);
    const std::size_t K = code.K(), frames = 2000;
    const auto batch = test::make_batch(code, frames, 6.0, 21);
    decoder_plan plan(code, sc(update_rule::sum_product, implementation::reference), backend::cpu,
                      frames);
    const auto bits = test::decode_bits(plan, batch.llr);
    std::size_t same = 0;
    for (std::size_t f = 0; f < frames; ++f) {
      auto correlation = [&](const std::uint8_t* info) {
        std::vector<std::uint8_t> x(N);
        encode(code, {info, K}, x);
        double c = 0;
        for (std::uint32_t j = 0; j < N; ++j) c += (x[j] ? -1.0 : 1.0) * batch.llr[f * N + j];
        return c;
      };
      double best = -std::numeric_limits<double>::infinity();
      std::vector<std::uint8_t> ml(K), word(K);
      for (unsigned w = 0; w < (1u << K); ++w) {
        for (std::size_t k = 0; k < K; ++k) word[k] = w >> k & 1;
        const double c = correlation(word.data());
        if (c > best) best = c, ml = word;
      }
      const double sc_corr = correlation(bits.data() + f * K);
      ASSERT_LE(sc_corr, best + 1e-9) << "frame " << f;
      same += std::equal(ml.begin(), ml.end(), bits.begin() + f * K);
    }
    EXPECT_GE(same, frames * 99 / 100) << "N = " << N;
  }
}

TEST(PolarSc, NoiseFreeDecodingIsExactForEveryConstructionAndPath) {
  for (std::uint32_t N : {2u, 8u, 64u, 1024u, 4096u}) {
    for (const char* spec : {"5g", "ga:2", "bhatt:1"}) {
      if (std::string(spec) == "5g" && N > 1024) continue;
      for (auto enc : {encoding::non_systematic, encoding::systematic}) {
        const polar_code code(N, std::max(1u, N / 3), construction_spec::parse(spec), enc);
        const auto batch = test::make_batch(code, 11, 0.0, 4, false);
        for (auto rule : {update_rule::sum_product, update_rule::min_sum})
          for (auto path : {implementation::reference, implementation::fast}) {
            decoder_plan plan(code, sc(rule, path), backend::cpu, 11);
            EXPECT_EQ(test::decode_bits(plan, batch.llr), batch.info)
                << code.describe() << " " << name_of(rule) << " " << name_of(path);
          }
      }
    }
  }
}

TEST(PolarSc, FastPathGivesTheReferenceDecisions) {
  // Random AWGN inputs at 1.5 dB (about half the frames in error at N = 1024, so many decisions
  // are hard): the fast path (SIMD over frames, rate-0/rate-1 nodes) must give the reference's
  // bits. Ties are frames where some leaf LLR of the reference lies within 1e-3 of 0; they are
  // left out (and must stay rare, or the test would prove nothing).
  for (std::uint32_t N : {16u, 256u, 1024u, 4096u}) {
    const polar_code code(N, N / 2, construction_spec::parse("ga:1.5"));
    const std::size_t frames = N >= 4096 ? 40 : 203;  // not a multiple of the lanes: padding
    const auto batch = test::make_batch(code, frames, 1.5, 77 + N);
    for (auto rule : {update_rule::min_sum, update_rule::sum_product}) {
      decoder_plan reference(code, sc(rule, implementation::reference, output_kind::info_llrs),
                             backend::cpu, frames);
      std::vector<float> leaf(frames * code.K());
      reference.decode_soft(batch_view<float>::uniform(batch.llr.data(), frames, N),
                            batch_span<float>::uniform(leaf.data(), frames, code.K()));
      decoder_plan ref_hard(code, sc(rule, implementation::reference), backend::cpu, frames);
      decoder_plan fast(code, sc(rule, implementation::fast), backend::cpu, frames);
      const auto want = test::decode_bits(ref_hard, batch.llr);
      const auto got = test::decode_bits(fast, batch.llr);
      std::size_t compared = 0;
      for (std::size_t f = 0; f < frames; ++f) {
        const std::size_t K = code.K();
        float nearest = std::numeric_limits<float>::infinity();
        for (std::size_t k = 0; k < K; ++k) nearest = std::min(nearest, std::abs(leaf[f * K + k]));
        if (nearest < 1e-3f) continue;
        ++compared;
        ASSERT_TRUE(
            std::equal(want.begin() + f * K, want.begin() + (f + 1) * K, got.begin() + f * K))
            << "N " << N << " " << name_of(rule) << " frame " << f;
      }
      EXPECT_GE(compared, frames * 9 / 10) << "N " << N << " " << name_of(rule);
    }
  }
}

// A requested stop ends an SC call between frames on both paths, and a later call on the same plan
// decodes as a fresh one.
TEST(PolarSc, AStopEndsTheCallBetweenFrames) {
  const polar_code code(1024, 512);
  const auto batch = test::make_batch(code, 40, 2.0, 43);
  std::atomic<bool> flag{true};
  const stop_token requested(&flag, stop_token::clock::time_point::max());
  for (auto path : {implementation::reference, implementation::fast}) {
    decoder_plan plan(code, sc(update_rule::min_sum, path), backend::cpu, 40);
    std::vector<std::uint8_t> bits(40 * 512);
    const auto in = batch_view<float>::uniform(batch.llr.data(), 40, 1024);
    const auto out = batch_span<std::uint8_t>::uniform(bits.data(), 40, 512);
    EXPECT_THROW(plan.decode(in, out, {}, requested), stopped) << name_of(path);
    plan.decode(in, out);
    EXPECT_EQ(bits, test::decode_bits(plan, batch.llr)) << name_of(path);
  }
}

}  // namespace
}  // namespace gpufec::polar
