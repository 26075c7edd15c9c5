// How the register kernel runs on this device (register_shape.cu): its ring of survivors, the
// block shape and residency the plan launches it with, and the tile it runs when a plan is given
// none, fitted to the device and to the plan's batch.
#pragma once

#include <cstddef>

#include "common/cuda/launch_shape.hpp"
#include "common/cuda/occupancy.cuh"
#include "conv/cuda/register_table.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv::detail {

// Warp schedulers per SM: four on every NVIDIA SM since Maxwell (sm_50), Hopper included, each
// issuing for its own share of the SM's resident warps; the runtime reports no count.
inline constexpr int kSchedulersPerSM = 4;

// The register kernel's block and residency with `ring` stages per thread: the block of whole
// warps that keeps the most warps resident per SM in a whole number per scheduler, its shared
// memory padded where the occupancy API would let more in, so that no scheduler runs more warps
// than another (a wave lasts as long as its busiest scheduler: bench/RESULTS.md, 2026-11-27).
// Empty when not even one warp per scheduler fits.
cuda::launch_shape register_residency(const register_kernel_entry& entry, bool punctured,
                                      unsigned ring, const cuda::device_limits& limits);

// Tiles of one wave at `shape` (lanes threads per tile).
std::size_t register_wave_tiles(const register_kernel_entry& entry, const cuda::launch_shape& shape,
                                const cuda::device_limits& limits);

// The tile a plan runs on the register kernel when given none (decoder_options::fit_tile):
// `nominal`'s overlaps (default_tile_shape's), the subframe length f0, a multiple of 4 stages and
// of the cycle from the nominal one down to 36, whose ring keeps the most warps resident
// (register_residency; the longest among equals: fewer traceback steps per decoded bit), and f, a
// multiple of 16 stages and of the cycle, fitted to batches of `frames` frames
// (fitted_tile_length in plan/cuda_engine.hpp); a batch of less than a wave of tiles runs `nominal`
// as it is. K = 7 (171,133) rate 1/2 on an H200 (132 SMs): 64 frames of 2^20 bits (1344, 36, 36,
// 36), 12 warps per SM in one wave; 512 frames (1104, 36, 36, 36).
tile_shape fitted_register_tile(const register_kernel_entry& entry, bool punctured,
                                const tile_shape& nominal, const frame_shape& shape, bool circle,
                                int K, std::size_t frames, const cuda::device_limits& limits);

}  // namespace gpufec::conv::detail
