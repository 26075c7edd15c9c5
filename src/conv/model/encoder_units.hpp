// The convolutional encoder as independent units of work, for the CUDA encoder
// (cuda/device_encoder.cu) and its host tests: the sent bits of 32 stages of a frame depend only
// on the register bits of those stages, the K-1 before them and the frame's start state, so a GPU
// thread per 32 stages finds them, and any thread then writes any sent bit of the frame from them.
// The units:
// - frame_start: a frame's start state (register bits before stage 0; bit i-1 holds the bit i
//   stages back) and, for a recursive code, its register bits w_t (the sequential part: the
//   feedback);
// - register_window: the register bits of stages t0 - (K-1) .. t0 + 31 as one word;
// - stream_words: each stream's parities of stages t0 .. t0 + 31 at once (the XOR of the window
//   shifted by each tap);
// - sent_bit: the r-th bit sent from a stage on, looked up in those words through the puncturing
//   period's slot table (which stage and stream the s-th bit of a period is).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpufec/common/bits.hpp"
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
// [s], s < S: (the phase that sends a period's s-th bit) << 4 | (its stream).
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
  if (t0 + 32 <= u.info_bits && reinterpret_cast<std::uintptr_t>(w + t0) % 8 == 0) {
    // Eight bytes at a time, their low bits gathered by a multiply.
    for (unsigned k = 0; k < 4; ++k) {
      std::uint64_t v;
#ifdef __CUDA_ARCH__
      v = reinterpret_cast<const std::uint64_t*>(w + t0)[k];
#else
      std::memcpy(&v, w + t0 + 8 * k, 8);
#endif
      x |= low_bits_of_bytes(v) << (32 + 8 * k);
    }
  } else {
    for (unsigned k = 0; k < 32 && t0 + k < u.info_bits; ++k)
      x |= static_cast<std::uint64_t>(w[t0 + k] & 1u) << (32 + k);
  }
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

// Each stream's parities of stages t0 .. t0 + 31 from their register window: bit k of
// streams[b] is stream b's bit of stage t0 + k (streams: conv_code::max_beta words).
GPUFEC_HD_INLINE void stream_words(const encoder_units& u, std::uint64_t window,
                                   std::uint32_t* streams) {
  // Every stream slot (those past beta tap nothing), unrolled on the device, so the words stay in
  // registers.
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (unsigned b = 0; b < conv_code::max_beta; ++b) {
    std::uint32_t o = 0;
    for (unsigned i = 0; i <= u.memory; ++i)
      if ((u.taps[b] >> i) & 1u) o ^= static_cast<std::uint32_t>(window >> (32 - i));
    streams[b] = o;
  }
}

// n / d and n % d for a divisor fixed per plan, by a multiply where that is exact: with m =
// ceil(2^32 / d) = (2^32 + e) / d, 0 <= e < d, floor(n m / 2^32) = floor(n / d + n e / (d 2^32))
// is floor(n / d) while n e < 2^32, so for every n < 2^32 / d (here: the bits of one round of
// words, n < 2^17, and d <= exact_limit).
struct small_divisor {
  static constexpr std::uint32_t exact_limit = 1u << 14;
  std::uint32_t d = 1, m = 0;  // m = 0: divide (d = 1, or d beyond exact_limit)

  static small_divisor of(std::uint32_t d) {
    small_divisor s;
    s.d = d;
    if (d > 1 && d <= exact_limit)
      s.m = static_cast<std::uint32_t>(((std::uint64_t{1} << 32) + d - 1) / d);
    return s;
  }
  GPUFEC_HD_INLINE std::uint32_t quotient(std::uint32_t n) const {
    if (m == 0) return n / d;
#ifdef __CUDA_ARCH__
    return __umulhi(n, m);
#else
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * m) >> 32);
#endif
  }
};

// The r-th bit sent from stage t0 on, t0 in phase p0 of the period (r < 2^17 - S): `slots`
// (puncture_slots) names the stage and stream of each of a period's S sent bits, and words[b *
// stride + j] holds stream b's parities of stages t0 + 32 j .. (stream_words).
GPUFEC_HD_INLINE unsigned sent_bit(const encoder_units& u, const std::uint32_t* phases,
                                   const std::uint32_t* slots, const small_divisor& per_period,
                                   unsigned p0, std::uint32_t r, const std::uint32_t* words,
                                   unsigned stride) {
  // Two streams, both sent every stage (rate 1/2 unpunctured, the common case): no table, bit r is
  // stream r mod 2 of stage r / 2 (in the kernel a branch every thread takes alike).
  if (u.period == 1 && u.beta == 2 && u.sent_per_period == 2) {
    const std::uint32_t t = r >> 1;
    return (words[(r & 1u) * stride + (t >> 5)] >> (t & 31u)) & 1u;
  }
  const std::uint32_t n = r + (phases[p0] >> 4);  // counted from the period's first stage
  const std::uint32_t q = per_period.quotient(n);
  const std::uint32_t slot = slots[n - q * u.sent_per_period];
  const std::uint32_t t = q * u.period + (slot >> 4) - p0;  // stages after t0
  return (words[(slot & 15u) * stride + (t >> 5)] >> (t & 31u)) & 1u;
}

}  // namespace gpufec::conv::detail
