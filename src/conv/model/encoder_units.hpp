// The convolutional encoder as independent units of work, for the CUDA encoder
// (cuda/device_encoder.cu) and its host tests: the sent bits of 32 stages of a frame depend only
// on the register bits of those stages, the K-1 before them and the frame's start state, so a GPU
// thread per 32 stages writes what encoder::encode writes there. The units:
// - frame_start: a frame's start state (register bits before stage 0; bit i-1 holds the bit i
//   stages back) and, for a recursive code, its register bits w_t (the sequential part: the
//   feedback);
// - register_window: the register bits of stages t0 - (K-1) .. t0 + 31 as one word;
// - coded_word: the sent bits of stages t0 .. t0 + 31, each stream's parities at once (the XOR of
//   the window shifted by each tap), written in the frame's order through the puncturing period's
//   phase table, where sent_before(t0) says they begin.
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
  unsigned beta = 2, memory = 0;                 // streams, K - 1
  unsigned period = 1, sent_per_period = 1;      // P, S
  std::uint64_t info_bits = 0, stages = 0, coded_bits = 0;  // per frame
  bool recursive = false, tail_biting = false;
};

// The units' description of `e`.
encoder_units make_encoder_units(const encoder& e);
// [p]: (bits sent by phases 0 .. p-1 of a period) << 4 | (streams phase p sends, bit b: stream b).
std::vector<std::uint32_t> puncture_phases(const encoder& e);
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

// Bits sent before stage t (pattern::sent_before).
GPUFEC_HD_INLINE std::uint64_t sent_before(const encoder_units& u, const std::uint32_t* phases,
                                           std::uint64_t t) {
  return (t / u.period) * u.sent_per_period + (phases[t % u.period] >> 4);
}

// Bit 32 + k: the register bit of stage t0 + k (k < 32; 0 in the tail); bit 32 - j: that of stage
// t0 - j (j = 1 .. K-1; the start state's before stage 0). w: the frame's register bits (the
// inputs, for a feedforward code).
GPUFEC_HD_INLINE std::uint64_t register_window(const encoder_units& u, const std::uint8_t* w,
                                               unsigned start, std::uint64_t t0) {
  std::uint64_t x = 0;
  for (unsigned k = 0; k < 32 && t0 + k < u.info_bits; ++k)
    x |= static_cast<std::uint64_t>(w[t0 + k] & 1u) << (32 + k);
  for (unsigned j = 1; j <= u.memory; ++j) {
    unsigned bit;
    if (t0 < j)
      bit = start >> (j - 1 - t0);  // before stage 0: the start state's bit (j - t0) back
    else if (t0 - j >= u.info_bits)
      bit = 0;  // the tail
    else
      bit = w[t0 - j];
    x |= static_cast<std::uint64_t>(bit & 1u) << (32 - j);
  }
  return x;
}

// The sent bits of stages t0 .. t0 + 31 (those before u.stages) from their register window, into
// out[0 ..] in the frame's order (out[0] is coded bit sent_before(t0)); returns how many.
GPUFEC_HD_INLINE unsigned coded_word(const encoder_units& u, const std::uint32_t* phases,
                                     std::uint64_t window, std::uint64_t t0, std::uint8_t* out) {
  std::uint32_t streams[conv_code::max_beta];
  for (unsigned b = 0; b < u.beta; ++b) {
    std::uint32_t o = 0;
    for (unsigned i = 0; i <= u.memory; ++i)
      if ((u.taps[b] >> i) & 1u) o ^= static_cast<std::uint32_t>(window >> (32 - i));
    streams[b] = o;
  }
  const unsigned n = u.stages - t0 < 32 ? static_cast<unsigned>(u.stages - t0) : 32;
  unsigned p = static_cast<unsigned>(t0 % u.period), sent = 0;
  for (unsigned k = 0; k < n; ++k) {
    const unsigned sends = phases[p] & 15u;
    for (unsigned b = 0; b < u.beta; ++b)
      if ((sends >> b) & 1u) out[sent++] = static_cast<std::uint8_t>((streams[b] >> k) & 1u);
    if (++p == u.period) p = 0;
  }
  return sent;
}

}  // namespace gpufec::conv::detail
