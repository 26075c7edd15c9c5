// Box-Muller from the bits of a Philox block, in correctly rounded single-precision steps, written
// once over an arithmetic policy, so the host loop, every Highway SIMD target with a fused
// multiply-add and the CUDA kernels compute the same Gaussians to the last bit (docs/random.md):
//
//   g0 = sqrt(-2 ln u1) cos(2 pi u2),  g1 = sqrt(-2 ln u1) sin(2 pi u2)
//
// Two Gaussians from 64 bits, words a and b (four from a block). The uniforms are built from the
// bits, not from a 64-bit integer, so that the radius keeps its whole tail at float cost:
// - u1 = 2^e m, its exponent and mantissa drawn apart (for a uniform they are independent):
//   m = 1 + (2 M + 1) 2^-23 with M the 22 bits b >> 10 (the centre of its cell, in (1, 2)), and
//   e from the 18 bits Z = (a & 0xFF) << 10 | (b & 0x3FF): e = floor(log2 Z) - 18 in [-18, -1],
//   so P(e) = 2^e, as for u1 uniform in (0, 1). Z = 0 (probability 2^-18) continues the tail in
//   the pair's 64 bits T of the same block of the stream's tail companion (philox.hpp): e = -19 -
//   clz(T), down to -83 (T = 0, probability 2^-82), so u1 reaches 2^-83 and the radius 10.7: the
//   Gaussian is exact in law wherever a float resolves it, with nothing cut below 1e-25.
// - u2 = (o + f) / 8: octant o = a >> 29 and f = (2 F + 1) 2^-22 with F the 21 bits (a >> 8) &
//   0x1FFFFF, the centre of its cell in (0, 1) (never an octant's edge).
//
// No library log, sin or cos (their last bits differ between glibc, Highway and CUDA): only
// IEEE-754 additions, multiplications, fused multiply-adds, one division and one square root,
// each rounded to nearest, and exact bit operations, in one fixed order (ieee_ops.hpp says how a
// policy keeps the compilers from contracting or reordering them).
// - ln u1 = e ln 2 + ln m, with m > sqrt(2) taken as m / 2 and e + 1 (exact), so m lies in
//   [sqrt(2)/2, sqrt(2)]; ln m = 2 atanh(s) = 2 (s + s^3/3 + ... + s^9/9), s = (m - 1)/(m + 1),
//   |s| <= 0.1716 (the next term is below 2^-28 of the sum); ln 2 in two parts.
// - 2 pi u2 by octants, exactly: f is reflected to 1 - f in odd octants (exact, on the bits),
//   a = f pi/4 in (0, pi/4); sin a and cos a by their Taylor series to a^9 and a^10 (truncation
//   below 2^-27), then swapped and negated by octant (bit operations).
// The error is within a few float ulps of the radius against the exact transform of the same
// uniforms (tests/common/test_gaussian.cpp bounds it).
#pragma once

#include <cstdint>

#include "gpufec/common/hd.hpp"
#include "gpufec/common/ieee_ops.hpp"

// Always inlined: a Highway caller instantiates these with its target's vectors, and only inlined
// into that caller are they compiled for its instruction set (an out-of-line copy would be
// compiled for the baseline and pass the vectors by another ABI).
#if defined(__CUDACC__)
#define GPUFEC_BOX_MULLER_INLINE __host__ __device__ __forceinline__
#else
#define GPUFEC_BOX_MULLER_INLINE inline __attribute__((always_inline))
#endif

namespace gpufec::detail {

namespace box_muller_constants {
inline constexpr float sqrt2 = 0x1.6a09e6p+0f;
inline constexpr float ln2_hi = 0x1.62e4p-1f;  // 15 significant bits
inline constexpr float ln2_lo = 0x1.7f7d1cp-20f;
inline constexpr float pi_over_4 = 0x1.921fb6p-1f;
// A float's 1.0f and 2^23, and 2^23 + 127 + 18: the biased exponent of Z as a float, less the
// bias and 18, is e.
inline constexpr std::uint32_t one_bits = 0x3F800000u, two23_bits = 0x4B000000u;
inline constexpr float two23 = 0x1p+23f, two23_plus_bias_18 = 0x1.000122p+23f;
// Z's bits in the pair's words: its high 8 in a, its low 10 in b.
inline constexpr std::uint32_t z_high_bits = 0xFFu, z_low_bits = 0x3FFu;
// A tail draw's e is tail_exponent_base - clz(T), -83 at the deepest.
inline constexpr int tail_exponent_base = -19;
}  // namespace box_muller_constants

// Horner's rule with fused steps, c0 + z (c1 + z (c2 + ...)), from the highest coefficient down.
// The coefficients are arguments, not an array, so that device code folds them into instructions.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real horner(const Ops& o, Real, float c) {
  return o.set(c);
}
template <class Ops, class Real, class... Higher>
GPUFEC_BOX_MULLER_INLINE Real horner(const Ops& o, Real z, float c, Higher... higher) {
  return o.fma(horner(o, z, higher...), z, o.set(c));
}

// atanh(s)/s - 1 = z/3 + z^2/5 + ... over z: 1/3 + z/5 + z^2/7 + z^3/9, z = s^2.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real atanh_series(const Ops& o, Real z) {
  return horner(o, z, 0x1.555556p-2f, 0x1.99999ap-3f, 0x1.24924ap-3f, 0x1.c71c72p-4f);
}
// sin a = a + a z (-1/3! + z/5! - z^2/7! + z^3/9!), z = a^2: the bracket.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real sin_series(const Ops& o, Real z) {
  return horner(o, z, -0x1.555556p-3f, 0x1.111112p-7f, -0x1.a01a02p-13f, 0x1.71de3ap-19f);
}
// cos a = 1 + z (-1/2! + z/4! - z^2/6! + z^3/8! - z^4/10!): the bracket.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real cos_series(const Ops& o, Real z) {
  return horner(o, z, -0.5f, 0x1.555556p-5f, -0x1.6c16c2p-10f, 0x1.a01a02p-16f, -0x1.27e4fcp-22f);
}

// The exponent e of u1 (u1 in (2^e, 2^(e+1))) from the pair's words when Z != 0: Z < 2^18 is the
// float 2^23 + Z less 2^23 (exact), whose biased exponent is floor(log2 Z) + 127.
template <class Ops, class U>
GPUFEC_BOX_MULLER_INLINE auto binade_exponent(const Ops& o, U a, U b) {
  namespace k = box_muller_constants;
  const U z = o.bor(o.template shl<10>(o.band(a, o.setu(k::z_high_bits))),
                    o.band(b, o.setu(k::z_low_bits)));
  const auto zf = o.sub(o.from_bits(o.bor(z, o.setu(k::two23_bits))), o.set(k::two23));
  return o.sub(o.from_bits(o.bor(o.template shr<23>(o.bits(zf)), o.setu(k::two23_bits))),
               o.set(k::two23_plus_bias_18));
}

// Whether the pair's u1 is a tail draw (Z = 0).
GPUFEC_HD_INLINE bool is_tail_pair(std::uint32_t a, std::uint32_t b) {
  namespace k = box_muller_constants;
  return (a & k::z_high_bits) == 0 && (b & k::z_low_bits) == 0;
}

// ln u1 = e ln 2 + ln m for m in [1, 2) and the float e.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real log_of_binade(const Ops& o, Real m, Real e) {
  namespace k = box_muller_constants;
  const auto high = o.gt(m, o.set(k::sqrt2));
  m = o.select(high, o.mul(m, o.set(0.5f)), m);
  e = o.select(high, o.add(e, o.set(1.0f)), e);
  const Real s = o.div(o.sub(m, o.set(1.0f)), o.add(m, o.set(1.0f)));
  const Real z = o.mul(s, s);
  const Real two_s = o.add(s, s);
  const Real log_m = o.fma(o.mul(two_s, z), atanh_series(o, z), two_s);
  return o.fma(e, o.set(k::ln2_hi), o.fma(e, o.set(k::ln2_lo), log_m));
}

// The pair (g0, g1) of words a and b with u1's exponent e (binade_exponent, or the tail's).
template <class Ops, class U, class Real>
GPUFEC_BOX_MULLER_INLINE void box_muller_words(const Ops& o, U a, U b, Real e, Real& g0, Real& g1) {
  namespace k = box_muller_constants;
  // u1's mantissa: (2 M + 1) in the 23 fraction bits, M = b >> 10.
  const Real m = o.from_bits(o.bor(o.bor(o.template shr<9>(b), o.setu(1u)), o.setu(k::one_bits)));
  const Real r = o.sqrt(o.mul(o.set(-2.0f), log_of_binade(o, m, e)));

  // The angle's octant, and f (1 - f in odd octants, F's bits flipped) as 1 + f less 1 (exact).
  const U octant = o.template shr<29>(a);
  const U odd = o.usub(o.setu(0u), o.band(octant, o.setu(1u)));  // all ones in odd octants
  const U F = o.band(o.bxor(o.template shr<8>(a), odd), o.setu(0x1FFFFFu));
  const Real f =
      o.sub(o.from_bits(o.bor(o.template shl<2>(F), o.setu(k::one_bits | 2u))), o.set(1.0f));
  const Real t = o.mul(f, o.set(k::pi_over_4));
  const Real z = o.mul(t, t);
  const Real sin_t = o.fma(o.mul(t, z), sin_series(o, z), t);
  const Real cos_t = o.fma(z, cos_series(o, z), o.set(1.0f));

  // theta = octant pi/4 + t (even octants) or (octant + 1) pi/4 - t (odd): cos and sin of theta
  // are those of t, swapped in octants 1, 2, 5, 6, cos negative in 2..5, sin negative in 4..7:
  // bit 0 of (octant + 1) / 2, of (octant + 2) / 4, and bit 2 of the octant.
  const U swap =
      o.usub(o.setu(0u), o.band(o.template shr<1>(o.uadd(octant, o.setu(1u))), o.setu(1u)));
  const U cos_sign = o.template shl<31>(o.template shr<2>(o.uadd(octant, o.setu(2u))));
  const U sin_sign = o.band(o.template shl<29>(octant), o.setu(0x80000000u));
  const U sin_bits = o.bits(sin_t), cos_bits = o.bits(cos_t);
  const U flip = o.band(swap, o.bxor(sin_bits, cos_bits));
  const Real c = o.from_bits(o.bxor(cos_bits, flip)), s = o.from_bits(o.bxor(sin_bits, flip));
  g0 = o.from_bits(o.bxor(o.bits(o.mul(r, c)), cos_sign));
  g1 = o.from_bits(o.bxor(o.bits(o.mul(r, s)), sin_sign));
}

// The policy for one float at a time, on the host and the device (ieee_ops.hpp).
struct scalar_box_muller_ops {
  GPUFEC_HD_INLINE float set(float c) const { return c; }
  GPUFEC_HD_INLINE std::uint32_t setu(std::uint32_t c) const { return c; }
  GPUFEC_HD_INLINE float add(float a, float b) const { return ieee_add(a, b); }
  GPUFEC_HD_INLINE float sub(float a, float b) const { return ieee_sub(a, b); }
  GPUFEC_HD_INLINE float mul(float a, float b) const { return ieee_mul(a, b); }
  GPUFEC_HD_INLINE float div(float a, float b) const { return ieee_div(a, b); }
  GPUFEC_HD_INLINE float sqrt(float a) const { return ieee_sqrt(a); }
  GPUFEC_HD_INLINE float fma(float a, float b, float c) const { return ieee_fma(a, b, c); }
#if defined(__CUDA_ARCH__)
  __device__ __forceinline__ std::uint32_t bits(float a) const {
    return __float_as_uint(a);
  }
  __device__ __forceinline__ float from_bits(std::uint32_t b) const {
    return __uint_as_float(b);
  }
#else
  std::uint32_t bits(float a) const {
    return __builtin_bit_cast(std::uint32_t, a);
  }
  float from_bits(std::uint32_t b) const {
    return __builtin_bit_cast(float, b);
  }
#endif
  GPUFEC_HD_INLINE bool gt(float a, float b) const {
    return a > b;
  }
  GPUFEC_HD_INLINE float select(bool m, float a, float b) const {
    return m ? a : b;
  }
  GPUFEC_HD_INLINE std::uint32_t band(std::uint32_t a, std::uint32_t b) const {
    return a & b;
  }
  GPUFEC_HD_INLINE std::uint32_t bor(std::uint32_t a, std::uint32_t b) const {
    return a | b;
  }
  GPUFEC_HD_INLINE std::uint32_t bxor(std::uint32_t a, std::uint32_t b) const {
    return a ^ b;
  }
  GPUFEC_HD_INLINE std::uint32_t uadd(std::uint32_t a, std::uint32_t b) const {
    return a + b;
  }
  GPUFEC_HD_INLINE std::uint32_t usub(std::uint32_t a, std::uint32_t b) const {
    return a - b;
  }
  template <int n>
  GPUFEC_HD_INLINE std::uint32_t shl(std::uint32_t a) const {
    return a << n;
  }
  template <int n>
  GPUFEC_HD_INLINE std::uint32_t shr(std::uint32_t a) const {
    return a >> n;
  }
};

// u1's exponent for a tail draw from the pair's 64 bits of the tail block (hi, lo).
GPUFEC_HD_INLINE float tail_exponent(std::uint32_t hi, std::uint32_t lo) {
  namespace k = box_muller_constants;
  const std::uint64_t t = static_cast<std::uint64_t>(hi) << 32 | lo;
#if defined(__CUDA_ARCH__)
  const int zeros = __clzll(static_cast<long long>(t));  // 64 for t = 0
#else
  const int zeros = t == 0 ? 64 : __builtin_clzll(t);
#endif
  return static_cast<float>(k::tail_exponent_base - zeros);
}

}  // namespace gpufec::detail
