// The convolutional encoder: information bits -> coded bits, terminated per the mode, then
// punctured; and the sizes of a frame, which every decoder shares with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gpufec/common/batch.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/puncture.hpp"

namespace gpufec::conv {

// The sizes of one frame of `info_bits` information bits.
struct frame_shape {
  std::size_t info_bits = 0;
  std::size_t stages = 0;      // trellis stages: info_bits, plus K-1 with a zero tail
  std::size_t coded_bits = 0;  // bits sent (LLRs received) per frame, after puncturing
};

// Validates the frame length and computes the sizes. Throws invalid_argument naming the field:
// no bits at all; zero-tail frames shorter than K-1 bits (the tail would outweigh the data);
// tail-biting frames shorter than K-1 bits (the start state is made of the frame's last K-1 bits);
// a pattern whose row count is not the code's beta.
frame_shape make_frame_shape(const conv_code& code, const puncture_pattern& pattern,
                             std::size_t info_bits, termination term);

// True when some branches other than state 0's own zero branch form a cycle that sends only zeros
// under the pattern: two different paths then send the same bits forever, so a decoder that does
// not know where they started cannot tell them apart (a catastrophic code, e.g. polynomials 6,5
// at K = 3, or K = 9 (561,753) punctured to 3/4 by the DVB-S pattern, which is made for K = 7).
// Full-frame decoding from a known start state still works; tiles and streams may not.
bool catastrophic(const conv_code& code, const puncture_pattern& pattern);

class encoder {
 public:
  // Throws invalid_argument as make_frame_shape, and for a recursive code whose tail-biting start
  // state is not unique for this frame length (the frame length is a multiple of the feedback's
  // period: no start state, or several, end where they began).
  encoder(const conv_code& code, const puncture_pattern& pattern, std::size_t info_bits,
          termination term);

  const conv_code& code() const { return code_; }
  const puncture_pattern& pattern() const { return pattern_; }
  termination term() const { return term_; }
  const frame_shape& shape() const { return shape_; }

  // One frame: shape().info_bits bits (0/1) -> shape().coded_bits sent bits. Allocates nothing.
  void encode(std::span<const std::uint8_t> info, std::span<std::uint8_t> coded) const;
  // A uniform batch, in parallel over frames (OpenMP).
  void encode(batch_view<std::uint8_t> info, batch_span<std::uint8_t> coded) const;
  // The state a tail-biting frame starts and ends in (0 for the other terminations).
  unsigned start_state(std::span<const std::uint8_t> info) const;
  // Tail-biting: [s] is the start state of a frame that ends in s when started in state 0 (empty
  // for the other terminations).
  std::span<const std::uint16_t> tailbiting_starts() const { return tailbiting_start_; }

 private:
  conv_code code_;
  puncture_pattern pattern_;
  termination term_;
  frame_shape shape_;
  // Tail-biting: the start state x solves end(x) = x, where end(x) = A^N x XOR end(0) is affine
  // over GF(2); tailbiting_start_[end(0)] = x, tabulated once per frame length.
  std::vector<std::uint16_t> tailbiting_start_;
  // Feedforward codes: each stream's taps (bit j: the input j stages back) and the streams each
  // phase of the puncturing period sends (bit b: stream b), for the 64-stage words of
  // encode_words.
  std::vector<std::uint32_t> taps_;
  std::vector<std::uint8_t> phase_sends_;

  // The stage loop, for any code.
  void encode_stages(std::span<const std::uint8_t> info, std::span<std::uint8_t> coded) const;
  // Feedforward codes, 64 stages at a time: each stream's outputs are the XOR of the input
  // word shifted by its taps, then the sent ones are written in stage order.
  void encode_words(std::span<const std::uint8_t> info, std::span<std::uint8_t> coded) const;
};

}  // namespace gpufec::conv
