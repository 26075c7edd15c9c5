// The message types of the register BP kernel: a register holds one codeword's message (fp32) or
// two codewords' (fp16, one per half of a __half2). Each type gives the update rule on a register
// (check, variable, saturate), the start values, and per-lane access: a lane's LLR in and out, its
// hard decision as one bit.
//
// fp32 gives every message the CPU reference's value (min-sum and scaled min-sum, the rules the
// register kernel runs).
//
// fp16 (min-sum and scaled min-sum only): no infinity and no NaN, with saturation only where a
// column leaves a group. A min-sum check never exceeds its first argument's magnitude, and in the
// right-to-left sweep L is that argument and the kept term (L_s = f(L_s+1, .) or
// f(L_s+1, .) + L_s+1), R only ever the second argument; the left-to-right sweep likewise for R.
// So along a sweep a message at most doubles per stage, whatever the other sweep holds. LLRs are
// clamped to B = 2^12, a frozen bit enters as B, and the kernel saturates each boundary column to
// +-B as it stores it: a group has at most 3 stages, so every message is at most 8B = 2^15, every
// sum formed at most 9B (the decisions' L_0 + R_0), below 65504. Not the CPU's numbers;
// docs/polar.md measures the FER it costs.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "polar/cuda/bp_rules.cuh"

namespace gpufec::polar::detail::lane_rules {

// Min-sum and scaled min-sum in fp32: f = sign(a) sign(b) min(|a|, |b|) as the magnitude
// fminf(|a|, |b|) (one FMNMX, the absolute values are operand modifiers) with the sign bit of the
// product a b (an FMUL, on the FMA pipe) put in by one LOP3. The ALU pipe, which bounds this
// kernel (docs/polar.md, floor), does two instructions per check instead of the three of a clamp.
// The product's sign is the XOR of the signs whatever it rounds to (0 and infinity keep their
// sign); it is a NaN only for 0 times infinity, where the magnitude is 0. So every non-zero
// message equals the CPU's (bp_rules' min_sum), and a zero may differ only in its sign, which
// reaches no non-zero value (f of a zero is a zero, x + 0 = x) nor any decision (hard: v < 0).
// Plain min-sum skips the multiply by the scale.
template <bool Scaled>
struct fp32_min_sum {
  using value = float;
  static constexpr int lanes = 1;
  float scale = 1.0f;
  __device__ float check(float a, float b) const {
    const float magnitude = fminf(fabsf(a), fabsf(b));
    const unsigned sign = __float_as_uint(__fmul_rn(a, b)) & 0x80000000u;
    const float f = __uint_as_float(__float_as_uint(magnitude) | sign);
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
inline constexpr float fp16_bound = 4096.0f;  // B = 2^12: see the top of this file

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

  // As fp32_min_sum::check: the magnitudes' minimum, the product's sign bits (HMUL2, FMA pipe).
  // Its operands are finite (at most 2^15), so the product is finite or +-infinity, never a NaN.
  __device__ __half2 check(__half2 a, __half2 b) const {
    const __half2 magnitude = __hmin2(__habs2(a), __habs2(b));
    const unsigned sign = bits_of(__hmul2(a, b)) & 0x80008000u;
    const __half2 f = of_bits(bits_of(magnitude) | sign);
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
