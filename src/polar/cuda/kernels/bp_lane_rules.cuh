// The message types of the register BP kernel: a register holds one codeword's message (fp32) or
// two codewords' (fp16, one per half of a __half2). Each type gives the update rule on a register
// (check, variable, saturate), the start values, and per-lane access: a lane's LLR in and out, and
// its hard decision as the sign bit of a "sign word".
//
// The min-sum check is one instruction in both precisions: PTX min.xorsign.abs (sm_86 and later),
// min(|a|, |b|) with the XOR of the operands' sign bits, which is f = sign(a) sign(b) min(|a|, |b|)
// bit for bit as bp_rules' min_sum and the CPU form it (with_sign: the XOR of the signs, zeros
// included). Earlier forms took three instructions (docs/polar.md).
//
// fp32 gives every message the CPU reference's value (min-sum and scaled min-sum, the rules the
// register kernel runs).
//
// fp16 (min-sum and scaled min-sum only): no infinity and no NaN, with saturation at one column.
// A min-sum check never exceeds its first argument's magnitude, and in the right-to-left sweep L is
// that argument and the kept term (L_s = f(L_s+1, .) or f(L_s+1, .) + L_s+1), R only ever the
// second argument; the left-to-right sweep likewise for R. So along a sweep a message at most
// doubles per stage, whatever the other sweep holds. LLRs are clamped to B = 2^9, a frozen bit
// enters as B, and the kernel saturates column 6 (a boundary column for m >= 7) to +-B as it stores
// it, in both sweeps. Then L_c <= 2^(6-c) B below column 6 and 2^(m-c) B <= 32 B above it,
// R_c <= 2^c B up to column 6 and 2^(c-6) B <= 32 B above it (m <= 11), so every message is at
// most 64 B, every sum L_s+1 + R_s formed at most 33 B, and the decisions' L_0 + R_0 at most 65 B =
// 33280, below 65504 (m <= 6 needs no saturation: 2^m B <= 64 B). Not the CPU's numbers;
// docs/polar.md measures the FER it costs.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "polar/cuda/kernels/bp_rules.cuh"

namespace gpufec::polar::detail::lane_rules {

// min(|a|, |b|) with the sign bit sign(a) XOR sign(b): one instruction from sm_86 on, else the
// same bits in three.
__device__ __forceinline__ float min_xorsign(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 860
  float f;
  asm("min.xorsign.abs.f32 %0, %1, %2;" : "=f"(f) : "f"(a), "f"(b));
  return f;
#else
  const unsigned sign = (__float_as_uint(a) ^ __float_as_uint(b)) & 0x80000000u;
  return __uint_as_float(__float_as_uint(fminf(fabsf(a), fabsf(b))) | sign);
#endif
}
__device__ __forceinline__ unsigned min_xorsign_x2(unsigned a, unsigned b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 860
  unsigned f;
  asm("min.xorsign.abs.f16x2 %0, %1, %2;" : "=r"(f) : "r"(a), "r"(b));
  return f;
#else
  const __half2 magnitude = __hmin2(__habs2(*reinterpret_cast<const __half2*>(&a)),
                                    __habs2(*reinterpret_cast<const __half2*>(&b)));
  return *reinterpret_cast<const unsigned*>(&magnitude) | ((a ^ b) & 0x80008000u);
#endif
}

// Per lane: a "negative mask" has all the lane's bits set where its value is < 0 (not -0; no NaN
// arises), so its bits under sign_bit(lane) are that lane's hard decision; a "keep mask" has the
// bits of the lanes not in a lane set, and masked(v, keep) clears the others to +0 (unknown).

// Min-sum and scaled min-sum in fp32. Plain min-sum skips the multiply by the scale.
template <bool Scaled>
struct fp32_min_sum {
  using value = float;
  static constexpr int lanes = 1;
  float scale = 1.0f;
  __device__ float check(float a, float b) const {
    const float f = min_xorsign(a, b);
    if constexpr (Scaled) return __fmul_rn(scale, f);
    return f;
  }
  __device__ static float variable(float a, float b) { return __fadd_rn(a, b); }
  static constexpr bool saturates(int) { return false; }
  __device__ static float saturate(float v) { return v; }
  __device__ static float frozen() { return cuda_rules::min_sum::frozen(); }
  __device__ static float unknown() { return 0.0f; }
  __device__ static float from_llr(float v, float, int) { return cuda_rules::min_sum::from_llr(v); }
  __device__ static float to_llr(float v, int) { return v; }
  __device__ static unsigned negative_mask(float v) { return v < 0.0f ? ~0u : 0u; }
  static constexpr unsigned sign_bit(int) { return 0x80000000u; }
  __device__ static unsigned keep_mask(unsigned lanes) { return lanes & 1u ? 0u : ~0u; }
  __device__ static float masked(float v, unsigned keep) {
    return __uint_as_float(__float_as_uint(v) & keep);
  }
  __device__ static float with_lane(float, float from, int) { return from; }
};

// Two fp16 codewords per register (lane 0 in the low half), min-sum or scaled min-sum.
inline constexpr float fp16_bound = 512.0f;  // B = 2^9: see the top of this file
inline constexpr int fp16_saturated_column = 6;

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

  __device__ __half2 check(__half2 a, __half2 b) const {
    const __half2 f = of_bits(min_xorsign_x2(bits_of(a), bits_of(b)));
    if constexpr (Scaled) return __hmul2(scale, f);
    return f;
  }
  __device__ static __half2 variable(__half2 a, __half2 b) { return __hadd2(a, b); }
  // Whether boundary column c is saturated as it is stored (the bound at the top of this file).
  static constexpr bool saturates(int c) { return c == fp16_saturated_column; }
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
  __device__ static unsigned negative_mask(__half2 v) {  // one HSET2
    return __hlt2_mask(v, __half2{});
  }
  static constexpr unsigned sign_bit(int lane) { return lane == 0 ? 0x8000u : 0x80000000u; }
  __device__ static unsigned keep_mask(unsigned lanes) {
    return (lanes & 1u ? 0u : 0x0000ffffu) | (lanes & 2u ? 0u : 0xffff0000u);
  }
  __device__ static __half2 masked(__half2 v, unsigned keep) { return of_bits(bits_of(v) & keep); }
  __device__ static __half2 with_lane(__half2 v, __half2 from, int lane) {
    const unsigned keep = lane == 0 ? 0xffff0000u : 0x0000ffffu;
    return of_bits((bits_of(v) & keep) | (bits_of(from) & ~keep));
  }
};

}  // namespace gpufec::polar::detail::lane_rules
