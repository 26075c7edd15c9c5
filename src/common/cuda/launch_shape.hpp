// One kernel's launch shape as a plan chose it, with the occupancy behind it. Plain C++ (no CUDA
// types), so plans, describe() texts and tests can hold and print shapes in any build; the CUDA
// helpers that compute them are in occupancy.cuh.
#pragma once

#include <cstddef>
#include <string>

namespace gpufec::cuda {

struct launch_shape {
  int threads = 0;         // per block
  int Bx = 0, By = 0;      // a block split as Bx lanes x By rows, for kernels that have one
  std::size_t shared = 0;  // dynamic shared memory per block, bytes
  int blocks_per_sm = 0;   // resident blocks per SM at this shape (occupancy API)

  explicit operator bool() const { return threads > 0; }
  // Blocks resident on the whole device at once (one wave).
  long long wave(int sm_count) const { return static_cast<long long>(sm_count) * blocks_per_sm; }
  // Blocks for a grid-stride loop over `items` (one item per thread): enough for every item, at
  // most one wave (the loop takes the rest), at least one.
  int grid_stride_blocks(int sm_count, unsigned long long items) const;
  // A grid for kernels that stride over frames of `items` each (one per thread): blocks of tx x
  // ty threads, tx along a frame's items and ty frames; x blocks along the items (up to a wave),
  // y along the frames (a wave in all, at most 65535), each at least one.
  struct frame_grid {
    unsigned x = 1, y = 1, tx = 1, ty = 1;
  };
  // Blocks of one frame's items (tx = threads, ty = 1).
  frame_grid frame_blocks(int sm_count, unsigned long long items, unsigned long long frames) const;
  // The same, with blocks shared by several frames when a frame has fewer items than the block
  // has threads (tx the power of two that covers them, ty = threads / tx), and rows narrower
  // than the block (a power of two, at least a warp) where a frame's last row would leave more
  // than 1/32 of its rows' lanes idle.
  frame_grid packed_frame_blocks(int sm_count, unsigned long long items,
                                 unsigned long long frames) const;
};

// "block 256 (32 x 8), shared 4096 B, 3 blocks/SM"
std::string to_string(const launch_shape& s);

}  // namespace gpufec::cuda
