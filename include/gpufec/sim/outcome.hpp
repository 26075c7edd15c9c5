// What one simulated frame came to, and how a decoded frame is scored against what was sent: one
// definition for every family's chain, on the CPU and in CUDA kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpufec/common/hd.hpp"

namespace gpufec::sim {

// 64-bit counts: a frame may hold 2^32 information bits, all of them wrong.
struct frame_outcome {
  std::uint64_t bit_errors = 0;     // information bits in error
  std::uint64_t symbol_errors = 0;  // q-ary message symbols in error (== bit_errors when binary)
  bool undecodable = false;         // the decoder could not decode it (counted as a frame error)
};

GPUFEC_HD_INLINE std::uint32_t popcount32(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__popc(v));
#else
  return static_cast<std::uint32_t>(__builtin_popcount(v));
#endif
}

// Symbol and bit errors of `n` decided symbols against the sent ones; a symbol's bits are the
// bits of its value (bit errors counted only when `bits_per_symbol` > 0; with 0 there is no
// per-bit mapping and bit errors equal symbol errors). Binary families: symbols are bits.
template <class Symbol>
GPUFEC_HD_INLINE frame_outcome score_symbols(const Symbol* decided, const Symbol* sent,
                                             std::size_t n, int bits_per_symbol) {
  frame_outcome o;
  for (std::size_t i = 0; i < n; ++i) {
    if (decided[i] == sent[i]) continue;
    ++o.symbol_errors;
    o.bit_errors += popcount32(static_cast<std::uint32_t>(decided[i] ^ sent[i]));
  }
  if (bits_per_symbol == 0) o.bit_errors = o.symbol_errors;
  return o;
}

// score_symbols for bits (0 or 1 per byte): each differing bit is a bit and a symbol error. A
// loop without a branch, which the compiler vectorizes (the binary chains score every frame).
inline frame_outcome score_bits(const std::uint8_t* decided, const std::uint8_t* sent,
                                std::size_t n) {
  std::uint64_t errors = 0;
  for (std::size_t i = 0; i < n; ++i) errors += (decided[i] ^ sent[i]) & 1u;
  frame_outcome o;
  o.bit_errors = o.symbol_errors = errors;
  return o;
}

}  // namespace gpufec::sim
