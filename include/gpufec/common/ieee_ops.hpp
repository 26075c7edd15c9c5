// Floating-point operations rounded once each, never fused unless asked for: the same bits on the
// host and the device. ieee_fma is the fused a * b + c, rounded once (IEEE-754 fusedMultiplyAdd;
// the library's fmaf where the host has no FMA instruction: slower, the same value). nvcc contracts
// a * b + c into an FMA in device code unless told not to, and the _rn intrinsics are never
// contracted; on the host the library is compiled with -ffp-contract=off (CMakeLists.txt), so the
// plain operators are what they say. Code whose results must agree across backends to the last bit
// (the Gaussian channel, box_muller.hpp) computes through these.
#pragma once

#include "gpufec/common/hd.hpp"

namespace gpufec {

// clang-format off
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ double ieee_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double ieee_sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ double ieee_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double ieee_div(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ double ieee_sqrt(double a) { return __dsqrt_rn(a); }
__device__ __forceinline__ float ieee_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float ieee_sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ float ieee_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float ieee_div(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ float ieee_sqrt(float a) { return __fsqrt_rn(a); }
__device__ __forceinline__ float ieee_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
#else
inline double ieee_add(double a, double b) { return a + b; }
inline double ieee_sub(double a, double b) { return a - b; }
inline double ieee_mul(double a, double b) { return a * b; }
inline double ieee_div(double a, double b) { return a / b; }
inline double ieee_sqrt(double a) { return __builtin_sqrt(a); }
inline float ieee_add(float a, float b) { return a + b; }
inline float ieee_sub(float a, float b) { return a - b; }
inline float ieee_mul(float a, float b) { return a * b; }
inline float ieee_div(float a, float b) { return a / b; }
inline float ieee_sqrt(float a) { return __builtin_sqrtf(a); }
inline float ieee_fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
#endif
// clang-format on

}  // namespace gpufec
