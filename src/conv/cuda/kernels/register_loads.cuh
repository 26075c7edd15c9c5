// The register kernel's LLR loads (tile_run's members declared in register_kernel.cuh, defined
// here): per stage through the puncturing pattern, per cycle, and for unpunctured codes as the
// aligned 32-bit words that cover a cycle's bytes, unpacked with prmt's sign mode.
#pragma once

#include <cstdint>

#include "conv/cuda/kernels/register_kernel.cuh"

namespace gpufec::conv::detail::regs {

// Loads the beta LLRs of the next stage (0 where punctured) and steps the cursor on.
template <class Spec, bool Punctured>
__device__ __forceinline__ void tile_run<Spec, Punctured>::load_stage(int (&dst)[beta]) {
  if constexpr (Punctured) {
    const unsigned mask = __ldg(p.phase_mask + phase);
    long long at = period_start + __ldg(p.phase_base + phase);
#pragma unroll
    for (int b = 0; b < beta; ++b) dst[b] = (mask >> b) & 1u ? llr[at++] : 0;
    if (++phase == p.period) {
      phase = 0;
      period_start += p.sent_per_period;
    }
  } else {
#pragma unroll
    for (int b = 0; b < beta; ++b) dst[b] = llr[ts * beta + b];
  }
  if (++ts == p.N) {
    ts = 0;
    phase = 0;
    period_start = 0;
  }
}

// The next cycle's LLRs (only `count` < P stages of it when the tile ends inside it).
template <class Spec, bool Punctured>
__device__ __forceinline__ void tile_run<Spec, Punctured>::load_cycle(int (&dst)[P][beta],
                                                                      int count) {
  if (count >= P) {
#pragma unroll
    for (int k = 0; k < P; ++k) load_stage(dst[k]);
  } else {
#pragma unroll
    for (int k = 0; k < P; ++k)
      if (k < count) load_stage(dst[k]);
  }
}
// The next cycle's bytes as raw words (word_loads): aligned words, or bytes packed (shift 0).
template <class Spec, bool Punctured>
__device__ __forceinline__ void tile_run<Spec, Punctured>::fetch(unsigned (&raw)[RW], int& shift,
                                                                 int count) {
  if (words_ok) {
    const auto at = reinterpret_cast<std::uintptr_t>(llr + ts * beta);
    const auto* words = reinterpret_cast<const unsigned*>(at & ~std::uintptr_t{3});
#pragma unroll
    for (int w = 0; w < RW; ++w) raw[w] = __ldg(words + w);
    shift = static_cast<int>(at & 3u) * 8;
    ts += P;
    return;
  }
  int bytes[P][beta];
  load_cycle(bytes, count);
#pragma unroll
  for (int w = 0; w < RW; ++w) raw[w] = 0;
#pragma unroll
  for (int k = 0; k < P; ++k)
#pragma unroll
    for (int b = 0; b < beta; ++b) {
      const int j = k * beta + b;
      if (k < count) raw[j / 4] |= (static_cast<unsigned>(bytes[k][b]) & 0xffu) << (8 * (j % 4));
    }
  shift = 0;
}
// L from a cycle's raw words: byte j of the cycle, sign-extended (prmt's sign mode).
template <class Spec, bool Punctured>
__device__ __forceinline__ void tile_run<Spec, Punctured>::unpack(const unsigned (&raw)[RW],
                                                                  int shift) {
  unsigned u[RW - 1];
#pragma unroll
  for (int w = 0; w + 1 < RW; ++w) u[w] = __funnelshift_r(raw[w], raw[w + 1], shift);
#pragma unroll
  for (int k = 0; k < P; ++k)
#pragma unroll
    for (int b = 0; b < beta; ++b) {
      const int j = k * beta + b, q = j % 4;
      int v;
#ifdef __CUDA_ARCH__
      asm("prmt.b32 %0, %1, 0, %2;"
          : "=r"(v)
          : "r"(u[j / 4]), "r"(q | (q | 8) << 4 | (q | 8) << 8 | (q | 8) << 12));
#else
      v = static_cast<std::int8_t>(u[j / 4] >> (8 * q));  // the host emulation's prmt
#endif
      L[k][b] = v;
    }
}

}  // namespace gpufec::conv::detail::regs
