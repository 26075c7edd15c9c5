// The CUDA conv plan's rules (conv/plan/cuda_plan.hpp), which the engine applies to every launch
// and the simulator to its batch: plain C++, checked here on hand-made plans of both kernels.
#include <gtest/gtest.h>

#include "conv/cuda/policy.hpp"
#include "conv/plan/cuda_plan.hpp"

namespace gpufec::conv::detail {
namespace {

// K = 9 on the register kernel: four lanes a tile, blocks of 384 threads, 2 per SM on 132 SMs.
cuda_plan register_plan() {
  cuda_plan p;
  p.sm_count = 132;
  p.registers = true;
  p.lanes = 4;
  p.shape = {384, 1, 384, 40000, 2};
  p.params.tiles_per_frame = 7;
  p.params.ring = 60;
  p.resident_tiles = 132 * 2 * 384 / 4;
  p.tile = {1056, 42, 60, 66};
  p.source = cuda_plan::tile_source::fitted;
  p.host_batches = true;
  p.chunk_frames = 12;
  return p;
}

TEST(ConvCudaPlan, ALaunchHasBlocksForItsTilesUpToItsWaves) {
  const cuda_plan r = register_plan();
  EXPECT_EQ(r.blocks_for(1), 1u);
  EXPECT_EQ(r.blocks_for(96), 1u);  // 384 threads run 96 tiles of four lanes
  EXPECT_EQ(r.blocks_for(97), 2u);
  EXPECT_EQ(r.blocks_for(96ull * 1000), 1000u);
  const auto most = static_cast<unsigned>(132 * 2 * policy::launch_waves);
  EXPECT_EQ(r.blocks_for(1ull << 40), most);

  cuda_plan s;  // the shared-memory kernel: a warp a tile, 4 per block
  s.sm_count = 132;
  s.shape = {128, 32, 4, 4 * 22000, 3};
  EXPECT_EQ(s.blocks_for(9), 3u);
  EXPECT_EQ(s.blocks_for(0), 1u);
  EXPECT_EQ(s.blocks_for(1ull << 40), static_cast<unsigned>(132 * 3 * policy::launch_waves));
}

TEST(ConvCudaPlan, ThePreferredBatchFillsItsWaves) {
  cuda_plan p = register_plan();
  p.resident_tiles = 1000;
  const std::size_t waves = policy::preferred_waves;
  EXPECT_EQ(p.preferred_batch(1u << 20), (waves * 1000 + 6) / 7);
  EXPECT_EQ(p.preferred_batch(500), 500u);  // no more than the plan's batch
  EXPECT_EQ(p.preferred_batch(0), 1u);
  p.params.tiles_per_frame = 1u << 20;  // a frame longer than the waves: one frame
  EXPECT_EQ(p.preferred_batch(64), 1u);
}

TEST(ConvCudaPlan, DescribeSaysWhatRuns) {
  cuda_plan p = register_plan();
  const std::string d = p.describe("K=9 (561,753)");
  EXPECT_NE(d.find("registers: four threads per tile, K=9 (561,753) compiled in"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("a ring of 60 survivor stages per thread"), std::string::npos) << d;
  EXPECT_NE(d.find("25344 tiles a wave, tile " + p.tile.to_string() + " (fitted to the batch)"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("host batches in chunks of 12 frames on 2 streams"), std::string::npos) << d;
  p.window_tiles = 50688;
  EXPECT_NE(p.describe("x").find("host frames in windows of 50688 tiles"), std::string::npos);
  p.host_batches = false;  // a stream's engine
  EXPECT_EQ(p.describe("x").find("host"), std::string::npos);

  cuda_plan s;
  s.shape = {128, 32, 4, 88000, 3};
  s.params.slot_bytes = 22000;
  s.tile = {256, 42, 42, 0};
  s.source = cuda_plan::tile_source::kernel_default;
  const std::string sd = s.describe("x");
  EXPECT_NE(sd.find("shared memory: one warp per tile, 4 tiles per block"), std::string::npos)
      << sd;
  EXPECT_NE(sd.find("22000 B of shared memory per tile"), std::string::npos) << sd;
  EXPECT_NE(sd.find("(the kernel's default)"), std::string::npos) << sd;
}

}  // namespace
}  // namespace gpufec::conv::detail
