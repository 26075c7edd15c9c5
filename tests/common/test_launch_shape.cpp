// The chain kernels' 2-D grids (launch_shape::frame_blocks, packed_frame_blocks): the kernels'
// grid-stride loops over frames and items, run here as the device runs them, visit every (frame,
// item) pair exactly once, for short and long frames, few and many frames, any block size; a
// packed grid keeps its threads busy on short frames.
#include <gtest/gtest.h>

#include <vector>

#include "common/cuda/launch_shape.hpp"

namespace gpufec::cuda {
namespace {

// How often each (frame, item) is visited by the loops of a kernel launched on `g`:
// frame = blockIdx.y * ty + threadIdx.y (+ gridDim.y * ty), item = blockIdx.x * tx + threadIdx.x
// (+ gridDim.x * tx).
std::vector<int> visits(const launch_shape::frame_grid& g, unsigned long long items,
                        unsigned long long frames) {
  std::vector<int> seen(items * frames, 0);
  for (unsigned by = 0; by < g.y; ++by)
    for (unsigned bx = 0; bx < g.x; ++bx)
      for (unsigned ty = 0; ty < g.ty; ++ty)
        for (unsigned tx = 0; tx < g.tx; ++tx)
          for (unsigned long long f = by * g.ty + ty; f < frames; f += g.y * g.ty)
            for (unsigned long long i = bx * g.tx + tx; i < items; i += g.x * g.tx)
              ++seen[f * items + i];
  return seen;
}

TEST(LaunchShape, FrameGridsVisitEveryItemOfEveryFrameOnce) {
  for (const int threads : {32, 256, 768, 1024})
    for (const int per_sm : {1, 3})
      for (const unsigned long long items : {1ull, 5ull, 32ull, 33ull, 512ull, 4097ull})
        for (const unsigned long long frames : {1ull, 7ull, 100ull}) {
          const launch_shape shape{threads, threads, 1, 0, per_sm};
          for (const bool packed : {false, true}) {
            const auto g = packed ? shape.packed_frame_blocks(4, items, frames)
                                  : shape.frame_blocks(4, items, frames);
            EXPECT_LE(g.tx * g.ty, static_cast<unsigned>(threads));
            EXPECT_LE(static_cast<long long>(g.x) * g.y, shape.wave(4));
            EXPECT_EQ(visits(g, items, frames), std::vector<int>(items * frames, 1))
                << "threads " << threads << " items " << items << " frames " << frames
                << (packed ? " packed" : "");
          }
        }
}

TEST(LaunchShape, PackedGridsShareBlocksAmongShortFrames) {
  const launch_shape shape{1024, 1024, 1, 0, 2};
  const auto g = shape.packed_frame_blocks(132, 32, 1u << 18);  // K = 1024: 32 source words
  EXPECT_EQ(g.tx, 32u);
  EXPECT_EQ(g.ty, 32u);
  EXPECT_EQ(g.x, 1u);
  EXPECT_EQ(g.y, 264u);                                       // a wave
  const auto one = shape.packed_frame_blocks(132, 5000, 10);  // 120 of 5120 lanes idle
  EXPECT_EQ(one.tx, 1024u);
  EXPECT_EQ(one.ty, 1u);
  EXPECT_EQ(one.x, 5u);
  // 4099 items (the quads of a conv K=7 frame of 8192 bits): rows of 128, 125 lanes idle in 4224,
  // not 1021 in 5120; blocks of 768 threads make rows of 128 too (six a block).
  const auto quads = shape.packed_frame_blocks(132, 4099, 1000);
  EXPECT_EQ(quads.tx, 128u);
  EXPECT_EQ(quads.ty, 8u);
  EXPECT_EQ(quads.x, 33u);
  const launch_shape odd{768, 768, 1, 0, 2};
  const auto six = odd.packed_frame_blocks(132, 4099, 1000);
  EXPECT_EQ(six.tx, 128u);
  EXPECT_EQ(six.ty, 6u);
}

}  // namespace
}  // namespace gpufec::cuda
