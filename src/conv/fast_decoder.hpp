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
  bool symmetric() const { return symmetric_; }
  std::size_t row_bytes() const { return row_bytes_; }
  // The path metric of states a known start excludes (see the bound in fast_decoder.cpp).
  std::int16_t excluded_metric() const { return excluded_; }
  // "AVX2: 16 int16 lanes x 2 butterfly vectors, symmetric butterflies".
  std::string describe() const;

  // Stage t's 8-entry branch-metric table from its beta depunctured LLRs (Eq. 2, 8-9).
  void branch_table(const std::int8_t* llr, std::int16_t* table) const;
  // Start metrics: state 0 only (others excluded), or all states equal.
  void start_metrics(bool all_states, std::int16_t* metric) const;
  // The state with the best metric, the lowest among equals.
  unsigned best_state(const std::int16_t* metric) const;
  // Traces back from `state` after the last of `stages` stages of survivor rows and writes the
  // input bits of stages [first, first + count) to bits[0, count). Returns the start state.
  unsigned traceback(const std::uint8_t* rows, std::size_t stages, unsigned state,
                     std::size_t first, std::size_t count, std::uint8_t* bits) const;
  // Runs the kernel over `stages` tables from `metric`, writing survivor rows.
  void forward(std::int16_t* metric, const std::int16_t* tables, std::size_t stages,
               std::uint8_t* rows) const;

 private:
  conv_code code_;
  simd_shape shape_;
  bool symmetric_ = false;
  std::size_t row_bytes_ = 1;
  std::int16_t excluded_ = 0;
  std::vector<std::int16_t> lane_index_, lane_sign_;
};

// Scratch for decoding frames of one shape: made at plan time, one per thread.
struct fast_scratch {
  std::vector<std::int8_t> received;  // the frame's LLRs as int8 (float and hard inputs)
  std::vector<std::int16_t> tables;   // [stages + 2W][8]
  std::vector<std::uint8_t> rows;     // [stages + 2W][row_bytes] + 8 bytes of slack
  std::vector<std::int16_t> metric;   // [S]
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

 private:
  const fast_trellis* trellis_;
  puncture_pattern pattern_;
  frame_shape shape_;
  termination term_;
  std::size_t wrap_;
};

}  // namespace gpufec::conv::detail
