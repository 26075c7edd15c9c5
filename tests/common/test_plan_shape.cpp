// The shape every family's plan shares (docs/architecture.md): a plan asked for automatic says
// where it runs and why, a named backend gives no reason, and every plan says its preferred
// batch, at most its max_batch, in its summary and its description.
#include <gtest/gtest.h>

#include <string>

#include "gpufec/common/device.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/polar/decoder.hpp"
#include "gpufec/sync/decoder.hpp"

namespace gpufec {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PlanShape, ConvPrefersATaskPerThread) {
  const conv::conv_code code(7, {0171, 0133});
  conv::decoder_options o;
  o.threads = 2;
  o.decoder = conv::decoder_kind::fast;
  auto plan = [&](std::size_t max_batch) {
    return conv::decoder_plan(code, conv::puncture_pattern::none(2), 200,
                              conv::termination::zero_tail, o, backend::cpu, max_batch);
  };
  EXPECT_EQ(plan(100).summary().preferred_batch, 32u);  // 2 threads, runs of 16 frames
  EXPECT_EQ(plan(10).summary().preferred_batch, 10u);   // never above max_batch
  EXPECT_TRUE(contains(plan(100).describe(), "preferred batch 32")) << plan(100).describe();
  o.decoder = conv::decoder_kind::reference;
  EXPECT_EQ(plan(100).summary().preferred_batch, 2u);  // a frame per thread
}

TEST(PlanShape, PolarPrefersAVectorOfCodewordsPerThread) {
  const polar::polar_code code(256, 128);
  polar::decoder_options o;
  o.threads = 2;
  o.path = polar::implementation::fast;
  const polar::decoder_plan fast(code, o, backend::cpu, 1000);
  EXPECT_EQ(fast.summary().preferred_batch, 2 * fast.summary().lanes);
  EXPECT_TRUE(contains(fast.describe(), "preferred batch")) << fast.describe();
  EXPECT_EQ(polar::decoder_plan(code, o, backend::cpu, 3).summary().preferred_batch, 3u);
  o.path = polar::implementation::reference;
  EXPECT_EQ(polar::decoder_plan(code, o, backend::cpu, 1000).summary().preferred_batch, 2u);
}

TEST(PlanShape, SyncPrefersAFramePerThreadOnTheCpu) {
  const sync::tvb_code code = sync::tvb_code::random(8, 5, 12, 3);
  const sync::bsid_params ch{0.01, 0.01, 0};
  const sync::decoder_plan plan(code, ch, {}, backend::cpu, 3);
  EXPECT_GE(plan.summary().preferred_batch, 1u);
  EXPECT_LE(plan.summary().preferred_batch, 3u);
  EXPECT_EQ(plan.summary().preferred_batch, plan.summary().chunk);
  EXPECT_TRUE(contains(plan.describe(), "preferred batch")) << plan.describe();
}

// automatic: CUDA exactly when a device is usable and the request runs there, with the reason.
TEST(PlanShape, AutomaticSaysWhyInEveryFamily) {
  const bool gpu = cuda_device_count() > 0;
  const sync::tvb_code code = sync::tvb_code::random(8, 5, 12, 3);
  const backend_choice s = sync::choose_backend(code, {}, backend::automatic);
  EXPECT_EQ(s.where, gpu ? backend::cuda : backend::cpu);
  EXPECT_FALSE(s.reason.empty());
  EXPECT_TRUE(sync::choose_backend(code, {}, backend::cpu).reason.empty());
  polar::decoder_options bp;
  bp.decoder = polar::decoder_kind::bp;
  EXPECT_EQ(polar::choose_backend(bp, backend::automatic).where,
            gpu ? backend::cuda : backend::cpu);
  EXPECT_EQ(polar::choose_backend({}, backend::automatic).reason, "SC runs on the CPU only");
  EXPECT_EQ(conv::choose_backend({}, backend::automatic).where, gpu ? backend::cuda : backend::cpu);
  if (!gpu) {
    EXPECT_TRUE(contains(conv::choose_backend({}, backend::automatic).reason, "CUDA"));
    const sync::decoder_plan plan(code, {0.01, 0.01, 0}, {}, backend::automatic, 1);
    EXPECT_TRUE(contains(plan.describe(), "(auto: ")) << plan.describe();
  }
}

}  // namespace
}  // namespace gpufec
