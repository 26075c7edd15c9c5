// The register layout of the CUDA register kernel (register_kernel.cuh): where each of the
// S = 2^(K-1) path metrics lives in one thread's S/2 registers, stage by stage. All of it is
// compile-time arithmetic on the code's constants, so the kernel's register arrays are indexed
// only by constants and stay in registers.
//
// Metrics are int16, two per 32-bit register (the int16x2 SIMD of Hopper's DPX instructions).
// At layout phase p (0 <= p <= K-2) register r holds the pair of states that differ in bit p:
// state_of(p, r, 0) in the low half and state_of(p, r, 1) = state_of(p, r, 0) | 2^p in the high
// half. A trellis stage maps old states x and x + S/2 (a butterfly) to new states 2x and 2x + 1,
// so a pair that differs in bit p becomes pairs that differ in bit p + 1: the ACS of a stage
// turns phase p into phase p + 1 without moving a half between registers. At p = K-2 the pair
// is the butterfly itself (x, x + S/2), whose new states 2x and 2x + 1 differ in bit 0: that
// stage swaps each register's halves once (a rotation) and lands in phase 0. A cycle is K-1
// stages.
#pragma once

namespace gpufec::conv::detail::regs {

// The register of state x at phase p (x's bit p removed).
__host__ __device__ constexpr int reg_of(int p, int x) {
  return (x & ((1 << p) - 1)) | ((x >> (p + 1)) << p);
}
// The half (0 low, 1 high) of state x at phase p.
__host__ __device__ constexpr int half_of(int p, int x) {
  return (x >> p) & 1;
}
// The state in half h of register r at phase p.
__host__ __device__ constexpr int state_of(int p, int r, int h) {
  return (r & ((1 << p) - 1)) | ((r >> p) << (p + 1)) | (h << p);
}

// Where the decisions of a stage go (the kernel's pack(), the tracer's lookup): the decision of
// new register r, half h sits at bit position h H + rev(r) of the stage's W words (word =
// position / 32), rev(r) being r's K-2 bits reversed and H = half_block(R) the bits a half's
// block spans (W = 2: H = 32, a word per half). Reversed, because a traceback step shifts a
// register index down one bit and brings the decision in at the top: on rev(r) that is "shift up
// one, decision in at the bottom", one funnel shift (register_traceback.cuh).
__host__ __device__ constexpr int half_block(int R) {
  return R >= 16 ? R : 8;
}

// Where the tagged kernel stores a pair of stages' fields at K = 7 (register_kernel.cuh,
// kTagScale), so that the walk (register_traceback.cuh, group_tracer) needs no state but its
// history. The walk's history register holds the decided bits, the latest in bit 0; its low six
// bits m are then the present state n reflected and inverted (m_j = ~n_{5-j}), and a step back
// through a pair is "shift up two, the field in at the bottom": one funnel shift. A pair ending
// in phase q (0, 4 or 2) keeps state n's field in word word(q, m) of its four (two ring slots),
// at the bits that a left rotation by 2 idx(q, m) brings to bits 30-31: bits 30 - 2 idx, with
// idx's bit 3 the half's bit (~n_q: the high half 16 bits above the low, as the pack puts them).
// Each is a shift or two of the history: for q = 2 idx = m mod 16; for q = 0 idx = m / 4, and the
// word bits of q = 0 (m0, m1) are those of q = 4 (m2, m3) and q = 2 (m4, m5) two and four stages
// on: a pair's four words lie in a row, so one offset picks a word of each of a cycle's pairs. The
// pack chooses, per phase, which register goes where (history_layout::reg); both halves of a
// register share a word.
struct history_layout {
  static constexpr int R = 32;  // K = 7: 64 states, six layout phases
  __host__ __device__ static constexpr unsigned m_of(int n) {
    unsigned m = 0;
    for (int j = 0; j < 6; ++j)
      if (!((n >> (5 - j)) & 1)) m |= 1u << j;
    return m;
  }
  __host__ __device__ static constexpr int idx(int q, unsigned m) {
    return q == 0   ? static_cast<int>((m >> 2) & 15u)
           : q == 4 ? static_cast<int>(((m >> 4) & 3u) | (m & 3u) << 2)
                    : static_cast<int>(m & 15u);
  }
  // The two history bits that select the word (word = 2 b1 + b0): bits shift and shift + 1.
  __host__ __device__ static constexpr int word_shift(int q) { return q == 0 ? 0 : q == 4 ? 2 : 4; }
  __host__ __device__ static constexpr int word(int q, unsigned m) {
    return static_cast<int>((m >> word_shift(q)) & 3u);
  }
  // Register r's word and field slot i (its low half's field at bit 2i, the high half's 16 above).
  __host__ __device__ static constexpr int word_of(int q, int r) {
    return word(q, m_of(state_of(q, r, 0)));
  }
  __host__ __device__ static constexpr int slot_of(int q, int r) {
    return 7 - (idx(q, m_of(state_of(q, r, 0))) & 7);
  }
  // The register at word w, slot i.
  __host__ __device__ static constexpr int reg(int q, int w, int i) {
    for (int r = 0; r < R; ++r)
      if (word_of(q, r) == w && slot_of(q, r) == i) return r;
    return -1;
  }
  // Every slot of every word holds one register, whose halves' idx differ in bit 3 alone.
  static constexpr bool valid() {
    for (int q = 0; q < 6; q += 2)
      for (int w = 0; w < 4; ++w)
        for (int i = 0; i < 8; ++i) {
          const int r = reg(q, w, i);
          if (r < 0) return false;
          const unsigned lo = m_of(state_of(q, r, 0)), hi = m_of(state_of(q, r, 1));
          if (idx(q, lo) != idx(q, hi) + 8 || word(q, lo) != word(q, hi)) return false;
        }
    return true;
  }
};
static_assert(history_layout::valid(), "the history layout places every field once");
// The codes that use it: those the kernel runs tagged (one lane, two values a stage) with 64
// states.
template <class Spec>
constexpr bool uses_history_layout =
    Spec::lanes == 1 && Spec::beta == 2 &&
    (Spec::R == history_layout::R) && Spec::phases == 6 && Spec::words == 2;

// A feedforward code fixed at compile time: K, beta and the octal polynomials (MSB taps the
// current input, as conv_code). label() is conv_code::label (code.cpp), recomputed here so that
// the kernel's branch-metric choices fold into constants; the engine checks the two agree.
template <int K_, int Beta_, unsigned G0, unsigned G1, unsigned G2 = 0, unsigned G3 = 0>
struct code_spec {
  static constexpr int K = K_, beta = Beta_;
  static constexpr int S = 1 << (K - 1);       // states
  static constexpr int R = S / 2;              // metric registers
  static constexpr int phases = K - 1;         // layout phases in a cycle
  static constexpr int words = (S + 31) / 32;  // survivor words per stage
  static constexpr int lanes = 1;              // threads per tile
  static constexpr int code_K = K;             // the code's constraint length

  __host__ __device__ static constexpr unsigned poly(int b) {
    return b == 0 ? G0 : b == 1 ? G1 : b == 2 ? G2 : G3;
  }
  __host__ __device__ static constexpr unsigned reversed(unsigned p) {
    unsigned r = 0;
    for (int i = 0; i < K; ++i)
      if ((p >> i) & 1u) r |= 1u << (K - 1 - i);
    return r;
  }
  __host__ __device__ static constexpr unsigned parity(unsigned v) {
    unsigned p = 0;
    for (; v; v &= v - 1) p ^= 1u;
    return p;
  }
  __host__ __device__ static constexpr unsigned label(unsigned s, unsigned w) {
    const unsigned r = (s << 1) | w;
    unsigned out = 0;
    for (int b = 0; b < beta; ++b) out |= parity(r & reversed(poly(b))) << b;
    return out;
  }
  // The label the kernel's stage k uses for state s (one thread holds every state: label()).
  template <int k>
  __host__ __device__ static constexpr unsigned label_at(unsigned s, unsigned w) {
    return label(s, w);
  }
};

// The 8-bit state of 6-bit y with the two bits of `lane` at positions a, a + 1.
__host__ __device__ constexpr unsigned insert_lane(unsigned y, unsigned lane, int a) {
  return (y & ((1u << a) - 1)) | (lane << a) | ((y >> a) << (a + 2));
}

// A K = 9 code on four lanes (threads) per tile, each holding 64 of the 256 states in the K = 7
// layout above, over a cycle of 6 stages (docs/conv.md, "K = 9 in registers";
// scripts/conv-k9-lane-model checks the algebra against a plain 256-state ACS):
// - Before stage k of a cycle the lane bits are the state's bits k, k + 1; the other six, y,
//   follow the K = 7 trellis (y -> 2y + u mod 64). Lane l keeps state y in slot z = y XOR
//   mask(k, l): l << 4 at a cycle's start, shifted up with each stage, and l's bits enter at bit 0
//   in stages 4 and 5, so that mask = l after stage 5.
// - The compile-time ACS indexes slots: its labels are those of slot z with lane bits 0
//   (label_at); the true ones differ by one XOR per lane and stage (labels are linear), flip(k, l),
//   applied as signs on the stage's LLRs. Where the mask's top bit is set, the slot that the ACS
//   takes as the upper predecessor holds the lower one: the traceback undoes it with the mask.
// - After stage 5 the lanes exchange (lanes 6, 7 -> 0, 1): in round d lane l sends its slots z
//   with z mod 4 = d to lane l XOR d, which stores them at (z >> 2) + 16 d.
template <int Beta_, unsigned G0, unsigned G1, unsigned G2 = 0>
struct lane_spec {
  using code = code_spec<9, Beta_, G0, G1, G2>;
  static constexpr int K = 7, beta = Beta_;  // a lane's trellis: 64 states, as K = 7
  static constexpr int S = 64, R = 32, phases = 6, words = 2;
  static constexpr int lanes = 4, code_K = 9;

  __host__ __device__ static constexpr unsigned poly(int b) { return code::poly(b); }
  // The code's labels (what the engine compares with conv_code's).
  __host__ __device__ static constexpr unsigned label(unsigned s, unsigned w) {
    return code::label(s, w);
  }
  template <int k>
  __host__ __device__ static constexpr unsigned label_at(unsigned z, unsigned w) {
    return code::label(insert_lane(z, 0, k), w);
  }
  // The slot mask before stage k (0..5) of a cycle, and after stage 5 (k = 6).
  __host__ __device__ static constexpr unsigned mask(int k, unsigned lane) {
    return k == 0 ? lane << 4 : k == 1 ? (lane & 1u) << 5 : k == 5 ? lane >> 1 : k == 6 ? lane : 0u;
  }
  // The bit that stage k injects at bit 0 of the mask.
  __host__ __device__ static constexpr unsigned injected(int k, unsigned lane) {
    return k == 4 ? lane >> 1 : k == 5 ? lane & 1u : 0u;
  }
  // What XORs the compile-time label of stage k into the true one, in lane l.
  __host__ __device__ static constexpr unsigned flip(int k, unsigned lane) {
    return code::label(insert_lane(mask(k, lane), lane, k), injected(k, lane));
  }
};

}  // namespace gpufec::conv::detail::regs
