// What both CUDA Viterbi kernels (shared_kernel.cuh: one warp per tile, metrics in shared memory;
// register_kernel.cuh: one thread per tile, metrics in registers) read: the frame and tile
// geometry of tiling.hpp and the puncturing tables. Plain data, filled once by the engine.
//
// A "frame" is either a frame of a batch (grid = 0, open_start = false) or a window of a
// continuous stream (stream_tiles.hpp): its tiles then decode [grid + i f, grid + (i+1) f) of the
// window, and open_start says the window begins inside the stream, so no tile knows its start
// state. Either way tile i runs [first - v1, last + v2] clipped to [0, N), as tiling.hpp says.
#pragma once

#include <cstdint>

#include "gpufec/common/hd.hpp"

namespace gpufec::conv::detail {

struct tiled_params {
  const std::int8_t* llr;  // [frame][coded_bits]
  std::uint8_t* bits;      // [frame][info_bits]
  unsigned long long frames;
  unsigned tiles_per_frame;
  unsigned N, info_bits, coded_bits;  // stages, outputs and inputs per frame
  unsigned f, v1, v2, sub;            // sub: stages per traceback subframe (f when f0 = 0)
  int S, words, beta, labels, period, sent_per_period;
  bool circle, zero_tail;
  unsigned grid;          // window stage where tile 0's decoded part begins (0 for frames)
  bool open_start;        // the window begins inside a stream: stage 0 is not the known start
  const int* phase_base;  // [P]: values sent before phase p within a period
  const std::uint8_t* phase_mask;   // [P]: bit b set when stream b is sent at phase p
  const std::uint8_t* pair_labels;  // [S]: label(j >> 1, j & 1) | label((j >> 1) + S/2, j & 1) << 4
  const std::uint8_t* parity;       // [S]: feedback parity (input bit = register bit ^ parity)
  unsigned dtab_bytes, surv_bytes, pm_bytes, slot_bytes;  // shared-memory kernel: a warp's slot
  unsigned ring;  // register kernel: survivor stages kept per thread
  // 1, read at run time: the register kernel multiplies by it so that the compiler issues its
  // decision sums as multiply-adds (FMA pipe) instead of adds (the ALU pipe, which bounds it).
  unsigned unit = 1;
  // The register kernel's test switches for unpunctured codes, 0 in use (a plan takes
  // them from decoder_options::cuda_test): bit 0 makes the kernels with decision sums
  // (rate 1/3, K = 9) decide the warm-up cycles too (the tagged ones always do), bit 1 makes the
  // walks keep the history all the way; neither may change a decided bit (the
  // ConvCuda test RegisterKernelSavingsChangeNoBit). They also fix the schedule: built without
  // them, the same kernel ran 1-2% slower (ptxas ordered its cycle loop differently;
  // bench/RESULTS.md).
  unsigned checks = 0;
};

// The register kernel's shared memory per thread, in words: its ring of ring_slots stages of
// `words` words plus one slot of padding, so that the rows of a warp's threads start on
// different banks (ring_slots, whole cycles of K-1, is even: ring_slots + 1 is odd).
GPUFEC_HD constexpr unsigned ring_row_words(unsigned ring_slots, unsigned words) {
  return (ring_slots + 1) * words;
}

}  // namespace gpufec::conv::detail
