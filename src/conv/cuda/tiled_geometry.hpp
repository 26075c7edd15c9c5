// What the CUDA tiled kernels' parameters (tiled_params.cuh) say of the code, the frames and the
// tile, computed in plain C++ so that any build has it: the engine (tiled_engine.cu) uploads the
// tables and adds the device's part, and the register kernel's host emulation (tests/conv) runs
// the kernel on the same parameters.
#pragma once

#include <cstdint>
#include <vector>

#include "conv/cuda/kernels/tiled_params.cuh"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv::detail {

// Per phase of the puncturing period: the values sent before it in the period, and the streams
// it sends (bit b: stream b).
struct puncture_tables {
  std::vector<int> phase_base;
  std::vector<std::uint8_t> phase_mask;
};
puncture_tables make_puncture_tables(const conv_code& code, const puncture_pattern& pattern);

// The frame and tile geometry of `p`: stages, sizes, tiles per frame, f, v1, v2, the subframe, the
// code's states and beta, the puncturing period, the termination; a frame's grid (0, its start
// known unless it is a circle). The tables' pointers, the frames and the buffers are the caller's.
void set_frame_geometry(tiled_params& p, const conv_code& code, const puncture_pattern& pattern,
                        const frame_shape& shape, termination term, const tile_shape& tile);

// The register kernel's ring, in stages per thread, for `tile` on frames of `shape`: a subframe
// and its convergence stages, less the K-1 at its bottom that its traceback does not read
// (register_traceback.cuh), or less where no tile of these frames runs that long; whole cycles.
unsigned register_ring(const tile_shape& tile, const frame_shape& shape, bool circle, int K,
                       std::size_t cycle);

}  // namespace gpufec::conv::detail
