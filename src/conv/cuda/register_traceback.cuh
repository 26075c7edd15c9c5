// The register Viterbi kernel's traceback (register_kernel.cuh): one thread walks one subframe
// of its tile back through the survivor ring in shared memory that the kernel's forward pass
// filled, and writes the subframe's decided bits. The survivor layout: register_layout.cuh.
#pragma once

#include <cstdint>
#include <utility>

#include "conv/cuda/register_layout.cuh"

namespace gpufec::conv::detail::regs {

// Traces one subframe back: from state `state` at tile position `start` down to `a`, writing the
// decided bit of each tile position t in [a, limit) to out[t] (the caller offsets `out` to the
// tile and clips `limit` to the subframe and the frame's information bits). `slot` is the ring
// slot of position start - 1. Survivor words: this thread's ring, row[slot *
// W + w]; a stored bit 1 means "from the lower predecessor" (decision 0).
// The walk keeps, instead of the state j, its survivor bit p = survivor_bit(Q, j) in the layout Q
// of the stage being stepped through: the next state's p is then a fixed bit permutation of p
// plus the decision (register_layout.cuh: a stage keeps a state's half h and shifts its register
// index r, only the stage into phase 0 trades h for the decision), so a step is a word select, a
// shift and a few constant shifts and masks, with no table and no division. Whole cycles of K-1
// steps run unrolled with their phases as constants and their words loaded first; the steps above
// the decoded range (the convergence stages) write nothing.
// Output: the bits go out as aligned 4-byte words where the written range covers a whole word, so
// bytes at its edges only: a thread's bytes lie far from the other threads' (each has its own
// tile), so every store is a transaction of its own, and byte stores made the L2 the busiest unit
// of the kernel (ncu: 73% of its throughput, one sector write per decoded bit).
enum class emit_mode { none, edges, words };

template <class Spec>
struct tracer {
  static constexpr int P = Spec::phases, W = Spec::words, K = Spec::K;
  static_assert(W <= 2, "the register kernel keeps at most 64 states");

  const unsigned* row;  // this thread's ring
  int ring_slots;
  int limit;          // positions t < limit are written: min(b, the last info bit's position + 1)
  std::uint8_t* out;  // the frame's bits, offset so that out[t] is position t's bit
  int word_lo, word_hi;  // [word_lo, word_hi): the written positions that fill aligned words

  // Position t's bit (t descending): the last four bits collect in `bits`, the lowest position
  // in the lowest byte; a whole word is stored at its lowest position.
  __device__ __forceinline__ void emit_edge(int t, unsigned bit, unsigned& bits) const {
    if (t >= limit) return;
    bits = (bits << 8) | bit;
    if (t >= word_hi || t < word_lo)
      out[t] = static_cast<std::uint8_t>(bit);
    else if (((t - word_lo) & 3) == 0)
      *reinterpret_cast<unsigned*>(out + t) = bits;
  }
  __device__ __forceinline__ void emit_word(int t, unsigned bit, unsigned& bits) const {
    bits = (bits << 8) | bit;
    if (((t - word_lo) & 3) == 0) *reinterpret_cast<unsigned*>(out + t) = bits;
  }

  // The bit of p that register bit i sets (survivor_index; h sets bit 3).
  static constexpr unsigned r_bit(int i) {
    return static_cast<unsigned>(survivor_index(1 << i, 0));
  }
  static constexpr int log2_of(unsigned v) { return v <= 1 ? 0 : 1 + log2_of(v >> 1); }
  // Bit From of p moved to bit To.
  template <unsigned From, unsigned To>
  __device__ __forceinline__ static unsigned moved(unsigned p) {
    if constexpr (From >= To)
      return (p >> (log2_of(From) - log2_of(To))) & To;
    else
      return (p << (log2_of(To) - log2_of(From))) & To;
  }
  // Register bits 1 .. K-3 of p moved down one register bit.
  template <int... I>
  __device__ __forceinline__ static unsigned shifted_down(unsigned p,
                                                          std::integer_sequence<int, I...>) {
    return (0u | ... | moved<r_bit(I + 1), r_bit(I)>(p));
  }

  __device__ __forceinline__ uint2 words(int slot) const {
    if constexpr (W == 2) return reinterpret_cast<const uint2*>(row)[slot];
    return make_uint2(row[slot], 0u);
  }
  // The decoded bit of the state whose survivor bit is p in layout Q: its lowest bit (h in phase
  // 0, else register bit 0).
  template <int Q>
  __device__ __forceinline__ static unsigned decided(unsigned p) {
    return (p >> (Q == 0 ? 3 : log2_of(r_bit(0)))) & 1u;
  }
  // One step back through a stage whose ACS produced layout Q: p of the state before it, in
  // layout Q - 1 (mod P). A stored bit 1 means "from the lower predecessor", except for the high
  // halves (h = 1) of a stage into phase 0, where it means "from the upper" (step()).
  template <int Q>
  __device__ __forceinline__ static unsigned back(unsigned p, uint2 w) {
    const unsigned word = (W == 2 && (p & 32u)) ? w.y : w.x;
    if constexpr (Q == 0) {
      const unsigned upper = ((word >> (p & 31u)) ^ (p >> 3) ^ 1u) & 1u;
      return (p & ~8u) | (upper << 3);  // r stays, h becomes the decision
    } else {
      const unsigned upper = (~word >> (p & 31u)) & 1u;  // from the upper predecessor
      // h stays, r shifts down, the decision enters at the top.
      return (p & 8u) | shifted_down(p, std::make_integer_sequence<int, K - 3>{}) |
             (upper << log2_of(r_bit(K - 3)));
    }
  }
  template <int Q = 0>
  __device__ __forceinline__ static unsigned back_at(int q, unsigned p, uint2 w) {
    if constexpr (Q + 1 < P)
      if (q != Q) return back_at<Q + 1>(q, p, w);
    return back<Q>(p, w);
  }
  template <int Q = 0>
  __device__ __forceinline__ static unsigned decided_at(int q, unsigned p) {
    if constexpr (Q + 1 < P)
      if (q != Q) return decided_at<Q + 1>(q, p);
    return decided<Q>(p);
  }
  __device__ __forceinline__ int previous(int slot) const {
    return slot == 0 ? ring_slots - 1 : slot - 1;
  }
  // The k-th step of a whole cycle (phases 0, P-1, ..., 1), position t - k.
  template <int k, emit_mode Mode>
  __device__ __forceinline__ unsigned cycle(int t, unsigned p, const uint2 (&w)[P],
                                            unsigned& bits) const {
    constexpr int Q = (P - k) % P;
    if constexpr (Mode == emit_mode::edges) emit_edge(t - k, decided<Q>(p), bits);
    if constexpr (Mode == emit_mode::words) emit_word(t - k, decided<Q>(p), bits);
    p = back<Q>(p, w[k]);
    if constexpr (k + 1 < P) return cycle<k + 1, Mode>(t, p, w, bits);
    return p;
  }
  // A whole cycle ending at position t, slot `slot` (a cycle's slots never wrap: the ring is
  // whole cycles).
  template <emit_mode Mode>
  __device__ __forceinline__ unsigned whole_cycle(int t, int& slot, unsigned p,
                                                  unsigned& bits) const {
    uint2 w[P];
#pragma unroll
    for (int k = 0; k < P; ++k) w[k] = words(slot - k);
    slot = slot >= P ? slot - P : slot - P + ring_slots;
    return cycle<0, Mode>(t, p, w, bits);
  }

  __device__ void trace(int start, int a, int slot, unsigned state) const {
    int t = start - 1, q = start % P;  // q: the layout after position t's ACS
    unsigned p = static_cast<unsigned>(survivor_bit(q, static_cast<int>(state)));
    unsigned bits = 0;
    for (; q != 0 && t >= a; --t, q = q - 1, slot = previous(slot)) {  // to a cycle's start
      emit_edge(t, decided_at(q, p), bits);
      p = back_at(q, p, words(slot));
    }
    for (; t - (P - 1) >= a && t - (P - 1) >= limit; t -= P)  // convergence: nothing to write
      p = whole_cycle<emit_mode::none>(t, slot, p, bits);
    for (; t - (P - 1) >= a && t >= word_hi; t -= P)  // the top edge
      p = whole_cycle<emit_mode::edges>(t, slot, p, bits);
    for (; t - (P - 1) >= a && t - (P - 1) >= word_lo; t -= P)  // whole words only
      p = whole_cycle<emit_mode::words>(t, slot, p, bits);
    for (; t - (P - 1) >= a; t -= P) p = whole_cycle<emit_mode::edges>(t, slot, p, bits);
    for (q = 0; t >= a; --t, q = q == 0 ? P - 1 : q - 1, slot = previous(slot)) {  // the rest
      emit_edge(t, decided_at(q, p), bits);
      p = back_at(q, p, words(slot));
    }
  }
};

template <class Spec>
__device__ __noinline__ void trace_subframe(const unsigned* row, int ring_slots, int slot,
                                            int start, int a, int limit, unsigned state,
                                            std::uint8_t* out) {
  // The aligned words inside [a, limit), as positions (none: every position is an edge).
  const auto misaligned = [&](int t) {
    return static_cast<int>((reinterpret_cast<std::uintptr_t>(out) + t) & 3u);
  };
  int word_lo = a + ((4 - misaligned(a)) & 3), word_hi = limit - misaligned(limit);
  if (word_hi <= word_lo) word_lo = word_hi = limit;
  const tracer<Spec> tr{row, ring_slots, limit, out, word_lo, word_hi};
  tr.trace(start, a, slot, state);
}

}  // namespace gpufec::conv::detail::regs
