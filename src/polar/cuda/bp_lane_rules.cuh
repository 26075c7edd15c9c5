// The message types of the register BP kernel: a register holds one codeword's message (fp32) or
// two codewords' (fp16, one per half of a __half2). Each type gives the update rule on a register
// (check, variable, saturate), the start values, and per-lane access: a lane's LLR in and out, its
// hard decision as one bit.
//
// fp32 gives every message the CPU reference's value (min-sum and scaled min-sum, the rules the
// register kernel runs).
//
// fp16 (min-sum and scaled min-sum only): messages saturate at +-2^14 (the kernel saturates the
// sums; a check's output never exceeds its first argument's magnitude), LLRs in are clamped to
// that bound and a frozen bit enters as +2^14, so a variable-node sum (two values of at most 2^14)
// never leaves the finite half range: no infinity, no NaN. Not the CPU's numbers;
// docs/polar.md measures the FER it costs.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "polar/cuda/bp_rules.cuh"

namespace gpufec::polar::detail::lane_rules {

// Min-sum and scaled min-sum in fp32: f = sign(a) sign(b) min(|a|, |b|) as a clamp of a, its sign
// flipped by b's, to [-|b|, |b|]: one LOP3 and two FMNMX (fminf/fmaxf). Every non-zero message
// equals the CPU's (bp_rules' min_sum, std::min on magnitudes): fminf may differ from std::min
// only in the sign of a zero result, and a zero's sign reaches no non-zero value (f of a zero is a
// zero, x + 0 = x) nor any decision (hard: v < 0). Plain min-sum skips the multiply by 1.
template <bool Scaled>
struct fp32_min_sum {
  using value = float;
  static constexpr int lanes = 1;
  float scale = 1.0f;
  // f is symmetric; the bound is the first argument's magnitude, which the two checks of a
  // butterfly share (the compiler computes it once).
  __device__ float check(float a, float b) const {
    const float flipped = __uint_as_float(__float_as_uint(b) ^ (__float_as_uint(a) & 0x80000000u));
    const float bound = fabsf(a);
    const float f = fmaxf(fminf(flipped, bound), -bound);
    if constexpr (Scaled) return __fmul_rn(scale, f);
    return f;
  }
  __device__ static float variable(float a, float b) { return __fadd_rn(a, b); }
  __device__ static float saturate(float v) { return v; }
  __device__ static float frozen() { return cuda_rules::min_sum::frozen(); }
  __device__ static float unknown() { return 0.0f; }
  __device__ static float from_llr(float v, float, int) { return cuda_rules::min_sum::from_llr(v); }
  __device__ static float to_llr(float v, int) { return v; }
  __device__ static unsigned hard_bits(float v) { return v < 0.0f ? 1u : 0u; }
  __device__ static float with_lane(float, float from, int) { return from; }
};

// Two fp16 codewords per register (lane 0 in the low half), min-sum or scaled min-sum.
inline constexpr float fp16_bound = 16384.0f;  // 2^14: a sum of two stays below 65504

// The cuda_fp16 intrinsics are inline assembly, which the compiler neither folds nor hoists, so
// the constants live in the rule (made on the host, kernel parameters) and the bit work is done on
// the 32-bit word.
template <bool Scaled>
struct fp16_min_sum {
  using value = __half2;
  static constexpr int lanes = 2;
  __half2 scale, bound, negative_bound;  // both lanes

  static fp16_min_sum make(float scale_value) {
    fp16_min_sum r;
    r.scale = __float2half2_rn(scale_value);
    r.bound = __float2half2_rn(fp16_bound);
    r.negative_bound = __float2half2_rn(-fp16_bound);
    return r;
  }
  __device__ static unsigned bits_of(__half2 v) { return *reinterpret_cast<const unsigned*>(&v); }
  __device__ static __half2 of_bits(unsigned u) { return *reinterpret_cast<const __half2*>(&u); }

  __device__ __half2 check(__half2 a, __half2 b) const {  // as fp32_min_sum::check
    const unsigned ua = bits_of(a);
    const __half2 flipped = of_bits(bits_of(b) ^ (ua & 0x80008000u));
    const __half2 f =
        __hmax2(__hmin2(flipped, of_bits(ua & 0x7fff7fffu)), of_bits(ua | 0x80008000u));
    if constexpr (Scaled) return __hmul2(scale, f);
    return f;
  }
  __device__ static __half2 variable(__half2 a, __half2 b) { return __hadd2(a, b); }
  __device__ __half2 saturate(__half2 v) const {
    return __hmin2(__hmax2(v, negative_bound), bound);
  }
  __device__ __half2 frozen() const { return bound; }
  __device__ static __half2 unknown() { return of_bits(0u); }
  // A lane's LLR (`lane` selects which of v0, v1 it is: both lanes load their own).
  __device__ static __half2 from_llr(float v0, float v1, int) {
    return __floats2half2_rn(cuda_rules::clamp_to(v0, -fp16_bound, fp16_bound),
                             cuda_rules::clamp_to(v1, -fp16_bound, fp16_bound));
  }
  __device__ static float to_llr(__half2 v, int lane) {
    return lane == 0 ? __low2float(v) : __high2float(v);
  }
  // Bit l: lane l is negative (sign set, magnitude not zero: -0 decides 0, as v < 0).
  __device__ static unsigned hard_bits(__half2 v) {
    const unsigned u = bits_of(v);
    const unsigned negative = u & ((u & 0x7fff7fffu) + 0x7fff7fffu) & 0x80008000u;
    return (negative >> 15 & 1u) | (negative >> 30 & 2u);
  }
  __device__ static __half2 with_lane(__half2 v, __half2 from, int lane) {
    const unsigned keep = lane == 0 ? 0xffff0000u : 0x0000ffffu;
    return of_bits((bits_of(v) & keep) | (bits_of(from) & ~keep));
  }
};

}  // namespace gpufec::polar::detail::lane_rules
