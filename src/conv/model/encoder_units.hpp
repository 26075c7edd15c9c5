// The convolutional encoder as independent units of work, for the CUDA encoder
// (cuda/device_encoder.cu) and its host tests: coded bit r of a frame depends only on the frame's
// register bits and its start state, so a GPU thread per coded bit computes what encoder::encode
// writes there. Two units:
// - frame_start: a frame's start state (register bits before stage 0; bit i-1 holds the bit i
//   stages back) and, for a recursive code, its register bits w_t (the sequential part: the
//   feedback);
// - coded_bit: sent bit r of a frame, the parity of the taps of its stream on the register bits
//   around its stage (the tail's register bits are 0, the start state's lie before stage 0).
// The puncturing maps r to (stage, stream) through one period's table: r = q S + i (S bits sent
// per period P), stage q P + (slot[i] >> 2), stream slot[i] & 3.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpufec/common/hd.hpp"
#include "gpufec/conv/encoder.hpp"

namespace gpufec::conv::detail {

// What the units read of an encoder (plain data, passed to kernels by value).
struct encoder_units {
  std::uint32_t taps[conv_code::max_beta] = {};  // stream b: bit i taps the register bit i back
  unsigned memory = 0;                           // K - 1
  unsigned period = 1, sent_per_period = 1;      // P, S
  std::uint64_t info_bits = 0, coded_bits = 0;   // per frame
  bool recursive = false, tail_biting = false;
};

// The units' description of `e`, and one period's slots (slot[i] = stage offset << 2 | stream).
encoder_units make_encoder_units(const encoder& e);
std::vector<std::uint32_t> puncture_slots(const encoder& e);
// [s]: the feedback's parity in state s (0 for a feedforward code): w = u ^ parity[s].
std::vector<std::uint8_t> feedback_parities(const encoder& e);

// The start state of a frame of u.info_bits inputs `info`; for a recursive code also writes its
// register bits into `w` (info_bits of them). `parity`: feedback_parities; `tailbiting_start`:
// encoder::tailbiting_starts (read for tail-biting recursive codes only).
GPUFEC_HD_INLINE unsigned frame_start(const encoder_units& u, const std::uint8_t* info,
                                      const std::uint8_t* parity,
                                      const std::uint16_t* tailbiting_start, std::uint8_t* w) {
  const unsigned mask = (1u << u.memory) - 1;
  const std::uint64_t N = u.info_bits;
  unsigned start = 0;
  if (!u.recursive) {
    // The register holds the inputs: a tail-biting frame starts with its last K-1.
    if (u.tail_biting)
      for (unsigned j = 1; j <= u.memory; ++j) start |= (info[N - j] & 1u) << (j - 1);
    return start;
  }
  if (u.tail_biting) {  // the end state from state 0 names the start state (encoder.hpp)
    unsigned s = 0;
    for (std::uint64_t t = 0; t < N; ++t) s = ((s << 1) | ((info[t] & 1u) ^ parity[s])) & mask;
    start = tailbiting_start[s];
  }
  unsigned s = start;
  for (std::uint64_t t = 0; t < N; ++t) {
    const unsigned bit = (info[t] & 1u) ^ parity[s];
    w[t] = static_cast<std::uint8_t>(bit);
    s = ((s << 1) | bit) & mask;
  }
  return start;
}

// Sent bit r of a frame whose register bits are w (the inputs, for a feedforward code) and whose
// start state is `start`. Index: the integer type of r and of the stage (32 bits where the frame
// allows: a GPU divides those faster).
template <class Index>
GPUFEC_HD_INLINE std::uint8_t coded_bit(const encoder_units& u, const std::uint32_t* slots,
                                        const std::uint8_t* w, unsigned start, Index r) {
  const Index q = r / u.sent_per_period;
  const std::uint32_t slot = slots[r - q * u.sent_per_period];
  const Index t = q * u.period + (slot >> 2);
  const std::uint32_t taps = u.taps[slot & 3];
  unsigned parity = 0;
  for (unsigned i = 0; i <= u.memory; ++i) {
    if (!((taps >> i) & 1u)) continue;
    unsigned bit;
    if (t < i)
      bit = start >> (i - 1 - t);  // before stage 0: the start state's bit (i - t) back
    else if (t - i >= u.info_bits)
      bit = 0;  // the tail
    else
      bit = w[t - i];
    parity ^= bit;
  }
  return static_cast<std::uint8_t>(parity & 1u);
}

}  // namespace gpufec::conv::detail
