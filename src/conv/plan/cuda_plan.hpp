// What a plan chose for the CUDA tiled Viterbi engine: the device it planned for, the tile and
// where it came from, the kernel and its launch shape, the tiles one wave holds, and how host
// batches and the device float and hard paths are cut. plan_tiled_cuda() (cuda/tiled_plan.cu)
// computes it once from the device's limits, the occupancy API and conv/cuda/policy.hpp; the
// engine (cuda/tiled_engine.cu) executes it and decides nothing. Plain C++, so every build can
// hold and print it.
#pragma once

#include <cstddef>
#include <string>

#include "common/cuda/launch_shape.hpp"
#include "conv/cuda/kernels/tiled_params.cuh"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv::detail {

struct cuda_plan {
  // The device planned for.
  int sm_count = 0;
  std::size_t shared_optin = 0;  // bytes of shared memory a block may opt in to

  // The tile: the options', the kernel's default, or that default fitted to the device and batch.
  enum class tile_source { options, kernel_default, fitted };
  tile_shape tile;
  tile_source source = tile_source::options;

  // The kernel: the register kernel (`lanes` threads per tile) or the shared-memory kernel (a
  // warp per tile), and what both read of the frames and the tile: the geometry, the register
  // kernel's ring of survivor stages per thread, the shared-memory kernel's slot layout, the test
  // switches (the engine adds the tables' and buffers' pointers).
  bool registers = false;
  int lanes = 1;
  tiled_params params{};
  cuda::launch_shape shape;  // the block the kernel that runs is launched with

  // Tiles resident at once: one wave.
  std::size_t resident_tiles = 0;

  // Host batches (none for a stream's engine, max_batch = 0): chunks of chunk_frames frames on two
  // streams, or, where window_tiles > 0, each frame in windows of window_tiles tiles. A stream's
  // engine: window_tiles is the windows' length unless its caller asks for another.
  bool host_batches = false;
  std::size_t chunk_frames = 0, window_tiles = 0;
  // The device float and hard paths quantize chunks of this many frames.
  std::size_t quantizer_frames = 1;
  // Device memory the engine holds once made: the code's tables and the host pipeline's two lanes
  // (the quantizer's chunks come on the first float or hard device batch).
  std::size_t device_bytes = 0;

  // --- Rules ------------------------------------------------------------------------------------
  // Blocks of a launch over `tiles` tiles: enough for them, at most policy::launch_waves waves.
  unsigned blocks_for(unsigned long long tiles) const;
  // Frames that fill policy::preferred_waves waves of tiles, within [1, max_batch].
  std::size_t preferred_batch(std::size_t max_batch) const;
  // "registers: four threads per tile, ..., block 384 (...), ...; host batches in chunks of ...".
  std::string describe(const std::string& code) const;
};

}  // namespace gpufec::conv::detail
