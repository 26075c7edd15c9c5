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

#include "conv/cpu/fast_kernel.hpp"
#include "gpufec/common/stop_token.hpp"
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
  // The same for two frames into rows of two_frame_row(layout()): frame 0's table, then frame 1's.
  void branch_tables_two(const std::int8_t* llr0, const std::int8_t* llr1, std::size_t stages,
                         std::int16_t* tables) const;
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
  // frame 0's table then frame 1's (branch_tables with that stride). `walk`, if given, takes up to
  // `stages` steps back alongside.
  bool two_frames() const { return shape_.two_frames; }
  void forward_two(std::int16_t* const metric[2], const std::int16_t* tables, std::size_t stages,
                   std::uint8_t* const rows[2], survivor_walk* walk = nullptr) const;
  // A walk back from `state` after `stages` stages of two frames' rows, writing each stage's
  // register bit to bits[f][t] (feedforward codes); finish_walk takes the steps it has left.
  survivor_walk start_walk(const std::uint8_t* const rows[2], std::size_t stages,
                           const unsigned state[2], std::uint8_t* const bits[2]) const;
  void finish_walk(survivor_walk& walk) const;

 private:
  conv_code code_;
  simd_shape shape_;
  branch_layout layout_ = branch_layout::half;
  std::size_t row_bytes_ = 1;
  std::int16_t excluded_ = 0;
  std::vector<std::int16_t> lane_index_, lane_sign_;
  std::vector<std::uint8_t> feedback_parity_;  // [S]: input bit = register bit XOR this
};

// Scratch for decoding one frame of one shape.
struct fast_slot {
  std::vector<std::int8_t> received;     // the frame's LLRs as int8 (float and hard inputs)
  std::vector<std::int8_t> depunctured;  // [stages][beta], punctured codes only
  std::vector<std::uint8_t> rows;        // [stages + 2W][row_bytes] + 8 bytes of slack
  std::vector<std::int16_t> metric;      // [S]
  std::vector<std::uint8_t> walked;      // [stages + 2W]: a walk's register bits, every stage
};
// Scratch for one thread, made at plan time: up to four frames' worth (a pair being decoded while
// the previous pair is traced back; make_scratch makes the slots a run can use), and the branch
// tables of one chunk of stages (made chunk by chunk, so they stay in the L1 cache).
struct fast_scratch {
  fast_slot slot[4];
  std::vector<std::int16_t> tables;  // [chunk][two_frame_row]
};

class fast_frame_decoder {
 public:
  fast_frame_decoder(const fast_trellis& trellis, const puncture_pattern& pattern,
                     const frame_shape& shape, termination term, std::size_t wrap_stages);
  // Scratch for one thread decoding runs of at most `run` frames: the slots' buffers are made on
  // first use (a slot holds a frame's survivors, 2^(K-1) bits a stage: large for a long frame).
  // scratch_bytes: what the slots such runs use come to (a slot for one frame, a pair for runs of
  // 2 or 3, two pairs beyond).
  fast_scratch make_scratch(std::size_t run) const;
  std::size_t scratch_bytes(std::size_t run) const;
  // One frame of int8 LLRs (shape.coded_bits values, sizes checked by the caller). Throws
  // gpufec::stopped when `stop` is requested (checked every kStopCheckStages stages).
  void decode(std::span<const std::int8_t> received, std::span<std::uint8_t> bits,
              fast_scratch& scratch, const stop_token& stop = {}) const;
  // Frames 0..n-1 of a run: input(f, buffer) returns frame f's int8 LLRs (the caller's own, or
  // `buffer` after converting into it), output(f) its bits. With the two-frame kernel, frames go
  // in pairs and each pair's traceback is walked alongside the next pair's ACS (the last pair's
  // alone); an odd last frame goes alone. The same bits as decode() frame by frame.
  template <class Input, class Output>
  void decode_run(std::size_t n, Input&& input, Output&& output, fast_scratch& scratch,
                  const stop_token& stop = {}) const {
    if (!trellis_->two_frames() || n == 1) {
      for (std::size_t f = 0; f < n; ++f)
        decode(input(f, scratch.slot[0].received), output(f), scratch, stop);
      return;
    }
    survivor_walk walk;
    std::uint8_t* walk_out[2] = {nullptr, nullptr};  // where the pair being walked goes
    const fast_slot* walk_slots[2] = {nullptr, nullptr};
    std::size_t f = 0;
    for (int half = 0; f + 2 <= n; f += 2, half ^= 1) {
      fast_slot& a = scratch.slot[2 * half];
      fast_slot& b = scratch.slot[2 * half + 1];
      const std::span<const std::int8_t> received0 = input(f, a.received);
      const std::span<const std::int8_t> received1 = input(f + 1, b.received);
      forward_pair(received0, received1, a, b, scratch, walk_out[0] ? &walk : nullptr, stop);
      if (walk_out[0]) release(walk, walk_slots, walk_out);  // walked alongside this pair's ACS
      walk = pair_walk(a, b);
      walk_slots[0] = &a;
      walk_slots[1] = &b;
      walk_out[0] = output(f).data();
      walk_out[1] = output(f + 1).data();
    }
    if (walk_out[0]) release(walk, walk_slots, walk_out);
    if (f < n) decode(input(f, scratch.slot[0].received), output(f), scratch, stop);
  }

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
  // The same for two frames, in rows of two_frame_row(layout()) (tables for the two-frame kernel).
  void tables_for_two(const std::int8_t* llr0, const std::int8_t* llr1, std::size_t first,
                      std::size_t count, std::int16_t* tables) const;
  unsigned end_state(const std::int16_t* metric) const;
  // Sizes a slot's buffers on its first use.
  void ready(fast_slot& slot) const;
  // The ACS of two frames into slots a and b, with `walk` (if any) walked alongside.
  void forward_pair(std::span<const std::int8_t> received0, std::span<const std::int8_t> received1,
                    fast_slot& a, fast_slot& b, fast_scratch& scratch, survivor_walk* walk,
                    const stop_token& stop) const;
  // The walk back through a pair just decoded into slots a and b (into their `walked` bits).
  survivor_walk pair_walk(fast_slot& a, fast_slot& b) const;
  // Finishes `walk` and copies the frames' information bits to `out`: the input bits of stages
  // [W, W + N) (a recursive code's corrected by the feedback parity of each predecessor).
  void release(survivor_walk& walk, const fast_slot* const slots[2],
               std::uint8_t* const out[2]) const;
  frame_shape shape_;
  termination term_;
  std::size_t wrap_;
};

}  // namespace gpufec::conv::detail
