// The register Viterbi kernel's traceback (register_kernel.cuh): one thread walks one subframe
// of its tile back through the survivor ring in shared memory that the kernel's forward pass
// filled, and writes the subframe's decided bits. The survivor layout: register_layout.cuh
// (half_block); every stored bit means "from the lower predecessor".
//
// The walk keeps, instead of the state, where its decision sits: the half h, and v, the
// complement of rev(r) (the register index reversed). A stage that lands in a phase other than 0
// keeps h and shifts r down one bit with the decision's "upper" at the top; on v that is "shift
// up one, the stored bit in at the bottom": a funnel shift of v with the looked-up word. The
// stage into phase 0 keeps r and makes h the decision. So a step is a word select (W = 2), one
// shift that brings the wanted bit to bit 31 (v's bits above rev(r) fall out of the shift count
// for W = 2 and are masked off for W = 1) and one funnel shift; no table, no division.
//
// Decoded bits: a step through stage s learns the oldest input bit of its state, the bit of tile
// position s - (K-1); the state the walk starts from gives positions start-1 .. start-(K-1). The
// stored bits (inverted decoded bits) collect in `hist`, the lowest position in bit 0, and go out
// after every cycle as aligned 4-byte words (one byte per bit), bytes only at the written
// range's edges: a thread's output lies far from the other threads' (each has its own tile), so
// every store is a transaction of its own, and byte stores made the L2 the busiest unit of the
// kernel (ncu: one sector write per decoded bit). The last K-1 stages above a subframe's start
// decide bits of the subframe before it and are not walked; the whole cycles that decide only
// positions above the written range (the walk's convergence through the overlap) keep no history
// and write nothing.
#pragma once

#include <cstdint>
#include <numeric>
#include <utility>

#include "conv/cuda/kernels/register_layout.cuh"

namespace gpufec::conv::detail::regs {

// The decided bits of one walk, written to positions [a, limit) of `out` (see the header
// comment): `hist` holds the stored bits met so far (inverted decided bits), the lowest
// position in bit 0.
struct bit_writer {
  std::uint8_t* out;     // the frame's bits, offset so that out[t] is position t's bit
  int a, limit;          // positions [a, limit) are written
  int word_lo, word_hi;  // [word_lo, word_hi): the written positions that fill aligned words
  int next;              // the highest position not written yet
  unsigned hist;
  int quiet_above = 0;  // whole cycles deciding only positions >= limit + this: no history

  __device__ static bit_writer over(std::uint8_t* out, int a, int limit) {
    // The aligned words inside [a, limit), as positions (none: every position is an edge).
    const auto misaligned = [&](int t) {
      return static_cast<int>((reinterpret_cast<std::uintptr_t>(out) + t) & 3u);
    };
    int word_lo = a + ((4 - misaligned(a)) & 3), word_hi = limit - misaligned(limit);
    if (word_hi <= word_lo) word_lo = word_hi = limit;
    return {out, a, limit, word_lo, word_hi, limit - 1, 0u};
  }
  // Position p's bit: hist bit p - low, inverted.
  __device__ __forceinline__ void put_byte(int p, int low) const {
    out[p] = static_cast<std::uint8_t>(~(hist >> (p - low)) & 1u);
  }
  // Four decided bits (bit i: position p + i) as the word of their four bytes: bits * (1 + 2^7 +
  // 2^14 + 2^21) puts bit i at 8i, the copies apart.
  __device__ __forceinline__ static unsigned word_of(unsigned bits) {
    return (bits * 0x204081u) & 0x01010101u;
  }
  // Positions p .. p + 3 as one aligned word.
  __device__ __forceinline__ void put_word(int p, int low) const {
    *reinterpret_cast<unsigned*>(out + p) = word_of(~(hist >> (p - low)) & 15u);
  }
  // The `Words` aligned words below `next`, where all of them are decided and inside the aligned
  // range, in straight code (a walk's steady state: what its cycles between two emits decide);
  // else emit<false>. Where next < word_hi, next + 1 is aligned: emit leaves it so. Decided
  // positions below them (fewer than 4 in the steady state) wait for the next emit.
  template <int Words>
  __device__ __forceinline__ void emit_words(int low) {
    const int from = next + 1 - 4 * Words;
    if (next < word_hi && from >= word_lo && from >= low) {
      auto* words = reinterpret_cast<unsigned*>(out + from);
      const unsigned inverted = ~hist >> (from - low);  // position from + i at bit i
#pragma unroll
      for (int k = 0; k < Words; ++k) words[k] = word_of((inverted >> (4 * k)) & 15u);
      next = from - 1;
    } else {
      emit<false>(low);
    }
  }
  // Writes what is decided of [a, limit) from `next` down: positions from `low` up. Bytes above
  // word_hi, aligned words down to word_lo, and (Last: everything is decided) bytes below.
  template <bool Last>
  __device__ __forceinline__ void emit(int low) {
    for (; next >= word_hi && next >= low; --next) put_byte(next, low);
    for (; next - 3 >= word_lo && next - 3 >= low; next -= 4) put_word(next - 3, low);
    if constexpr (Last)
      for (; next >= a; --next) put_byte(next, low);
  }
};

template <class Spec>
struct tracer {
  static constexpr int P = Spec::phases, W = Spec::words, K = Spec::K, R = Spec::R;
  static_assert(W <= 2, "the register kernel keeps at most 64 states");
  // W = 1: the shift that brings position hH + rev(r) to bit 31 is (v & (R-1)) + 32 - R - hH.
  static constexpr unsigned shift_low = W == 1 ? 32 - R : 0,
                            shift_high = W == 1 ? 32 - R - half_block(R) : 0;

  const unsigned* row;  // this thread's ring: row[slot * W + w]
  int ring_slots;
  bit_writer bits;
  unsigned v;  // the present state's ~rev(r) (the bits above rev(r)'s are junk)
  bool h;      // the present state's half

  __device__ __forceinline__ uint2 words(int slot) const {
    if constexpr (W == 2) return reinterpret_cast<const uint2*>(row)[slot];
    return make_uint2(row[slot], 0u);
  }
  __device__ __forceinline__ int previous(int slot) const {
    return slot == 0 ? ring_slots - 1 : slot - 1;
  }
  // The stage's stored bit for the present state, at bit 31 (the bits below are junk).
  __device__ __forceinline__ unsigned looked_up(uint2 w) const {
    if constexpr (W == 2) return __funnelshift_l(0u, h ? w.y : w.x, v);  // word << (v mod 32)
    return w.x << ((v & (R - 1)) | (h ? shift_high : shift_low));
  }
  // One step back through a stage; Phase0: the stage's ACS produced layout phase 0. Record: the
  // step's decided bit goes into the history (not where it decides a position above the
  // written range).
  template <bool Phase0, bool Record = true>
  __device__ __forceinline__ void step(uint2 w) {
    const unsigned t = looked_up(w);
    if constexpr (Record) bits.hist = __funnelshift_l(t, bits.hist, 1);
    if constexpr (Phase0)
      h = static_cast<int>(t) >= 0;  // the upper predecessor: stored bit 0
    else
      v = __funnelshift_l(t, v, 1);
  }
  // One whole cycle back from ring slot `slot` (a cycle's slots never wrap), and the slot below.
  template <bool Record>
  __device__ __forceinline__ void back_cycle(int& slot) {
    uint2 w[P];
#pragma unroll
    for (int k = 0; k < P; ++k) w[k] = words(slot - k);
    slot = slot >= P ? slot - P : slot - P + ring_slots;
    step<true, Record>(w[0]);
#pragma unroll
    for (int k = 1; k < P; ++k) step<false, Record>(w[k]);
  }

  // Walks from state `state` after tile position start - 1 (ring slot `slot`) down to position
  // a + K - 1 and writes positions [a, limit).
  __device__ void trace(int start, int slot, unsigned state) {
    constexpr int n = K - 2;
    int q = start % P;  // the layout after position s's ACS
    const unsigned r = static_cast<unsigned>(reg_of(q, static_cast<int>(state)));
    h = half_of(q, static_cast<int>(state)) != 0;
    v = ~(__brev(r) >> (32 - n));
    bits.hist = ~(__brev(state) >> (32 - (K - 1)));
    const int last = bits.a + K - 1;  // the lowest position walked through
    int s = start - 1;
    for (; q != 0 && s >= last; --q, --s, slot = previous(slot)) step<false>(words(slot));
    bits.emit<false>(s + 2 - K);
    // Whole cycles whose steps decide only positions at or above `limit` (the walk's
    // convergence through the overlap): no history and nothing to write. The bits recorded after
    // them fill the history from bit 0 again, and every position below `limit` is decided by one
    // of those.
    for (; s - (P - 1) >= last && s - (P - 1) - (K - 1) >= bits.limit + bits.quiet_above; s -= P)
      back_cycle<false>(slot);
    for (; s - (P - 1) >= last; s -= P) {
      back_cycle<true>(slot);
      bits.emit<false>(s + 2 - K - P);
    }
    if (s >= last) {  // the rest: a phase-0 stage, then fewer than P - 1
      step<true>(words(slot));
      for (--s, slot = previous(slot); s >= last; --s, slot = previous(slot))
        step<false>(words(slot));
    }
    bits.emit<true>(s + 2 - K);
  }
};

// `quiet_above`: none (0), or the unpunctured instances' test switch: 0, or 2^20 to keep the
// history all the way (tiled_params::checks). The punctured instances pass none: the parameter
// cost ptxas 44 registers there.
template <class Spec, class... Quiet>
__device__ __noinline__ void trace_subframe(const unsigned* row, int ring_slots, int slot,
                                            int start, int a, int limit, unsigned state,
                                            std::uint8_t* out, Quiet... quiet_above) {
  tracer<Spec> tr{row, ring_slots, bit_writer::over(out, a, limit), 0u, false};
  ((tr.bits.quiet_above = quiet_above), ...);
  tr.trace(start, slot, state);
}

// The tagged kernel's traceback (register_metrics.cuh, kTagScale): the ring holds, per group of
// two stages (a cycle's stages 2i, 2i + 1, at the ring slots of both), each state's field: bit j
// is the decision at stage j of the group along the state's survivor path (1: from the lower
// predecessor), at bit 2 (r mod 8) + 16 h of word r / 8, r and h the state's register and half at
// the layout phase after the group; at K = 7, for groups ending in an even phase, where the
// history layout puts it (register_layout.cuh): there the walk keeps no state but its history,
// and a step is a load of the one word the history picks, a rotation by a shift or two of the
// history, and one funnel shift (28 SASS instructions per walked cycle against 54 before; the
// long batch +4%, bench/RESULTS.md). A step back through a group reads the state's field and
// learns both predecessors at once: the oldest two input bits, the stored bits inverted. A tile
// that ends inside a group stored its first stage's decisions alone (bit 0; register order).
// Decided bits go out as the tracer's do (bit_writer).
template <class Spec>
struct group_tracer {
  static constexpr int P = Spec::phases, W = Spec::words, K = Spec::K, R = Spec::R;
  static_assert(P % 2 == 0 && R <= 32, "whole groups in a cycle, at most 64 states");
  static constexpr int G = P / 2;  // groups per cycle
  // K = 7: the fields of pairs ending in even phases are where the history alone finds them
  // (history_layout); the state is then the history's low six bits, `n` is unused, and every
  // step records (Record has nothing to save: the history is the state).
  static constexpr bool history = uses_history_layout<Spec>;

  const unsigned* row;  // this thread's ring: row[slot * W + w]
  int ring_slots;
  bit_writer bits;
  unsigned n;  // the present state

  // The group whose first stage has ring slot `at`: its words.
  __device__ __forceinline__ uint4 words(int at) const {
    if constexpr (W == 2) {
      const uint2 a = reinterpret_cast<const uint2*>(row)[at],
                  b = reinterpret_cast<const uint2*>(row)[at + 1];
      return make_uint4(a.x, a.y, b.x, b.y);
    }
    return make_uint4(row[at], 0u, 0u, 0u);
  }
  // The present state (history: from the history's low K - 1 bits, reflected and inverted).
  __device__ __forceinline__ unsigned state() const {
    if constexpr (history) return ~(__brev(bits.hist) >> (32 - (K - 1))) & ((1u << (K - 1)) - 1u);
    return n;
  }
  // The present state's field at layout phase q, in the register order (register r's at bit
  // 2 (r mod 8) + 16 h of word r / 8).
  template <int q>
  __device__ __forceinline__ unsigned field(uint4 w) const {
    const unsigned x = state();
    const unsigned r = (x & ((1u << q) - 1u)) | ((x >> (q + 1)) << q);
    const unsigned shift = 2u * (r & 7u) + 16u * ((x >> q) & 1u);
    unsigned word = w.x;
    if constexpr (R > 8) {
      const unsigned low = r & 16u ? w.z : w.x, high = r & 16u ? w.w : w.y;
      word = r & 8u ? high : low;
    }
    return (word >> shift) & 3u;
  }
  // History layout, a pair ending in phase q (even): of its words w, the one that holds the
  // present state's field (history bits word_shift(q) and the next: history_layout::word).
  template <int q>
  __device__ __forceinline__ unsigned chosen(uint4 w) const {
    constexpr int at = history_layout::word_shift(q);
    const bool b0 = (bits.hist >> at) & 1u, b1 = (bits.hist >> (at + 1)) & 1u;
    return b1 ? (b0 ? w.w : w.z) : (b0 ? w.y : w.x);
  }
  // That word rotated so that the field is at bits 30-31 (the rest junk): left by 2 idx, a
  // shift or two of the history (mod 32: the rotation ignores the bits above).
  template <int q>
  __device__ __forceinline__ unsigned rotated(unsigned word) const {
    const unsigned h = bits.hist;
    unsigned amt;
    if constexpr (q == 0)
      amt = (h >> 1) & 0x1eu;
    else if constexpr (q == 4)
      amt = merge(h << 3, h >> 3, 0x19u);  // bits 3, 4: m0, m1; bits 1, 2: m4, m5
    else
      amt = h << 1;
    return __funnelshift_l(word, word, amt);
  }
  // a where mask is set, else b: one LOP3 (ptxas makes two of the C++).
  __device__ __forceinline__ static unsigned merge(unsigned a, unsigned b, unsigned mask) {
#ifdef __CUDA_ARCH__
    unsigned d;
    asm("lop3.b32 %0, %1, %2, %3, 0xe4;" : "=r"(d) : "r"(a), "r"(b), "r"(mask));
    return d;
#else
    return (a & mask) | (b & ~mask);
#endif
  }
  // History layout: back through a pair ending in phase q, given its chosen word. The field goes
  // in at the bottom of the history, and the state steps back two stages with it.
  template <int q, bool Record = true>
  __device__ __forceinline__ void group(unsigned word) {
    bits.hist = __funnelshift_l(rotated<q>(word), bits.hist, 2);
  }
  // Back through a whole group that ends in phase q.
  template <int q, bool Record = true>
  __device__ __forceinline__ void group(uint4 w) {
    if constexpr (history) {
      group<q>(chosen<q>(w));
    } else {
      const unsigned f = field<q>(w);
      if constexpr (Record) bits.hist = (bits.hist << 2) | f;
      n = (n >> 2) | ((~f & 1u) << (K - 2)) | (((~f >> 1) & 1u) << (K - 3));
    }
  }
  // Back through one stage of a group: its upper stage (Upper; the group ends in phase q) or,
  // where the tile ended inside the group, its first (the group's fields at phase q, bit 0).
  template <int q, bool Upper>
  __device__ __forceinline__ void single(uint4 w) {
    unsigned d;
    if constexpr (history && q % 2 == 0) {
      const unsigned t = rotated<q>(chosen<q>(w));
      d = Upper ? t >> 31 : (t >> 30) & 1u;
    } else {
      d = Upper ? field<q>(w) >> 1 : field<q>(w) & 1u;
    }
    if constexpr (!history) n = (n >> 1) | ((d ^ 1u) << (K - 2));
    bits.hist = (bits.hist << 1) | d;
  }
  // f<q>() for a phase q known at run time (a walk's partial cycles).
  template <class F, int... q>
  __device__ __forceinline__ void at_phase(int at, F&& f, std::integer_sequence<int, q...>) {
    ((at == q ? f(std::integral_constant<int, q>{}) : void()), ...);
  }
  template <class F>
  __device__ __forceinline__ void at_phase(int at, F&& f) {
    at_phase(at, f, std::make_integer_sequence<int, P>{});
  }
  __device__ __forceinline__ int back(int slot, int by) const {
    return slot >= by ? slot - by : slot - by + ring_slots;
  }
  // What a whole cycle's walk reads of the group at ring slot `at`: its words, or (history) the
  // one that `pick` = 2 b1 + b0 names. The three groups' word bits are the same two history bits,
  // two stages apart in each, and a group's four words lie in a row: one load each, no select.
  __device__ __forceinline__ auto cycle_words(int at, unsigned pick) const {
    if constexpr (history)
      return row[at * W + pick];
    else
      return words(at);
  }
  // One whole cycle back; `slot` is that of the cycle's last stage, then of the stage below.
  template <bool Record>
  __device__ __forceinline__ void back_cycle(int& slot) {
    const unsigned pick = bits.hist & 3u;
    decltype(cycle_words(0, 0u)) w[G];
#pragma unroll
    for (int g = 0; g < G; ++g) w[g] = cycle_words(slot - 1 - 2 * g, pick);
    slot = back(slot, P);
    [&]<int... g>(std::integer_sequence<int, g...>) {
      (group<(P - 2 * g) % P, Record>(w[g]), ...);
    }
    (std::make_integer_sequence<int, G>{});
  }

  // Walks from state `state` after tile position start - 1 (ring slot `slot`) down to position
  // a + K - 1 and writes positions [a, limit). Groups start at even tile positions.
  __device__ void trace(int start, int slot, unsigned state) {
    n = state;
    bits.hist = ~(__brev(state) >> (32 - (K - 1)));
    const int last = bits.a + K - 1;  // the lowest position walked through
    int s = start - 1;
    if ((start & 1) && s >= last) {  // the tile's last group, its first stage only
      const uint4 w = words(slot);
      at_phase(start % P, [&](auto q) {
        if constexpr (decltype(q)::value % 2 == 1) single<decltype(q)::value, false>(w);
      });
      --s;
      slot = back(slot, 1);
    }
    for (; (s + 1) % P != 0 && s - 1 >= last; s -= 2, slot = back(slot, 2)) {
      const uint4 w = words(slot - 1);
      at_phase((s + 1) % P, [&](auto q) {
        if constexpr (decltype(q)::value % 2 == 0) group<decltype(q)::value>(w);
      });
    }
    bits.emit<false>(s + 2 - K);
    // Whole cycles deciding only positions at or above `limit`: as tracer::trace.
    for (; s - (P - 1) >= last && s - (P - 1) - (K - 1) >= bits.limit + bits.quiet_above; s -= P)
      back_cycle<false>(slot);
    // Recorded: as many cycles at a time as decide whole words (K = 7: two cycles, three words),
    // written in straight code inside the range (emit_words).
    constexpr int C = std::lcm(P, 4) / P;
    for (; s - (C * P - 1) >= last; s -= C * P) {
#pragma unroll
      for (int c = 0; c < C; ++c) back_cycle<true>(slot);
      bits.emit_words<C * P / 4>(s + 2 - K - C * P);
    }
    for (; s - (P - 1) >= last; s -= P) {
      back_cycle<true>(slot);
      bits.emit<false>(s + 2 - K - P);
    }
    for (; s - 1 >= last; s -= 2, slot = back(slot, 2)) {
      const uint4 w = words(slot - 1);
      at_phase((s + 1) % P, [&](auto q) {
        if constexpr (decltype(q)::value % 2 == 0) group<decltype(q)::value>(w);
      });
    }
    if (s >= last) {  // a group's upper stage alone
      const uint4 w = words(slot - 1);
      at_phase((s + 1) % P, [&](auto q) {
        if constexpr (decltype(q)::value % 2 == 0) single<decltype(q)::value, true>(w);
      });
      --s;
    }
    bits.emit<true>(s + 2 - K);
  }
};

template <class Spec, class... Quiet>
__device__ __noinline__ void trace_groups(const unsigned* row, int ring_slots, int slot, int start,
                                          int a, int limit, unsigned state, std::uint8_t* out,
                                          Quiet... quiet_above) {
  group_tracer<Spec> tr{row, ring_slots, bit_writer::over(out, a, limit), 0u};
  ((tr.bits.quiet_above = quiet_above), ...);
  tr.trace(start, slot, state);
}

// The four-lane kernel's traceback (lane_spec, register_layout.cuh): one thread walks a subframe
// back through the rings of its tile's four lanes (`rows`: lane 0's ring, the others
// `lane_stride` words apart), keeping the whole 8-bit state x. A step through stage t (k = t mod
// 6 of its cycle, a constant in the unrolled cycle) finds the lane holding the state after it
// (x's bits k + 1, k + 2), its slot z (the other six bits XOR the lane's mask after stage k), the
// slot's register and half at layout phase (k + 1) mod 6, and reads the stored bit: 1 if the
// physical predecessor is the slot without bit 5. The mask before stage k turns that into the
// predecessor's top bit, the input bit of position t - 8, and the predecessor is x shifted down
// with that bit on top (scripts/conv-k9-lane-model checks the walk). Decided bits go out as the
// K = 7 tracer's do (bit_writer).
template <class Spec>
struct lane_tracer {
  static constexpr int P = Spec::phases, W = Spec::words, back = Spec::code_K - 1;
  static_assert(P == 6 && W == 2 && back == 8, "lane_spec's layout");

  const unsigned* rows;  // lane 0's ring: rows[slot * W + w], lane l's lane_stride l words on
  unsigned lane_stride;
  int ring_slots;
  bit_writer bits;
  unsigned x;  // the present state

  template <int k, bool Record = true>
  __device__ __forceinline__ void step(const unsigned* stage) {
    constexpr int q = (k + 1) % P;
    const unsigned lane = (x >> (k + 1)) & 3u;
    const unsigned y = (x & ((1u << (k + 1)) - 1)) | ((x >> (k + 3)) << (k + 1));
    const unsigned z = y ^ Spec::mask(k + 1, lane);
    const unsigned r = (z & ((1u << q) - 1)) | ((z >> (q + 1)) << q), h = (z >> q) & 1u;
    const unsigned word = stage[lane * lane_stride + h];
    const unsigned stored = (word >> (__brev(r) >> 27)) & 1u;
    const unsigned kept = stored ^ ((Spec::mask(k, lane) >> 5) & 1u);  // the decided bit, inverted
    x = (x >> 1) | ((kept ^ 1u) << 7);
    if constexpr (Record) bits.hist = (bits.hist << 1) | kept;
  }
  // step<k> for a k known at run time (the partial cycles at a walk's ends).
  template <int... k>
  __device__ __forceinline__ void step_at(int at, const unsigned* stage,
                                          std::integer_sequence<int, k...>) {
    ((at == k ? step<k>(stage) : void()), ...);
  }
  __device__ __forceinline__ void step_at(int at, const unsigned* stage) {
    step_at(at, stage, std::make_integer_sequence<int, P>{});
  }
  __device__ __forceinline__ int previous(int slot) const {
    return slot == 0 ? ring_slots - 1 : slot - 1;
  }
  // One whole cycle back from ring slot `slot` (a cycle's slots never wrap), and the slot below.
  template <bool Record>
  __device__ __forceinline__ void back_cycle(int& slot) {
    const unsigned* stage = rows + slot * W;
    step<5, Record>(stage);
    step<4, Record>(stage - W);
    step<3, Record>(stage - 2 * W);
    step<2, Record>(stage - 3 * W);
    step<1, Record>(stage - 4 * W);
    step<0, Record>(stage - 5 * W);
    slot = slot >= P ? slot - P : slot - P + ring_slots;
  }

  // Walks from state `state` after tile position start - 1 (ring slot `slot`) down to position
  // a + 8 and writes positions [a, limit).
  __device__ void trace(int start, int slot, unsigned state) {
    x = state;
    bits.hist = ~(__brev(state) >> (32 - back));
    const int last = bits.a + back;  // the lowest position walked through
    int s = start - 1;
    for (; (s + 1) % P != 0 && s >= last; --s, slot = previous(slot))
      step_at(s % P, rows + slot * W);
    bits.emit<false>(s + 1 - back);
    // Whole cycles deciding only positions at or above `limit`: as tracer::trace.
    for (; s - (P - 1) >= last && s - (P - 1) - back >= bits.limit + bits.quiet_above; s -= P)
      back_cycle<false>(slot);
    for (; s - (P - 1) >= last; s -= P) {
      back_cycle<true>(slot);
      bits.emit<false>(s + 1 - back - P);
    }
    for (; s >= last; --s, slot = previous(slot)) step_at(s % P, rows + slot * W);
    bits.emit<true>(s + 1 - back);
  }
};

template <class Spec, class... Quiet>
__device__ __noinline__ void trace_lanes(const unsigned* rows, unsigned lane_stride, int ring_slots,
                                         int slot, int start, int a, int limit, unsigned state,
                                         std::uint8_t* out, Quiet... quiet_above) {
  lane_tracer<Spec> tr{rows, lane_stride, ring_slots, bit_writer::over(out, a, limit), 0u};
  ((tr.bits.quiet_above = quiet_above), ...);
  tr.trace(start, slot, state);
}

}  // namespace gpufec::conv::detail::regs
