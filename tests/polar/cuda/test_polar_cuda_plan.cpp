// The CUDA polar BP plan on a device (plan_bp_cuda, polar/cuda/bp_plan.cu): the kernel, layout
// and chunks it chooses, and that the decoder's engine runs the plan it describes.
#include <gtest/gtest.h>

#include "gpufec/common/device.hpp"
#include "gpufec/polar/decoder.hpp"
#include "polar/cuda/policy.hpp"
#include "polar/plan/cuda_engine.hpp"

namespace gpufec::polar {
namespace {

using detail::cuda_plan;

decoder_options bp(update_rule update, message_precision precision = message_precision::fp32) {
  decoder_options o;
  o.decoder = decoder_kind::bp;
  o.update = update;
  o.precision = precision;
  o.iterations = 10;
  return o;
}

TEST(PolarCudaPlan, MinSumUpTo2048RunsInRegistersLongerCodesInMemory) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const polar_code code(1024, 512);
  const cuda_plan fp16 = detail::plan_bp_cuda(
      code, bp(update_rule::min_sum, message_precision::fp16), std::size_t{1} << 20);
  EXPECT_TRUE(fp16.registers);
  EXPECT_EQ(fp16.lanes, 2);
  EXPECT_EQ(fp16.shape.Bx, 1024 / 8);
  EXPECT_EQ(fp16.slots, static_cast<unsigned>(fp16.shape.By) * 2);
  EXPECT_EQ(fp16.grid, static_cast<unsigned>(fp16.shape.wave(fp16.sm_count)));
  // Host chunks: at least chunk_waves waves of resident codewords.
  EXPECT_GE(fp16.chunk_frames, policy::chunk_waves * fp16.grid * fp16.slots);
  EXPECT_LE(fp16.device_bytes, fp16.free_memory);
  // ... at most the batch.
  EXPECT_EQ(detail::plan_bp_cuda(code, bp(update_rule::min_sum), 100).chunk_frames, 100u);

  const cuda_plan sp = detail::plan_bp_cuda(code, bp(update_rule::sum_product), 1000);
  EXPECT_FALSE(sp.registers);
  EXPECT_FALSE(sp.global);  // N = 1024 fits shared memory
  EXPECT_EQ(sp.slots, static_cast<unsigned>(sp.shape.By));
  EXPECT_FALSE(sp.poll_stop);

  const polar_code longer(1u << 16, 1u << 15, construction_spec::parse("ga:2"));
  const cuda_plan lg = detail::plan_bp_cuda(longer, bp(update_rule::min_sum), 4);
  EXPECT_FALSE(lg.registers);  // beyond the register kernel's 2048
  EXPECT_TRUE(lg.global);      // 17 columns of 2^16 floats each way: global memory
  EXPECT_TRUE(lg.poll_stop);
  EXPECT_LE(lg.grid, 4u);  // no more slots in flight than the batch
}

TEST(PolarCudaPlan, TheDecoderRunsThePlanItDescribes) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const polar_code code(512, 256);
  const auto o = bp(update_rule::scaled_min_sum);
  const cuda_plan again = detail::plan_bp_cuda(code, o, 5000);
  const decoder_plan plan(code, o, backend::cuda, 5000);
  EXPECT_EQ(plan.summary().preferred_batch, again.chunk_frames);
  EXPECT_EQ(plan.summary().scratch_bytes, again.device_bytes);
  EXPECT_EQ(plan.summary().kernel, again.describe(512, 9, true));
}

}  // namespace
}  // namespace gpufec::polar
