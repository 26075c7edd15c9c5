// Block-wide building blocks shared by the families' kernels: round-to-nearest arithmetic that
// the compiler may not contract (so a kernel's digits can equal a CPU reference's), and reductions
// whose order is fixed by the data size alone, never by the block shape (so a frame gets the same
// digits in any batch).
#pragma once

#include <cuda_runtime.h>

namespace gpufec::cuda {

// Explicit round-to-nearest products and sums: no FMA contraction, the CPU's order of operations.
__device__ __forceinline__ float mul_rn(float a, float b) {
  return __fmul_rn(a, b);
}
__device__ __forceinline__ float add_rn(float a, float b) {
  return __fadd_rn(a, b);
}
__device__ __forceinline__ double mul_rn(double a, double b) {
  return __dmul_rn(a, b);
}
__device__ __forceinline__ double add_rn(double a, double b) {
  return __dadd_rn(a, b);
}

// Sum of value(k), k = 0..n-1, in an order fixed by n alone, not by the block's shape (an L block
// is wider for a small batch, and a frame must get the same digits in any batch): partial l adds
// k = l, l + 32, ... in turn, then partial l takes partial l + w for w = 16, 8, ..., 1. Warp 0 does
// it with a butterfly of shuffles (lane 0 adds the same pairs in the same order); a block of fewer
// than 32 threads in shared memory. All threads must call; `scratch` holds 32 doubles.
template <class Value>
__device__ __forceinline__ double ordered_sum(int n, Value value, double* scratch) {
  __syncthreads();  // the values are written; scratch may still be read from a previous call
  if (blockDim.x >= 32) {
    if (threadIdx.x < 32) {
      double s = 0;
      for (int k = threadIdx.x; k < n; k += 32) s += value(k);
      for (int w = 16; w >= 1; w /= 2) s += __shfl_xor_sync(0xffffffffu, s, w);
      if (threadIdx.x == 0) scratch[0] = s;
    }
  } else {
    for (int l = threadIdx.x; l < 32; l += blockDim.x) {
      double s = 0;
      for (int k = l; k < n; k += 32) s += value(k);
      scratch[l] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0)
      for (int w = 16; w >= 1; w /= 2)
        for (int l = 0; l < w; ++l) scratch[l] += scratch[l + w];
  }
  __syncthreads();
  return scratch[0];
}

// Block-wide argmax of (value, index) pairs, one per thread (all threads must call): the largest
// value, the lowest index among equals (a sequential scan's answer). `scratch` holds 32 doubles.
__device__ __forceinline__ int block_argmax(double v, int index, double* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  auto take = [&](double ov, int oi) {
    if (ov > v || (ov == v && oi < index)) {
      v = ov;
      index = oi;
    }
  };
  for (int o = 16; o > 0; o >>= 1)
    take(__shfl_xor_sync(0xffffffffu, v, o), __shfl_xor_sync(0xffffffffu, index, o));
  __shared__ int indices[32];
  __syncthreads();  // scratch may still be read from a previous call
  if (lane == 0) {
    scratch[warp] = v;
    indices[warp] = index;
  }
  __syncthreads();
  for (int w = 0; w < warps; ++w) take(scratch[w], indices[w]);
  return index;
}

}  // namespace gpufec::cuda
