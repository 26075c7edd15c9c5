// The BP message algebras of update_rules.hpp on the device, operation for operation: every add,
// multiply and divide is an explicit round-to-nearest intrinsic (__fadd_rn, __fmul_rn, __fdiv_rn),
// which the compiler never contracts into an FMA, and min, max and clamp are the same comparisons
// as std::min, std::max and std::clamp (so the sign of a zero they pass on is the CPU's too).
// Min-sum and scaled min-sum therefore give the CPU's bits; the sum-product rules call CUDA's
// expf/log1pf/logf, which may differ from glibc's in the last ulp (docs/polar.md, CUDA section).
#pragma once

#include <cstdint>

#include "polar/model/update_rules.hpp"

namespace gpufec::polar::detail::cuda_rules {

__device__ __forceinline__ float min_of(float a, float b) {
  return b < a ? b : a;  // std::min
}
__device__ __forceinline__ float max_of(float a, float b) {
  return a < b ? b : a;  // std::max
}
__device__ __forceinline__ float clamp_to(float v, float lo, float hi) {
  return v < lo ? lo : hi < v ? hi : v;  // std::clamp
}
__device__ __forceinline__ float with_sign(float magnitude, float a, float b) {
  const unsigned sign = (__float_as_uint(a) ^ __float_as_uint(b)) & 0x80000000u;
  return __uint_as_float(__float_as_uint(magnitude) ^ sign);
}

struct min_sum {
  float scale = 1.0f;
  __device__ float check(float a, float b) const {
    return with_sign(__fmul_rn(scale, min_of(fabsf(a), fabsf(b))), a, b);
  }
  __device__ static float variable(float a, float b) { return __fadd_rn(a, b); }
  __device__ static float saturate(float v) { return v; }
  __device__ static float from_llr(float llr) {
    return clamp_to(llr, -llr_input_bound, llr_input_bound);
  }
  __device__ static float to_llr(float v) { return v; }
  __device__ static bool hard(float v) { return v < 0.0f; }
  __device__ static float frozen() { return __int_as_float(0x7f800000); }  // +inf
  __device__ static float unknown() { return 0.0f; }
};

struct sum_product {
  float scale = 1.0f;  // unused: one constructor shape for every rule
  __device__ float check(float a, float b) const {
    const float x = fabsf(a), y = fabsf(b);
    const float near = log1pf(expf(-__fadd_rn(x, y)));
    const float far = log1pf(expf(-fabsf(__fsub_rn(x, y))));
    const float magnitude = max_of(__fsub_rn(__fadd_rn(min_of(x, y), near), far), 0.0f);
    return with_sign(magnitude, a, b);
  }
  __device__ static float variable(float a, float b) { return __fadd_rn(a, b); }
  __device__ static float saturate(float v) { return clamp_to(v, -sp_llr_bound, sp_llr_bound); }
  __device__ static float from_llr(float llr) { return saturate(llr); }
  __device__ static float to_llr(float v) { return v; }
  __device__ static bool hard(float v) { return v < 0.0f; }
  __device__ static float frozen() { return sp_llr_bound; }
  __device__ static float unknown() { return 0.0f; }
};

struct lr_sum_product {
  float scale = 1.0f;  // unused
  __device__ float check(float a, float b) const {
    return __fdiv_rn(__fadd_rn(1.0f, __fmul_rn(a, b)), __fadd_rn(a, b));
  }
  __device__ static float variable(float a, float b) { return __fmul_rn(a, b); }
  __device__ static float saturate(float v) { return clamp_to(v, lr_floor, lr_bound); }
  __device__ static float from_llr(float llr) { return saturate(expf(sum_product::saturate(llr))); }
  __device__ static float to_llr(float v) { return logf(v); }
  __device__ static bool hard(float v) { return v < 1.0f; }
  __device__ static float frozen() { return lr_bound; }
  __device__ static float unknown() { return 1.0f; }
};

}  // namespace gpufec::polar::detail::cuda_rules
