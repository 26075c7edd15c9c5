// decoder_plan: options and inputs that must be refused with a message naming what is wrong, the
// CUDA backend (BP only), describe(), and that a frame decodes alike alone and in a batch.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpufec/common/error.hpp"
#include "polar_test_util.hpp"

namespace gpufec::polar {
namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}

decoder_options bp_minsum() {
  decoder_options o;
  o.decoder = decoder_kind::bp;
  o.update = update_rule::min_sum;
  return o;
}

TEST(PolarPlan, RefusesBadOptions) {
  const polar_code code(64, 32);
  decoder_options o;
  o.update = update_rule::lr_sum_product;
  EXPECT_NE(error_of([&] { decoder_plan(code, o); }).find("update = lr"), std::string::npos);
  o = {};
  o.output = output_kind::codeword_llrs;
  EXPECT_NE(error_of([&] { decoder_plan(code, o); }).find("no codeword LLR output"),
            std::string::npos);
  o = bp_minsum();
  o.update = update_rule::scaled_min_sum;
  o.scale = 1.5f;
  EXPECT_NE(error_of([&] { decoder_plan(code, o); }).find("scale = 1.5"), std::string::npos);
  o = bp_minsum();
  o.iterations = 0;
  EXPECT_NE(error_of([&] { decoder_plan(code, o); }).find("iterations = 0"), std::string::npos);
  EXPECT_NE(error_of([&] { decoder_plan(code, {}, backend::cpu, 0); }).find("max_batch = 0"),
            std::string::npos);
  EXPECT_NE(error_of([&] { decoder_plan(code, {}, backend::cuda); }).find("decoder = sc"),
            std::string::npos);
  o = {};
  o.output = output_kind::info_llrs;
  o.path = implementation::fast;
  EXPECT_NE(error_of([&] { decoder_plan(code, o); }).find("hard outputs only"), std::string::npos);
}

// The CUDA kernel and fp16 options: refused on the CPU, and on CUDA where the register kernel
// cannot run them (checked before any device is needed, so these run everywhere).
TEST(PolarPlan, RefusesCudaKernelOptionsItCannotHonour) {
  const polar_code code(64, 32);
  decoder_options o = bp_minsum();
  o.precision = message_precision::fp16;
  EXPECT_NE(error_of([&] { decoder_plan(code, o); }).find("CUDA BP option"), std::string::npos);
  o = bp_minsum();
  o.kernel = cuda_kernel::registers;
  EXPECT_NE(error_of([&] { decoder_plan(code, o); }).find("kernel = registers"), std::string::npos);
  o = bp_minsum();
  o.update = update_rule::sum_product;
  o.precision = message_precision::fp16;
  EXPECT_NE(error_of([&] { decoder_plan(code, o, backend::cuda); }).find("update = sp"),
            std::string::npos);
  o.precision = message_precision::fp32;
  o.kernel = cuda_kernel::registers;
  EXPECT_NE(error_of([&] { decoder_plan(code, o, backend::cuda); }).find("update = sp"),
            std::string::npos);
  o = bp_minsum();
  o.kernel = cuda_kernel::registers;
  EXPECT_NE(
      error_of([&] { decoder_plan(polar_code(4096, 2048), o, backend::cuda); }).find("N = 4096"),
      std::string::npos);
  EXPECT_NE(error_of([&] { decoder_plan(polar_code(4, 2), o, backend::cuda); }).find("N = 4"),
            std::string::npos);
  o.kernel = cuda_kernel::memory;
  o.precision = message_precision::fp16;
  EXPECT_NE(error_of([&] { decoder_plan(code, o, backend::cuda); }).find("kernel = memory"),
            std::string::npos);
}

TEST(PolarPlan, RefusesBadInputBeforeDecoding) {
  const polar_code code(64, 32);
  for (auto path : {implementation::reference, implementation::fast}) {
    auto o = bp_minsum();
    o.path = path;
    decoder_plan plan(code, o, backend::cpu, 4);
    std::vector<float> llr(4 * 64, 1.0f);
    std::vector<std::uint8_t> bits(4 * 32);
    auto run = [&](std::size_t frames, std::size_t length, std::size_t out_stride) {
      return error_of([&] {
        plan.decode(batch_view<float>::uniform(llr.data(), frames, length),
                    batch_span<std::uint8_t>::uniform(bits.data(), frames, out_stride));
      });
    };
    EXPECT_EQ(run(4, 64, 32), "no error");
    EXPECT_NE(run(2, 63, 32).find("N = 64 values (stride = 63)"), std::string::npos);
    EXPECT_NE(run(2, 64, 31).find("stride = 31"), std::string::npos);
    EXPECT_NE(run(5, 64, 32).find("exceeds the plan's max_batch 4"), std::string::npos);
    llr[2 * 64 + 7] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_NE(run(4, 64, 32).find("LLR 7 of frame 2 is nan"), std::string::npos);
    llr[2 * 64 + 7] = -std::numeric_limits<float>::infinity();
    EXPECT_NE(run(4, 64, 32).find("LLR 7 of frame 2 is -inf"), std::string::npos);
    llr[2 * 64 + 7] = 1.0f;
    const std::size_t offsets[] = {0, 64, 128};
    EXPECT_NE(error_of([&] {
                plan.decode(batch_view<float>::ragged(llr.data(), offsets, 2),
                            batch_span<std::uint8_t>::uniform(bits.data(), 2, 32));
              }).find("must be uniform"),
              std::string::npos);
    std::vector<std::uint32_t> iterations(3);
    EXPECT_NE(error_of([&] {
                plan.decode(batch_view<float>::uniform(llr.data(), 4, 64),
                            batch_span<std::uint8_t>::uniform(bits.data(), 4, 32), iterations);
              }).find("iterations has 3 entries for 4 frames"),
              std::string::npos);
    std::vector<float> soft(4 * 32);
    EXPECT_NE(error_of([&] {
                plan.decode_soft(batch_view<float>::uniform(llr.data(), 4, 64),
                                 batch_span<float>::uniform(soft.data(), 4, 32));
              }).find("output is hard"),
              std::string::npos);
  }
}

TEST(PolarPlan, HugeButFiniteLlrsStayFinite) {
  // Inputs near FLT_MAX are clamped (2^100, docs/polar.md): no inf - inf, no NaN anywhere.
  const polar_code code(256, 128);
  auto batch = test::make_batch(code, 8, 2.0, 3);
  for (auto& v : batch.llr) v *= 1e37f;
  for (auto rule : {update_rule::lr_sum_product, update_rule::sum_product, update_rule::min_sum}) {
    auto o = bp_minsum();
    o.update = rule;
    o.output = output_kind::info_llrs;
    decoder_plan plan(code, o, backend::cpu, 8);
    std::vector<float> soft(8 * 128);
    plan.decode_soft(batch_view<float>::uniform(batch.llr.data(), 8, 256),
                     batch_span<float>::uniform(soft.data(), 8, 128));
    for (float v : soft) ASSERT_FALSE(std::isnan(v)) << name_of(rule);
  }
  // Below the clamp, min-sum SC is scale-invariant (f and g are homogeneous): LLRs times 1e20 give
  // the decisions of the original LLRs, every sum staying far below FLT_MAX.
  decoder_options minsum_sc;
  minsum_sc.update = update_rule::min_sum;
  decoder_plan sc(code, minsum_sc, backend::cpu, 8);
  auto scaled = test::make_batch(code, 8, 2.0, 3);
  const auto unscaled_bits = test::decode_bits(sc, scaled.llr);
  for (auto& v : scaled.llr) v *= 1e20f;
  EXPECT_EQ(test::decode_bits(sc, scaled.llr), unscaled_bits);
}

TEST(PolarPlan, AFrameDecodesAloneAsInABatchAndDescribeSaysWhatWasChosen) {
  const polar_code code(512, 256);
  const auto batch = test::make_batch(code, 21, 2.0, 12);
  auto o = bp_minsum();
  o.early_stop = true;
  decoder_plan plan(code, o, backend::cpu, 21);
  std::vector<std::uint32_t> it_batch, it_one;
  const auto all = test::decode_bits(plan, batch.llr, &it_batch);
  for (std::size_t f : {0u, 7u, 20u}) {
    const std::vector<float> one(batch.llr.begin() + f * 512, batch.llr.begin() + (f + 1) * 512);
    const auto alone = test::decode_bits(plan, one, &it_one);
    EXPECT_TRUE(std::equal(alone.begin(), alone.end(), all.begin() + f * 256)) << f;
    EXPECT_EQ(it_one[0], it_batch[f]) << f;
  }
  const std::string text = plan.describe();
  EXPECT_NE(text.find("polar N=512 K=256"), std::string::npos) << text;
  EXPECT_NE(text.find("decoder bp, update minsum, 10 iterations at most"), std::string::npos)
      << text;
  EXPECT_NE(text.find("fast path"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpufec::polar
