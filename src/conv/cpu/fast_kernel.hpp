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
  int lanes = 0;            // int16 lanes per vector; 0 when this target has no ACS kernel
  bool two_frames = false;  // run_acs_two_frames is available (256-bit vectors, K >= 5)
  const char* target = "";
};
simd_shape acs_shape(int K);

// How a stage's branch metrics reach the kernel (fast_kernel.cpp derives the three):
// - pair: rate 1/2 with symmetric butterflies; 4 int16 per stage, [d(00), d(11), d(01), d(10)]
//   (d(o) = delta of label o), made in SIMD by pair_tables;
// - full: beta = 3 with symmetric butterflies; 8 int16 per stage, d(o) for o = 0..7;
// - half: any code; 8 int16 per stage, d(o) for the labels whose last bit is 0 (the others are
//   their negations, Eq. 8), four lookups and signs per butterfly.
enum class branch_layout { pair, full, half };
inline constexpr std::size_t table_entries(branch_layout l) {
  return l == branch_layout::pair ? 4 : 8;
}
inline constexpr std::size_t two_frame_row(branch_layout l) {
  return 2 * table_entries(l);
}

// Stages of add-compare-select over int16 path metrics. Per stage t the kernel reads
// table_entries(layout) int16 at branch_table + t * table_entries(layout) and writes the stage's
// survivor bits (S bits, at least one byte) at survivor_rows + t * row_bytes.
struct acs_call {
  int K = 0;
  branch_layout layout = branch_layout::half;
  std::int16_t* path_metric = nullptr;         // [S], in/out
  const std::int16_t* branch_table = nullptr;  // [stages][table_entries(layout)]
  std::size_t stages = 0;
  std::uint8_t* survivor_rows = nullptr;  // [stages][row_bytes] (+ 8 bytes of slack)
  std::size_t row_bytes = 0;
  const std::int16_t* lane_index = nullptr;  // pair, full: [S/2]; half: [4][S/2]
  const std::int16_t* lane_sign = nullptr;   // half: [4][S/2] of 0 or -1
};
void run_acs(const acs_call& call);

// Two frames of equal length at once, one per 128-bit block (fast_kernel.cpp): the same
// decisions as two run_acs calls. Per stage the table row holds frame 0's table, then frame 1's:
// two_frame_row(layout) int16.
// A traceback that walks alongside a two-frame ACS call, one step back per stage forward: two
// earlier frames' walks through their survivor rows (feedforward codes, S <= 64: a row is read as
// one 64-bit word). The walk is scalar integer work and the ACS vector work, so the core runs
// them side by side. Each step writes the register bit of every stage it passes (the caller keeps
// the stages it wants), so the walk needs no bounds in the loop.
struct survivor_walk {
  const std::uint8_t* row[2] = {nullptr, nullptr};  // the next row to read, walking down
  std::uint8_t* bit[2] = {nullptr, nullptr};        // where the next step writes, walking down
  unsigned state[2] = {0, 0};                       // the state after the stage of row[f]
  std::size_t steps = 0;                            // steps left
};

struct acs_dual_call {
  int K = 0;
  survivor_walk* walk = nullptr;  // optional; takes min(stages, walk->steps) steps
  branch_layout layout = branch_layout::half;
  std::int16_t* path_metric[2] = {nullptr, nullptr};  // [S] each, in/out
  const std::int16_t* branch_table = nullptr;         // [stages][two_frame_row(layout)]
  std::size_t stages = 0;
  std::uint8_t* survivor_rows[2] = {nullptr, nullptr};  // [stages][row_bytes] each (+ 8 slack)
  std::size_t row_bytes = 0;
  const std::int16_t* lane_index = nullptr;
  const std::int16_t* lane_sign = nullptr;
};
void run_acs_two_frames(const acs_dual_call& call);

// Every `renormalize_every` stages (and at the end of a call) the kernel subtracts the metric of
// state 0 from all: the bound that makes int16 exact is in fast_decoder.cpp.
inline constexpr std::size_t renormalize_every = 16;

// The pair tables of `stages` stages from their depunctured int8 LLR pairs (l0, l1):
// [l0 + l1, -l0 - l1, l1 - l0, l0 - l1] per stage, at tables + t * stride (stride >= 4).
void pair_tables(const std::int8_t* llr_pairs, std::size_t stages, std::int16_t* tables,
                 std::size_t stride);

// The pair tables of two frames' stages, as the two-frame kernel reads them: stage t's row at
// tables + 8 t holds frame 0's four entries, then frame 1's (pair_tables with stride 8, twice).
void pair_tables_two(const std::int8_t* llr_pairs0, const std::int8_t* llr_pairs1,
                     std::size_t stages, std::int16_t* tables);

// q[i] = round-half-even(clamp(llr[i] * scale, -127, 127)) as int8 (llr finite).
void quantize_llrs(const float* llr, std::size_t n, float scale, std::int8_t* q);
// Values per run of scan_llrs's sum.
inline constexpr std::size_t kLlrScanRun = std::size_t{1} << 20;
// The sum of |llr[i]| (summed in one order on every target: blocks of 4096 values, their sums
// added in order within runs of kLlrScanRun values, the runs' sums in order; a range of whole runs
// from a run's start has the sums of the same runs) and the index of the first value that is not
// finite (n if none).
struct llr_scan {
  double sum_abs = 0;
  std::size_t first_not_finite = 0;
};
llr_scan scan_llrs(const float* llr, std::size_t n);

}  // namespace gpufec::conv::detail
