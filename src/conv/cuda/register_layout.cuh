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
// stage swaps each register's halves once (a byte permute) and lands in phase 0. A cycle is K-1
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
};

}  // namespace gpufec::conv::detail::regs
