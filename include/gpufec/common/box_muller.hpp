// The Box-Muller transform in correctly rounded steps, written once over an arithmetic policy, so
// the host loop, every Highway SIMD target and the CUDA kernels compute the same Gaussians to the
// last bit (docs/random.md):
//
//   g0 = sqrt(-2 ln u1) cos(2 pi u2),  g1 = sqrt(-2 ln u1) sin(2 pi u2),  u1, u2 in (0, 1).
//
// No library log, sin or cos (their last bits differ between glibc, Highway and CUDA): only
// IEEE-754 additions, subtractions, multiplications, divisions and square roots, each rounded to
// nearest, floor, exact bit operations and selections, in one fixed order. A policy must compute
// each operation alone, never contracted into an FMA (ieee_ops.hpp says how).
//
// - ln u1 = e ln 2 + ln m, u1 = 2^e m with m in [sqrt(2)/2, sqrt(2)] (exact, from the bits), and
//   ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), s = (m - 1)/(m + 1), |s| <= 0.1716: eleven
//   terms leave a truncation below 1e-20; ln 2 in two parts, the high one with 46 significant
//   bits, so e ln2_hi is exact for every |e| < 128.
// - 2 pi u2 by octants, exactly: t = 8 u2 (exact), octant o = floor(t), f = t - o (exact), taken
//   as 1 - f (exact) in odd octants, a = f pi/4 in [0, pi/4]; sin a and cos a by their Taylor
//   series to a^17 and a^18 (truncation below 1e-19), then swapped and negated by octant (exact).
// The error is a few ulps against the exact transform (tests/common/test_philox.cpp bounds it):
// a different but as good Gaussian, now one and the same on every backend.
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
inline constexpr double sqrt2 = 0x1.6a09e667f3bcdp+0;
inline constexpr double ln2_hi = 0x1.62e42fefa3980p-1;  // 46 significant bits
inline constexpr double ln2_lo = 0x1.bcd5e4f1d9cc0p-47;
inline constexpr double pi_over_4 = 0x1.921fb54442d18p-1;
}  // namespace box_muller_constants

// Horner's rule, c0 + z (c1 + z (c2 + ...)), evaluated from the highest coefficient down. The
// coefficients are arguments, not an array, so that device code folds them into its instructions.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real horner(const Ops& o, Real, double c) {
  return o.set(c);
}
template <class Ops, class Real, class... Higher>
GPUFEC_BOX_MULLER_INLINE Real horner(const Ops& o, Real z, double c, Higher... higher) {
  return o.add(o.mul(horner(o, z, higher...), z), o.set(c));
}

// atanh(s)/s - 1 = z/3 + z^2/5 + ... over z: 1/3 + z/5 + ... + z^10/23, z = s^2.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real atanh_series(const Ops& o, Real z) {
  return horner(o, z, 0x1.5555555555555p-2, 0x1.999999999999ap-3, 0x1.2492492492492p-3,
                0x1.c71c71c71c71cp-4, 0x1.745d1745d1746p-4, 0x1.3b13b13b13b14p-4,
                0x1.1111111111111p-4, 0x1.e1e1e1e1e1e1ep-5, 0x1.af286bca1af28p-5,
                0x1.8618618618618p-5, 0x1.642c8590b2164p-5);
}
// sin a = a + a z (-1/3! + z/5! - ... + z^7/17!), z = a^2: the bracket.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real sin_series(const Ops& o, Real z) {
  return horner(o, z, -0x1.5555555555555p-3, 0x1.1111111111111p-7, -0x1.a01a01a01a01ap-13,
                0x1.71de3a556c734p-19, -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33,
                -0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49);
}
// cos a = 1 - z/2 + z^2 (1/4! - z/6! + ... - z^7/18!): the bracket.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real cos_series(const Ops& o, Real z) {
  return horner(o, z, 0x1.5555555555555p-5, -0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-16,
                -0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29, -0x1.93974a8c07c9dp-37,
                0x1.ae7f3e733b81fp-45, -0x1.6827863b97d97p-53);
}

// ln x for a positive normal x (the uniforms of uniform_open01 are).
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE Real exact_steps_log(const Ops& o, Real x) {
  namespace k = box_muller_constants;
  Real m, e;
  o.split_exponent(x, m, e);  // x = 2^e m, m in [1, 2), e a double
  const auto high = o.gt(m, o.set(k::sqrt2));
  m = o.select(high, o.mul(m, o.set(0.5)), m);
  e = o.select(high, o.add(e, o.set(1.0)), e);
  const Real s = o.div(o.sub(m, o.set(1.0)), o.add(m, o.set(1.0)));
  const Real z = o.mul(s, s);
  const Real two_s = o.add(s, s);
  const Real log_m = o.add(two_s, o.mul(two_s, o.mul(z, atanh_series(o, z))));
  return o.add(o.mul(e, o.set(k::ln2_hi)), o.add(log_m, o.mul(e, o.set(k::ln2_lo))));
}

// The pair (g0, g1) from the uniforms (u1, u2) of one Philox block.
template <class Ops, class Real>
GPUFEC_BOX_MULLER_INLINE void box_muller(const Ops& o, Real u1, Real u2, Real& g0, Real& g1) {
  namespace k = box_muller_constants;
  const Real r = o.sqrt(o.mul(o.set(-2.0), exact_steps_log(o, u1)));

  const Real t = o.mul(u2, o.set(8.0));
  const Real octant = o.floor(t);  // 0..7
  const Real f = o.sub(t, octant);
  const Real half = o.floor(o.mul(octant, o.set(0.5)));
  const auto odd = o.gt(o.sub(octant, o.add(half, half)), o.set(0.5));
  const Real a = o.mul(o.select(odd, o.sub(o.set(1.0), f), f), o.set(k::pi_over_4));
  const Real z = o.mul(a, a);
  const Real sin_a = o.add(a, o.mul(a, o.mul(z, sin_series(o, z))));
  const Real cos_a =
      o.add(o.sub(o.set(1.0), o.mul(z, o.set(0.5))), o.mul(o.mul(z, z), cos_series(o, z)));

  // theta = octant pi/4 + a (even octants) or (octant + 1) pi/4 - a (odd): cos and sin of theta
  // are those of a, swapped in octants 1, 2, 5, 6, cos negative in 2..5, sin negative in 4..7.
  const Real in_half = o.select(o.gt(octant, o.set(3.5)), o.sub(octant, o.set(4.0)), octant);
  const auto swap = o.both(o.gt(in_half, o.set(0.5)), o.lt(in_half, o.set(2.5)));
  const auto cos_negative = o.both(o.gt(octant, o.set(1.5)), o.lt(octant, o.set(5.5)));
  const auto sin_negative = o.gt(octant, o.set(3.5));
  const Real c = o.select(swap, sin_a, cos_a), s = o.select(swap, cos_a, sin_a);
  g0 = o.mul(r, o.select(cos_negative, o.neg(c), c));
  g1 = o.mul(r, o.select(sin_negative, o.neg(s), s));
}

// The policy for one double at a time, on the host and the device (ieee_ops.hpp).
struct scalar_box_muller_ops {
  GPUFEC_HD_INLINE double set(double c) const { return c; }
  GPUFEC_HD_INLINE double add(double a, double b) const { return ieee_add(a, b); }
  GPUFEC_HD_INLINE double sub(double a, double b) const { return ieee_sub(a, b); }
  GPUFEC_HD_INLINE double mul(double a, double b) const { return ieee_mul(a, b); }
  GPUFEC_HD_INLINE double div(double a, double b) const { return ieee_div(a, b); }
  GPUFEC_HD_INLINE double sqrt(double a) const { return ieee_sqrt(a); }
#if defined(__CUDA_ARCH__)
  __device__ __forceinline__ double floor(double a) const {
    return ::floor(a);
  }
  __device__ __forceinline__ std::uint64_t bits(double a) const {
    return static_cast<std::uint64_t>(__double_as_longlong(a));
  }
  __device__ __forceinline__ double from_bits(std::uint64_t b) const {
    return __longlong_as_double(static_cast<long long>(b));
  }
#else
  double floor(double a) const {
    return __builtin_floor(a);
  }
  std::uint64_t bits(double a) const {
    return __builtin_bit_cast(std::uint64_t, a);
  }
  double from_bits(std::uint64_t b) const {
    return __builtin_bit_cast(double, b);
  }
#endif
  GPUFEC_HD_INLINE double neg(double a) const {
    return -a;
  }
  GPUFEC_HD_INLINE bool gt(double a, double b) const {
    return a > b;
  }
  GPUFEC_HD_INLINE bool lt(double a, double b) const {
    return a < b;
  }
  GPUFEC_HD_INLINE bool both(bool a, bool b) const {
    return a && b;
  }
  GPUFEC_HD_INLINE double select(bool m, double a, double b) const {
    return m ? a : b;
  }
  // x = 2^e m, m in [1, 2), for a positive normal x. e exactly, without an integer conversion:
  // the biased exponent E < 2^11 as the low bits of 2^52 + E, less 2^52 + 1023.
  GPUFEC_HD_INLINE void split_exponent(double x, double& m, double& e) const {
    const std::uint64_t b = bits(x);
    m = from_bits((b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
    e = sub(from_bits((b >> 52) | 0x4330000000000000ull), 0x1.00000000003ffp+52);
  }
};

}  // namespace gpufec::detail
