// The interface of the fast decoder's SIMD kernels (fast_kernel.cpp, Google Highway, one build per
// instruction set, the best chosen at run time). Plain data in, plain data out: everything about a
// particular code (lane tables, survivor layout) is prepared by fast_decoder.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpufec::conv::detail {

// The vectors the dispatched target uses for a trellis of 2^(K-1) states: path metrics stay in
// natural state order, survivor bit j of a stage's row is the decision of state j (fast_kernel.cpp
// derives both).
struct simd_shape {
  int lanes = 0;  // int16 lanes per vector; 0 when this target has no ACS kernel
  const char* target = "";
};
simd_shape acs_shape(int K);

// Stages of add-compare-select over int16 path metrics. Per stage t the kernel reads 8 int16
// branch-metric table entries at branch_table + 8 t (16-byte aligned) and writes the stage's
// survivor bits (S bits, at least one byte) at survivor_rows + t * row_bytes.
struct acs_call {
  int K = 0;
  bool symmetric = false;                      // the code's butterflies are symmetric
  std::int16_t* path_metric = nullptr;         // [S], in/out
  const std::int16_t* branch_table = nullptr;  // [stages][8]
  std::size_t stages = 0;
  std::uint8_t* survivor_rows = nullptr;  // [stages][row_bytes] (+ 8 bytes of slack)
  std::size_t row_bytes = 0;
  const std::int16_t* lane_index = nullptr;  // symmetric: [S/2]; else [4][S/2]
  const std::int16_t* lane_sign = nullptr;   // general codes: [4][S/2] of 0 or -1
};
void run_acs(const acs_call& call);

// Every `renormalize_every` stages (and at the end of a call) the kernel subtracts the metric of
// state 0 from all: the bound that makes int16 exact is in fast_decoder.cpp.
inline constexpr std::size_t renormalize_every = 16;

// q[i] = round-half-even(clamp(llr[i] * scale, -127, 127)) as int8 (llr finite).
void quantize_llrs(const float* llr, std::size_t n, float scale, std::int8_t* q);
// The sum of |llr[i]| (summed in one order on every target) and the index of the first value
// that is not finite (n if none).
struct llr_scan {
  double sum_abs = 0;
  std::size_t first_not_finite = 0;
};
llr_scan scan_llrs(const float* llr, std::size_t n);

}  // namespace gpufec::conv::detail
