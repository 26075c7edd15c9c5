// The four lanes of a K = 9 tile in the register kernel (lane_spec, register_layout.cuh; the
// kernel: register_kernel.cuh). Each lane runs the K = 7 cycle on its 64 slots; this is what it
// does beyond that: the signs of its LLRs, the exchange after each cycle, the tie direction where
// a slot holds the upper state, and the reductions over the tile's lanes. With one lane per tile
// (code_spec) every operation is nothing, or the identity, and compiles away.
#pragma once

#include "conv/cuda/kernels/register_layout.cuh"

namespace gpufec::conv::detail::regs {

template <class Spec>
struct lane_group {
  static constexpr int lanes = Spec::lanes, P = Spec::phases, beta = Spec::beta, R = Spec::R;

  // This thread's lane, the group's shuffle mask, and the signs of the cycle's LLRs in this lane
  // (bit k beta + b: negate stage k's value b).
  unsigned lane = lanes > 1 ? threadIdx.x % lanes : 0;
  unsigned mask = lanes > 1 ? 0xfu << (threadIdx.x % 32 / 4 * 4) : ~0u;
  unsigned flips = signs();

  __device__ unsigned signs() const {
    unsigned f = 0;
    if constexpr (lanes > 1)
      for (int k = 0; k < P; ++k) f |= Spec::flip(k, lane) << (k * beta);
    return f;
  }
  // The cycle's LLRs as this lane's ACS takes them.
  __device__ __forceinline__ void flip_signs(int (&L)[P][beta]) const {
    if constexpr (lanes > 1) {
#pragma unroll
      for (int k = 0; k < P; ++k)
#pragma unroll
        for (int b = 0; b < beta; ++b) {
          const int negate = static_cast<int>((flips >> (k * beta + b)) & 1u);
          L[k][b] = (L[k][b] ^ -negate) + negate;
        }
    }
  }
  // After a cycle (layout phase 0, slots 2r and 2r + 1 in register r): round d sends the slots
  // z = 4 j + d (halves d mod 2 of registers 2 j' + d / 2 and that + 2: one permute per pair) to
  // lane XOR d, which keeps them at (z >> 2) + 16 d, its registers 8 d .. 8 d + 7.
  __device__ __forceinline__ void exchange(unsigned (&pm)[R]) const {
    if constexpr (lanes > 1) {
      unsigned moved[R];
#pragma unroll
      for (int d = 0; d < 4; ++d)
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const unsigned word =
              __byte_perm(pm[4 * i + d / 2], pm[4 * i + 2 + d / 2], d % 2 ? 0x7632 : 0x5410);
          moved[8 * d + i] = d ? __shfl_xor_sync(mask, word, d, 4) : word;
        }
#pragma unroll
      for (int r = 0; r < R; ++r) pm[r] = moved[r];
    }
  }
  // Whether stage k's decisions compare strictly: where the mask before stage k has its top bit
  // set (stages 0 and 1, by lane), the slot the ACS takes as the lower predecessor holds the
  // upper state, so ties must go to the other slot (the reference's lower state wins them).
  template <int k>
  __device__ __forceinline__ bool strict_ties() const {
    if constexpr (lanes > 1) return (Spec::mask(k, lane) >> 5) & 1u;
    return false;
  }
  // The least of `v` over the tile's lanes.
  __device__ __forceinline__ unsigned least(unsigned v) const {
#pragma unroll
    for (int d = 1; d < lanes; d *= 2) v = min(v, __shfl_xor_sync(mask, v, d, 4));
    return v;
  }
};

}  // namespace gpufec::conv::detail::regs
