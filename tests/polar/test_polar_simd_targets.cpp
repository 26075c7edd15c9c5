// The polar fast paths on every SIMD target this CPU supports (Highway's test mock), not only the
// one dispatch picks here (AVX-512 on CI): SC's hard decisions equal the reference's away from
// ties, BP min-sum's soft outputs equal the reference's bit for bit, and the plan reports the
// target and its fp32 lanes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "common/simd_targets_util.hpp"
#include "polar_test_util.hpp"

namespace gpufec::polar {
namespace {

using gpufec::testing::simd_target_name;
using gpufec::testing::simd_target_override;
using gpufec::testing::simd_targets_to_test;

std::size_t fp32_lanes(std::int64_t target) {
  if (target == HWY_AVX3 || target == HWY_AVX3_DL) return 16;
  if (target == HWY_AVX2) return 8;
  if (target == HWY_SSE4 || target == HWY_SSSE3 || target == HWY_EMU128) return 4;
  return 1;
}

TEST(PolarSimdTargets, FastPathsEqualTheReferenceOnEveryTarget) {
  const polar_code code(256, 128, construction_spec::parse("ga:1.5"));
  const std::size_t frames = 37, N = code.N(), K = code.K();  // not a multiple of the lanes
  const auto batch = test::make_batch(code, frames, 1.5, 31);

  decoder_options sc_ref, sc_soft;
  sc_ref.decoder = sc_soft.decoder = decoder_kind::sc;
  sc_ref.update = sc_soft.update = update_rule::min_sum;
  sc_ref.path = sc_soft.path = implementation::reference;
  sc_soft.output = output_kind::info_llrs;
  decoder_plan reference_sc(code, sc_ref, backend::cpu, frames);
  decoder_plan leaf_sc(code, sc_soft, backend::cpu, frames);
  const auto want_sc = test::decode_bits(reference_sc, batch.llr);
  std::vector<float> leaf(frames * K);
  leaf_sc.decode_soft(batch_view<float>::uniform(batch.llr.data(), frames, N),
                      batch_span<float>::uniform(leaf.data(), frames, K));

  decoder_options bp_ref;
  bp_ref.decoder = decoder_kind::bp;
  bp_ref.update = update_rule::min_sum;
  bp_ref.iterations = 8;
  bp_ref.early_stop = true;
  bp_ref.output = output_kind::codeword_llrs;
  bp_ref.path = implementation::reference;
  decoder_plan reference_bp(code, bp_ref, backend::cpu, frames);
  std::vector<float> want_bp(frames * N);
  std::vector<std::uint32_t> want_it(frames);
  reference_bp.decode_soft(batch_view<float>::uniform(batch.llr.data(), frames, N),
                           batch_span<float>::uniform(want_bp.data(), frames, N), want_it);

  for (const std::int64_t target : simd_targets_to_test()) {
    const std::string name = simd_target_name(target);
    SCOPED_TRACE("SIMD target " + name);
    const simd_target_override use(target);

    decoder_options sc_fast = sc_ref;
    sc_fast.path = implementation::fast;
    decoder_plan fast_sc(code, sc_fast, backend::cpu, frames);
    EXPECT_EQ(fast_sc.summary().simd_target, name);
    EXPECT_EQ(fast_sc.summary().lanes, fp32_lanes(target));
    EXPECT_NE(fast_sc.describe().find(name), std::string::npos) << fast_sc.describe();
    const auto got_sc = test::decode_bits(fast_sc, batch.llr);
    std::size_t compared = 0;
    for (std::size_t f = 0; f < frames; ++f) {
      float nearest = std::numeric_limits<float>::infinity();
      for (std::size_t k = 0; k < K; ++k) nearest = std::min(nearest, std::abs(leaf[f * K + k]));
      if (nearest < 1e-3f) continue;  // a tie: either decision is the reference's
      ++compared;
      EXPECT_TRUE(std::equal(want_sc.begin() + f * K, want_sc.begin() + (f + 1) * K,
                             got_sc.begin() + f * K))
          << "SC frame " << f;
    }
    EXPECT_GE(compared, frames * 9 / 10);

    decoder_options bp_fast = bp_ref;
    bp_fast.path = implementation::fast;
    decoder_plan fast_bp(code, bp_fast, backend::cpu, frames);
    EXPECT_EQ(fast_bp.summary().simd_target, name);
    std::vector<float> got_bp(frames * N);
    std::vector<std::uint32_t> got_it(frames);
    fast_bp.decode_soft(batch_view<float>::uniform(batch.llr.data(), frames, N),
                        batch_span<float>::uniform(got_bp.data(), frames, N), got_it);
    EXPECT_EQ(got_it, want_it);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < got_bp.size(); ++i)
      differing +=
          std::bit_cast<std::uint32_t>(got_bp[i]) != std::bit_cast<std::uint32_t>(want_bp[i]);
    EXPECT_EQ(differing, 0u) << "BP soft outputs that differ";
  }
}

}  // namespace
}  // namespace gpufec::polar
