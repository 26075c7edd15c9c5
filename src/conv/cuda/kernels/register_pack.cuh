// The register Viterbi kernel's decision packing (register_kernel.cuh): a stage's decision sums,
// one int16 pair per metric register with the decisions in bits 15 and 31, gathered into the
// stage's W survivor words at the positions register_layout.cuh gives (half_block), which the
// traceback (register_traceback.cuh) reads back. Byte permutes in sign mode gather four decisions
// of two registers, masked merges put them in place. (The instances with decision sums: rate 1/3
// and K = 9. The tagged ones, rate 1/2 on one lane, store fields instead (register_kernel.cuh,
// kTagScale), packed here by pack_fields.)
#pragma once

#include <utility>

#include "conv/cuda/kernels/register_layout.cuh"

namespace gpufec::conv::detail::regs {

// Bytes 1 and 3 of a and b, each replaced by its sign bit repeated (prmt's sign mode), in the
// order of `Order`: kLoHi gives [a1, a3, b1, b3], kHalves [a1, b1, a3, b3].
enum : unsigned { kLoHi = 0xFDB9u, kHalves = 0xFBD9u };
template <unsigned Order>
__device__ __forceinline__ unsigned byte_perm_signs(unsigned a, unsigned b) {
  unsigned r;
#ifdef __CUDA_ARCH__
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "n"(Order));
#else
  // The host emulation (tests/conv/register_kernel_host.hpp): prmt on the host.
  r = 0;
  for (int i = 0; i < 4; ++i) {
    const unsigned pick = (Order >> (4 * i)) & 15u, from = pick & 7u;
    const unsigned byte = ((from < 4 ? a >> (8 * from) : b >> (8 * (from - 4))) & 0xffu);
    r |= (pick & 8u ? (byte & 0x80u ? 0xffu : 0u) : byte) << (8 * i);
  }
#endif
  return r;
}

// A stage's decisions, packed (the layout: register_layout.cuh): bit 15 (31) of z[r]
// is new register r's low (high) half's decision. A byte permute gathers four decisions of two
// registers as sign-repeated bytes and a masked merge puts them in place; so two registers cost
// two instructions (16 or more registers: a tree of bit selects, 7 merges for 8 permutes).
// Phase0: the stage lands in phase 0, whose high halves come "from the upper" (step()); an XOR
// (with 16 or more registers) or the first term's XOR with `flip` inverts them, so that every
// stored bit means "from the lower predecessor".
template <int R, bool Phase0>
__device__ __forceinline__ void pack(const unsigned (&z)[R], unsigned* words) {
  constexpr int bits = R >= 32 ? 5 : R >= 16 ? 4 : R >= 8 ? 3 : R >= 4 ? 2 : 1;
  // (__brev folds on constants; a loop that reverses bits was left as a run-time loop for K = 5.)
  const auto rev = [](int v) {
    return static_cast<int>(__brev(static_cast<unsigned>(v)) >> (32 - bits));
  };
  if constexpr (R >= 16) {
    // Per 16 registers a word [lows of rev 0-7, lows of rev 8-15, highs 0-7, highs 8-15]; with 32
    // registers the two are re-cut into the word of the low halves and that of the high halves.
    // Term k (bit k of every byte wanted) is merged by bit selects, a tree of 7 for 8 terms:
    // select(a, b, M) takes a's bits where M is set and b's elsewhere, so each merge keeps the
    // bits its left side owns and the rest from the right. The phase-0 inversion of the high
    // halves (bytes 2 and 3, then the second word with 32 registers) is one XOR at the end.
    // (In PTX: written in C++, the compiler sees that only bit k of term k survives and turns
    // the tree back into a chain of eight.)
    const auto select = [](unsigned a, unsigned b, unsigned mask) {
      unsigned r;
#ifdef __CUDA_ARCH__
      asm("lop3.b32 %0, %1, %2, %3, 0xE4;" : "=r"(r) : "r"(a), "r"(b), "r"(mask));
#else
      r = (a & mask) | (b & ~mask);
#endif
      return r;
    };
    unsigned acc[R / 16];
#pragma unroll
    for (int m = 0; m < R / 16; ++m) {
      unsigned t[8];
#pragma unroll
      for (int k = 0; k < 8; ++k)
        t[k] = byte_perm_signs<kHalves>(z[rev(16 * m + k)], z[rev(16 * m + 8 + k)]);
      const unsigned low =
          select(select(t[0], t[1], 0x01010101u), select(t[2], t[3], 0x04040404u), 0x03030303u);
      const unsigned high =
          select(select(t[4], t[5], 0x10101010u), select(t[6], t[7], 0x40404040u), 0x30303030u);
      acc[m] = select(low, high, 0x0f0f0f0fu);
    }
    if constexpr (R == 32) {
      words[0] = __byte_perm(acc[0], acc[1], 0x5410);
      words[1] = __byte_perm(acc[0], acc[1], 0x7632) ^ (Phase0 ? ~0u : 0u);
    } else {
      words[0] = acc[0] ^ (Phase0 ? 0xffff0000u : 0u);
    }
  } else {
    // [lows, highs, lows, highs] with the second pair's bits above the first's, then folded.
    constexpr int half = R / 2;
    unsigned flip = 0;
#pragma unroll
    for (int k = 0; k < half; ++k) flip |= (0x0100u << k) | (0x01000000u << (half + k));
    unsigned acc = 0;
#pragma unroll
    for (int k = 0; k < half; ++k) {
      const unsigned term = byte_perm_signs<kLoHi>(z[rev(k)], z[rev(half + k)]) &
                            ((0x0101u << k) | (0x01010000u << (half + k)));
      acc = k == 0 ? term ^ (Phase0 ? flip : 0u) : acc ^ term;
    }
    words[0] = acc + (acc >> 16);
  }
}

// Tagged (register_kernel.cuh, kTagScale): the register whose field goes to slot i of word j at
// layout phase Q: register 8 j + i, or at K = 7 in even phases the history layout's
// (register_layout.cuh), which the walk reads with no state but its history.
template <class Spec, int Q>
constexpr int field_register(int j, int i) {
  if constexpr (uses_history_layout<Spec> && Q % 2 == 0)
    return history_layout::reg(Q, j, i);
  else
    return 8 * j + i;
}
// Slot I of word J: its register's field, the word's first, or added by one multiply-add on the
// FMA pipe (in C++ ptxas shifts the unmasked register and merges it with a masked LOP3: two
// instructions, though the field is at hand for the clear).
template <class Spec, int Q, int J, int I, int R, int Words>
__device__ __forceinline__ void add_field(const unsigned (&f)[R], unsigned (&words)[Words]) {
  if constexpr (I == 0) {
    constexpr int r = field_register<Spec, Q>(J, 0);
    words[J] = f[r];
  } else if constexpr (8 * J + I < R) {
    constexpr int r = field_register<Spec, Q>(J, I);
#ifdef __CUDA_ARCH__
    asm("mad.lo.u32 %0, %1, %2, %0;" : "+r"(words[J]) : "r"(f[r]), "r"(1u << (2 * I)));
#else
    words[J] += f[r] * (1u << (2 * I));  // the host emulation's mad
#endif
  }
}
// A pair's fields (bits 0-1 and 16-17 of each of the R registers) at layout phase Q, packed word
// by word: slot i of word j at bit 2i (the high halves 16 above).
template <class Spec, int Q, int R, int Words>
__device__ __forceinline__ void pack_fields(const unsigned (&f)[R], unsigned (&words)[Words]) {
  static_assert(Words == (R + 7) / 8, "a word holds eight registers' fields");
  [&]<int... ji>(std::integer_sequence<int, ji...>) {
    (add_field<Spec, Q, ji / 8, ji % 8>(f, words), ...);
  }
  (std::make_integer_sequence<int, 8 * Words>{});
}

}  // namespace gpufec::conv::detail::regs
