// The reference Viterbi decoder: exact maximum-likelihood decoding of whole frames with full
// traceback, in double or float path metrics, from float LLRs, int8 LLRs or hard bits. It is kept
// simple and obviously correct because it is the oracle for every faster decoder.
//
// Metrics (the paper's Eq. 2-4): a branch with output label o at a stage with LLRs L_b (positive
// means bit 0; a punctured position has L = 0) scores delta = sum_b (1 - 2 o_b) L_b, the
// log-likelihood of the label up to a constant; a path's metric is the sum of its branches and
// the decoder maximizes it. Hard bits are LLRs +1 (bit 0) and -1 (bit 1), so the decoder
// minimizes the Hamming distance. int8 LLRs enter as their integer values (-128 included).
//
// Ties: each add-compare-select keeps the predecessor whose oldest register bit is 0 unless the
// other is strictly better; the best end state is the lowest-numbered among equals. The fast
// decoder follows the same two rules, so even ties mostly decide alike.
//
// Terminations: zero-tail starts and ends in state 0; truncated starts in 0 and ends in the best
// state; tail-biting uses the wrap-around method: the trellis runs over W stages copied cyclically
// from the frame's end, the frame, and W stages copied from its start, from all states at metric
// 0, then traces back from the best end state and keeps the middle. That is not exactly ML;
// ml_tailbiting_decode is (one Viterbi pass per start state) and the tests compare both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpufec/common/stop_token.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/puncture.hpp"

namespace gpufec::conv {

enum class metric_type { f64, f32 };

// Traceback depth for a code under a pattern: 2.5 K / (1 - R) stages, the rule of thumb of 5K at
// rate 1/2 stretched for punctured codes, whose stages carry fewer coded bits (docs/conv.md
// measures it). The stream decoder's decision delay, and W for tail-biting on each side.
std::size_t default_traceback_depth(const conv_code& code, const puncture_pattern& pattern);

struct reference_options {
  metric_type metric = metric_type::f64;
  std::size_t wrap_stages = 0;  // tail-biting: W on each side; 0 = default_traceback_depth
};

class reference_decoder {
 public:
  reference_decoder(const conv_code& code, const puncture_pattern& pattern, std::size_t info_bits,
                    termination term, const reference_options& options = {});

  const frame_shape& shape() const { return shape_; }
  // W, the wrap-around stages on each side of a tail-biting frame (0 otherwise).
  std::size_t wrap_stages() const { return wrap_; }

  // One frame of shape().coded_bits received values -> shape().info_bits decided bits. Throws
  // invalid_argument for a wrong count or an LLR that is NaN or infinite, and gpufec::stopped
  // when `stop` is requested (checked every few thousand stages of a long frame).
  void decode(std::span<const float> llrs, std::span<std::uint8_t> bits,
              const stop_token& stop = {});
  void decode(std::span<const std::int8_t> llrs, std::span<std::uint8_t> bits,
              const stop_token& stop = {});
  // Hard decisions (0/1; any non-zero value is 1).
  void decode_hard(std::span<const std::uint8_t> hard, std::span<std::uint8_t> bits,
                   const stop_token& stop = {});

 private:
  void decode_depunctured(std::span<std::uint8_t> bits, const stop_token& stop);

  conv_code code_;
  puncture_pattern pattern_;
  termination term_;
  frame_shape shape_;
  metric_type metric_;
  std::size_t wrap_ = 0;
  std::vector<double> llr_;           // [stage][b] of the frame, depunctured
  std::vector<double> extended_llr_;  // tail-biting: W + stages + W stages
  // [stage][state], made by the first decode, not zeroed (the forward pass writes it all).
  std::unique_ptr<std::uint8_t[]> decisions_;
  // Path metrics, made once so that decode allocates nothing.
  std::vector<double> metric_f64_, next_f64_;
  std::vector<float> metric_f32_, next_f32_;
};

// Exact maximum-likelihood decoding of a tail-biting frame: a Viterbi pass from and to each of the
// 2^(K-1) states, the best (lowest state on ties) wins. 2^(K-1) times the work: for tests and
// tiny frames. `llrs` holds the frame's coded_bits received LLRs.
std::vector<std::uint8_t> ml_tailbiting_decode(const conv_code& code,
                                               const puncture_pattern& pattern,
                                               std::span<const float> llrs);

}  // namespace gpufec::conv

template <>
struct gpufec::enum_names<gpufec::conv::metric_type> {
  static constexpr std::array entries{
      enum_entry{conv::metric_type::f64, "double"},
      enum_entry{conv::metric_type::f32, "float"},
  };
};
