// The CUDA register Viterbi kernel (src/conv/cuda/kernels/register_kernel.cuh) compiled for the
// host, one thread at a time: the CUDA keywords it uses are emptied and the device intrinsics it
// calls are given their documented meaning in plain C++ (its few inline PTX statements have host
// branches of their own, #ifndef __CUDA_ARCH__). Include this before the kernel's headers, in a C++
// (not CUDA) translation unit. Only one lane per tile runs here (K = 3 .. 7): K = 9's four lanes
// exchange metrics by warp shuffles, which abort.
#pragma once

#ifdef __CUDACC__
#error "register_kernel_host.hpp emulates the kernel in host C++; compile it as C++"
#endif

#include <cstdint>
#include <cstdlib>

#define __device__
#define __host__
#define __global__
#define __shared__
#define __forceinline__ inline
#define __noinline__
#define __align__(n) __attribute__((aligned(n)))

struct host_dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline host_dim3 threadIdx, blockIdx, blockDim, gridDim;

struct uint2 {
  unsigned x, y;
};
struct uint4 {
  unsigned x, y, z, w;
};
inline uint2 make_uint2(unsigned x, unsigned y) {
  return {x, y};
}
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}

inline int min(int a, int b) {
  return a < b ? a : b;
}
inline int max(int a, int b) {
  return a > b ? a : b;
}
inline unsigned min(unsigned a, unsigned b) {
  return a < b ? a : b;
}
inline unsigned max(unsigned a, unsigned b) {
  return a > b ? a : b;
}
inline long long min(long long a, long long b) {
  return a < b ? a : b;
}
inline long long max(long long a, long long b) {
  return a > b ? a : b;
}

template <class T>
T __ldg(const T* p) {
  return *p;
}
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __ffs(int x) {
  return x ? __builtin_ctz(static_cast<unsigned>(x)) + 1 : 0;
}
// hi:lo shifted left by s mod 32, the upper word; shifted right, the lower word.
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  s &= 31u;
  return s ? hi << s | lo >> (32 - s) : hi;
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  s &= 31u;
  return s ? lo >> s | hi << (32 - s) : lo;
}
// Byte i of the result is byte (s >> 4 i) mod 8 of y:x.
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long both = static_cast<unsigned long long>(y) << 32 | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i)
    r |= static_cast<unsigned>((both >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
// Per 16-bit half.
template <class Op>
unsigned host_halves(unsigned a, unsigned b, Op op) {
  return (op(a & 0xffffu, b & 0xffffu) & 0xffffu) | (op(a >> 16, b >> 16) & 0xffffu) << 16;
}
inline unsigned __vmaxu2(unsigned a, unsigned b) {
  return host_halves(a, b, [](unsigned x, unsigned y) { return x > y ? x : y; });
}
inline unsigned __vminu2(unsigned a, unsigned b) {
  return host_halves(a, b, [](unsigned x, unsigned y) { return x < y ? x : y; });
}
// max(a + b, c) per half, the sum wrapping in 16 bits, compared as int16.
inline unsigned __viaddmax_s16x2(unsigned a, unsigned b, unsigned c) {
  const unsigned sum = host_halves(a, b, [](unsigned x, unsigned y) { return x + y; });
  return host_halves(sum, c, [](unsigned x, unsigned y) {
    return static_cast<std::int16_t>(x) > static_cast<std::int16_t>(y) ? x : y;
  });
}
// max(a + b, c) per half, the sum wrapping in 16 bits, compared as uint16.
inline unsigned __viaddmax_u16x2(unsigned a, unsigned b, unsigned c) {
  return __vmaxu2(host_halves(a, b, [](unsigned x, unsigned y) { return x + y; }), c);
}
inline unsigned __shfl_xor_sync(unsigned, unsigned, int, int) {
  std::abort();
}
inline void __syncwarp(unsigned = ~0u) {}
