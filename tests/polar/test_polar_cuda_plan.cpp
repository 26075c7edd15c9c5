// The CUDA polar BP plan's rules (polar/plan/cuda_plan.hpp), which the engine applies to every
// launch: plain C++, checked here on hand-made plans of both kernels.
#include <gtest/gtest.h>

#include <string>

#include "polar/plan/cuda_plan.hpp"

namespace gpufec::polar::detail {
namespace {

TEST(PolarCudaPlan, ALaunchHasBlocksForItsCodewordsUpToTheGrid) {
  cuda_plan p;  // fp16 register kernel: 4 slots of two codewords a block
  p.registers = true;
  p.lanes = 2;
  p.shape = {512, 128, 4, 30000, 3};
  p.slots = 8;
  p.grid = 396;
  EXPECT_EQ(p.blocks_for(1), 1u);
  EXPECT_EQ(p.blocks_for(8), 1u);
  EXPECT_EQ(p.blocks_for(9), 2u);
  EXPECT_EQ(p.blocks_for(8 * 396), 396u);
  EXPECT_EQ(p.blocks_for(1ull << 40), 396u);  // the persistent grid claims the rest
  EXPECT_EQ(p.blocks_for(0), 1u);
}

TEST(PolarCudaPlan, DescribeSaysWhatRuns) {
  cuda_plan r;
  r.registers = true;
  r.lanes = 2;
  r.shape = {512, 128, 4, 30000, 3};
  r.slots = 8;
  r.grid = 396;
  r.region_bytes = 7000;
  r.registers_per_thread = 96;
  r.chunk_frames = 16384;
  const std::string d = r.describe(1024, 10, true);
  EXPECT_NE(d.find("CUDA BP register kernel (fp16, 2 codewords per register), 128 threads per "
                   "codeword"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("3 boundary columns in shared memory (7000 B per slot), 96 registers"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("grid 396, refill replace; host chunks of 16384 frames"), std::string::npos)
      << d;

  cuda_plan g;
  g.global = true;
  g.shape = {1024, 1024, 1, 48, 1};
  g.slots = 1;
  g.slot_bytes = 123456;
  g.grid = 132;
  const std::string gd = g.describe(1u << 16, 16, false);
  EXPECT_NE(gd.find("memory kernel, messages in global memory (123456 B per codeword), 1024 "
                    "threads per codeword, 1 codewords per block"),
            std::string::npos)
      << gd;
  EXPECT_NE(gd.find("refill block"), std::string::npos) << gd;
}

}  // namespace
}  // namespace gpufec::polar::detail
