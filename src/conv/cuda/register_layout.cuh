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
// stage duplicates each half (one byte permute each) and lands in phase 0. A cycle is K-1 stages.
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

// Where the decisions of a stage go: the decisions of new register r (half h) are packed as bit
// 8 (2 (r mod 2) + h) + (r/2 mod 8) of word r / 16 (the byte permute and the OR of the kernel's
// step). Returns word * 32 + bit. Each bit of r and h lands on one bit of the result (register
// bit 0 on bit 4, bits 1..3 on bits 0..2, bit 4 on bit 5; h on bit 3).
__host__ __device__ constexpr int survivor_index(int r, int h) {
  const int k = r / 2;
  return (k / 8) * 32 + 8 * (2 * (r % 2) + h) + k % 8;
}
// The survivor bit of new state j in a stage whose ACS produced layout q.
__host__ __device__ constexpr int survivor_bit(int q, int j) {
  return survivor_index(reg_of(q, j), half_of(q, j));
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
