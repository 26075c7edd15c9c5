// The Box-Muller transform in correctly rounded single-precision steps, written once over an
// arithmetic policy, so the host loop, every Highway SIMD target and the CUDA kernels compute the
// same Gaussians to the last bit (docs/random.md):
//
//   g0 = sqrt(-2 ln u1) cos(2 pi u2),  g1 = sqrt(-2 ln u1) sin(2 pi u2),  u1, u2 in (0, 1]
//
// with u1 and u2 the 52-bit uniforms of a Philox block rounded to float (the tail is kept: the
// smallest u1 gives |g| up to 8.6; float resolves u1 to 2^-24 of its value everywhere). Float,
// because every decoder input is a float or narrower: the noise in double bought nothing and cost
// twice the lanes and twice the series.
//
// No library log, sin or cos (their last bits differ between glibc, Highway and CUDA): only
// IEEE-754 additions, subtractions, multiplications, divisions and square roots, each rounded to
// nearest, floor, exact bit operations and selections, in one fixed order. A policy must compute
// each operation alone, never contracted into an FMA (ieee_ops.hpp says how).
//
// - ln u1 = e ln 2 + ln m, u1 = 2^e m with m in [sqrt(2)/2, sqrt(2)] (exact, from the bits), and
//   ln m = 2 atanh(s) = 2 (s + s^3/3 + ... + s^9/9), s = (m - 1)/(m + 1), |s| <= 0.1716 (the next
//   term is below 2^-28 of the sum); ln 2 in two parts, the high one with 17 significant bits, so
//   e ln2_hi is exact for every |e| < 128.
// - 2 pi u2 by octants, exactly: t = 8 u2 (exact), octant o = floor(t), f = t - o (exact), taken
//   as 1 - f (exact) in odd octants, a = f pi/4 in [0, pi/4]; sin a and cos a by their Taylor
//   series to a^9 and a^12 (truncation below 2^-28), then swapped and negated by octant (exact).
//   u2 = 1 (a uniform within 2^-25 of 1) is octant 8, which the same rules take as the angle 2 pi.
// The error is within a few float ulps of the radius against the exact transform
// (tests/common/test_gaussian.cpp bounds it).
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
inline constexpr float ln2_hi = 0x1.62e4p-1f;  // 17 significant bits
inline constexpr float ln2_lo = 0x1.7f7d1cp-20f;
inline constexpr float pi_over_4 = 0x1.921fb6p-1f;
// split_exponent's bits: a float's mantissa field, 1.0f, 2^23, and 2^23 + 127 (the bias).
inline constexpr std::uint32_t mantissa_bits = 0x007FFFFFu, one_bits = 0x3F800000u,
                               two23_bits = 0x4B000000u;
inline constexpr float two23_plus_bias = 0x1.0000fep+23f;
}  // namespace box_muller_constants

// Horner's rule, c0 + z (c1 + z (c2 + ...)), evaluated from the highest coefficient down. The
// coefficients are arguments, not an array, so that device code folds them into its instructions.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real horner(const Ops& o, Real, float c) {
  return o.set(c);
}
template <class Ops, class Real, class... Higher>
GPUFEC_BOX_MULLER_INLINE Real horner(const Ops& o, Real z, float c, Higher... higher) {
  return o.add(o.mul(horner(o, z, higher...), z), o.set(c));
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
// cos a = 1 - z/2 + z^2 (1/4! - z/6! + z^2/8! - z^3/10!): the bracket.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real cos_series(const Ops& o, Real z) {
  return horner(o, z, 0x1.555556p-5f, -0x1.6c16c2p-10f, 0x1.a01a02p-16f, -0x1.27e4fcp-22f);
}

// ln x for a positive normal x (the uniforms of uniform_open01 are).
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real exact_steps_log(const Ops& o, Real x) {
  namespace k = box_muller_constants;
  Real m, e;
  o.split_exponent(x, m, e);  // x = 2^e m, m in [1, 2), e a float
  const auto high = o.gt(m, o.set(k::sqrt2));
  m = o.select(high, o.mul(m, o.set(0.5f)), m);
  e = o.select(high, o.add(e, o.set(1.0f)), e);
  const Real s = o.div(o.sub(m, o.set(1.0f)), o.add(m, o.set(1.0f)));
  const Real z = o.mul(s, s);
  const Real two_s = o.add(s, s);
  const Real log_m = o.add(two_s, o.mul(two_s, o.mul(z, atanh_series(o, z))));
  return o.add(o.mul(e, o.set(k::ln2_hi)), o.add(log_m, o.mul(e, o.set(k::ln2_lo))));
}

// The pair (g0, g1) from the uniforms (u1, u2) of one Philox block.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE void box_muller(const Ops& o, Real u1, Real u2, Real& g0, Real& g1) {
  namespace k = box_muller_constants;
  const Real r = o.sqrt(o.mul(o.set(-2.0f), exact_steps_log(o, u1)));

  const Real t = o.mul(u2, o.set(8.0f));
  const Real octant = o.floor(t);  // 0..7
  const Real f = o.sub(t, octant);
  const Real half = o.floor(o.mul(octant, o.set(0.5f)));
  const auto odd = o.gt(o.sub(octant, o.add(half, half)), o.set(0.5f));
  const Real a = o.mul(o.select(odd, o.sub(o.set(1.0f), f), f), o.set(k::pi_over_4));
  const Real z = o.mul(a, a);
  const Real sin_a = o.add(a, o.mul(a, o.mul(z, sin_series(o, z))));
  const Real cos_a =
      o.add(o.sub(o.set(1.0f), o.mul(z, o.set(0.5f))), o.mul(o.mul(z, z), cos_series(o, z)));

  // theta = octant pi/4 + a (even octants) or (octant + 1) pi/4 - a (odd): cos and sin of theta
  // are those of a, swapped in octants 1, 2, 5, 6, cos negative in 2..5, sin negative in 4..7.
  const Real in_half = o.select(o.gt(octant, o.set(3.5f)), o.sub(octant, o.set(4.0f)), octant);
  const auto swap = o.both(o.gt(in_half, o.set(0.5f)), o.lt(in_half, o.set(2.5f)));
  const auto cos_negative = o.both(o.gt(octant, o.set(1.5f)), o.lt(octant, o.set(5.5f)));
  const auto sin_negative = o.gt(octant, o.set(3.5f));
  const Real c = o.select(swap, sin_a, cos_a), s = o.select(swap, cos_a, sin_a);
  g0 = o.mul(r, o.select(cos_negative, o.neg(c), c));
  g1 = o.mul(r, o.select(sin_negative, o.neg(s), s));
}

// The policy for one float at a time, on the host and the device (ieee_ops.hpp).
struct scalar_box_muller_ops {
  GPUFEC_HD_INLINE float set(float c) const { return c; }
  GPUFEC_HD_INLINE float add(float a, float b) const { return ieee_add(a, b); }
  GPUFEC_HD_INLINE float sub(float a, float b) const { return ieee_sub(a, b); }
  GPUFEC_HD_INLINE float mul(float a, float b) const { return ieee_mul(a, b); }
  GPUFEC_HD_INLINE float div(float a, float b) const { return ieee_div(a, b); }
  GPUFEC_HD_INLINE float sqrt(float a) const { return ieee_sqrt(a); }
#if defined(__CUDA_ARCH__)
  __device__ __forceinline__ float floor(float a) const {
    return ::floorf(a);
  }
  __device__ __forceinline__ std::uint32_t bits(float a) const {
    return __float_as_uint(a);
  }
  __device__ __forceinline__ float from_bits(std::uint32_t b) const {
    return __uint_as_float(b);
  }
#else
  float floor(float a) const {
    return __builtin_floorf(a);
  }
  std::uint32_t bits(float a) const {
    return __builtin_bit_cast(std::uint32_t, a);
  }
  float from_bits(std::uint32_t b) const {
    return __builtin_bit_cast(float, b);
  }
#endif
  GPUFEC_HD_INLINE float neg(float a) const {
    return -a;
  }
  GPUFEC_HD_INLINE bool gt(float a, float b) const {
    return a > b;
  }
  GPUFEC_HD_INLINE bool lt(float a, float b) const {
    return a < b;
  }
  GPUFEC_HD_INLINE bool both(bool a, bool b) const {
    return a && b;
  }
  GPUFEC_HD_INLINE float select(bool m, float a, float b) const {
    return m ? a : b;
  }
  // x = 2^e m, m in [1, 2), for a positive normal x. e exactly, without an integer conversion:
  // the biased exponent E < 2^8 as the low bits of 2^23 + E, less 2^23 + 127.
  GPUFEC_HD_INLINE void split_exponent(float x, float& m, float& e) const {
    namespace k = box_muller_constants;
    const std::uint32_t b = bits(x);
    m = from_bits((b & k::mantissa_bits) | k::one_bits);
    e = sub(from_bits((b >> 23) | k::two23_bits), k::two23_plus_bias);
  }
};

}  // namespace gpufec::detail
