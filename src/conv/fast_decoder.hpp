// The fast decoder's C++ side: the tables a code needs on the dispatched SIMD target (per-lane
// branch-metric indices), the per-frame driver (int8 LLRs -> branch tables -> SIMD
// add-compare-select -> traceback) and its per-thread scratch. The plan and the stream decoder
// use it; fast_kernel.cpp holds the SIMD code and derives its layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "conv/fast_kernel.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/puncture.hpp"

namespace gpufec::conv::detail {

// Everything about one code on the dispatched target, computed once (plan time).
class fast_trellis {
 public:
  // Throws invalid_argument when the dispatched target has no ACS kernel.
  explicit fast_trellis(const conv_code& code);

  const conv_code& code() const { return code_; }
  const simd_shape& shape() const { return shape_; }
  branch_layout layout() const { return layout_; }
  std::size_t table_entries() const { return detail::table_entries(layout_); }
  std::size_t row_bytes() const { return row_bytes_; }
  // The path metric of states a known start excludes (see the bound in fast_decoder.cpp).
  std::int16_t excluded_metric() const { return excluded_; }
  // "AVX2: int16 path metrics, 16 lanes x 2 butterfly vectors, symmetric butterflies, rate-1/2
  // pair tables, two frames per vector".
  std::string describe() const;

  // The branch-metric tables of `stages` stages from their depunctured LLRs (beta per stage),
  // stage t's table_entries() values at tables + t * stride.
  void branch_tables(const std::int8_t* llr, std::size_t stages, std::int16_t* tables,
                     std::size_t stride) const;
  // Start metrics: state 0 only (others excluded), or all states equal.
  void start_metrics(bool all_states, std::int16_t* metric) const;
  // The state with the best metric, the lowest among equals.
  unsigned best_state(const std::int16_t* metric) const;
  // Traces back from `state` after the last of `stages` stages of survivor rows and writes the
  // input bits of stages [first, first + count) to bits[0, count). Returns the start state.
  unsigned traceback(const std::uint8_t* rows, std::size_t stages, unsigned state,
                     std::size_t first, std::size_t count, std::uint8_t* bits) const;
  // The same for two frames, their walks interleaved in one loop so that their step latencies
  // overlap (K = 7: about 1.1 ns per stage and frame, against 1.0-1.4 for one walk alone).
  void traceback_two(const std::uint8_t* const rows[2], std::size_t stages, const unsigned state[2],
                     std::size_t first, std::size_t count, std::uint8_t* const bits[2]) const;
  // Runs the kernel over `stages` tables from `metric`, writing survivor rows.
  void forward(std::int16_t* metric, const std::int16_t* tables, std::size_t stages,
               std::uint8_t* rows) const;
  // Two frames at once (shape().two_frames): `tables` holds rows of two_frame_row(layout()),
  // frame 0's table then frame 1's (branch_tables with that stride).
  bool two_frames() const { return shape_.two_frames; }
  void forward_two(std::int16_t* const metric[2], const std::int16_t* tables, std::size_t stages,
                   std::uint8_t* const rows[2]) const;

 private:
  conv_code code_;
  simd_shape shape_;
  branch_layout layout_ = branch_layout::half;
  std::size_t row_bytes_ = 1;
  std::int16_t excluded_ = 0;
  std::vector<std::int16_t> lane_index_, lane_sign_;
};

// Scratch for decoding one frame of one shape.
struct fast_slot {
  std::vector<std::int8_t> received;     // the frame's LLRs as int8 (float and hard inputs)
  std::vector<std::int8_t> depunctured;  // [stages][beta], punctured codes only
  std::vector<std::uint8_t> rows;        // [stages + 2W][row_bytes] + 8 bytes of slack
  std::vector<std::int16_t> metric;      // [S]
};
// Scratch for one thread, made at plan time: two frames' worth, and the branch tables of one
// chunk of stages (tables are made chunk by chunk, so they stay in the L1 cache).
struct fast_scratch {
  fast_slot slot[2];
  std::vector<std::int16_t> tables;  // [chunk][two_frame_row]
};

class fast_frame_decoder {
 public:
  fast_frame_decoder(const fast_trellis& trellis, const puncture_pattern& pattern,
                     const frame_shape& shape, termination term, std::size_t wrap_stages);
  fast_scratch make_scratch() const;
  std::size_t scratch_bytes() const;
  // One frame of int8 LLRs (shape.coded_bits values, sizes checked by the caller).
  void decode(std::span<const std::int8_t> received, std::span<std::uint8_t> bits,
              fast_scratch& scratch) const;
  // Two frames at once when the trellis allows it (else one after the other): the same bits.
  void decode_two(std::span<const std::int8_t> received0, std::span<const std::int8_t> received1,
                  std::span<std::uint8_t> bits0, std::span<std::uint8_t> bits1,
                  fast_scratch& scratch) const;

 private:
  const fast_trellis* trellis_;
  puncture_pattern pattern_;
  std::vector<int> gather_;  // [p][b] of a period: index among the period's sent values, or -1
  // The frame's LLRs in stage order (depunctured into `slot` when the pattern punctures).
  const std::int8_t* stage_llrs(std::span<const std::int8_t> received, fast_slot& slot) const;
  // The tables of extended stages [first, first + count) at tables + i * stride (tail-biting:
  // extended stage e is frame stage (e - W) mod N).
  void tables_for(const std::int8_t* llr, std::size_t first, std::size_t count,
                  std::int16_t* tables, std::size_t stride) const;
  unsigned end_state(const std::int16_t* metric) const;
  frame_shape shape_;
  termination term_;
  std::size_t wrap_;
};

}  // namespace gpufec::conv::detail
