// The CUDA polar encoder's kernel: x = u G_N (twice with the frozen positions cleared between,
// for a systematic code), a codeword's positions packed 32 to a word as polar::encode packs them
// 64 to a word (encoder.cpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gpufec::polar::detail {

struct encoder_kernel_params {
  const std::uint8_t* info = nullptr;        // [frame][K], 0/1
  std::uint8_t* codewords = nullptr;         // [frame][N]
  const std::uint32_t* positions = nullptr;  // [K], ascending: where information bit k goes
  const std::uint32_t* info_mask = nullptr;  // [W]: the information positions (systematic)
  std::uint32_t* scratch = nullptr;          // null: words in shared memory; else W words per block
  unsigned long long frames = 0;
  unsigned N = 0, K = 0, W = 0;  // W = max(1, N / 32) words per codeword
  bool systematic = false;
};

// In place on a codeword's words (position j: bit j % 32 of word j / 32): the transform, within
// words by masks, then across words by whole words. All threads of the block take part.
__device__ inline void transform_words(std::uint32_t* words, unsigned N, unsigned W) {
  constexpr std::uint32_t low[5] = {0x55555555u, 0x33333333u, 0x0F0F0F0Fu, 0x00FF00FFu,
                                    0x0000FFFFu};
  for (unsigned w = threadIdx.x; w < W; w += blockDim.x) {
    std::uint32_t x = words[w];
    for (unsigned level = 0; level < 5 && (1u << level) < N; ++level)
      x ^= (x >> (1u << level)) & low[level];
    words[w] = x;
  }
  __syncthreads();
  for (unsigned h = 1; 32 * h < N; h <<= 1) {
    for (unsigned i = threadIdx.x; i < W / 2; i += blockDim.x) {
      const unsigned j = (i / h) * 2 * h + i % h;
      words[j] ^= words[j + h];
    }
    __syncthreads();
  }
}

// polar_encode_kernel. Index map: block b encodes frames b, b + gridDim.x, ...; thread t of the
// block strides over the frame's words (w = t, t + blockDim.x, ...), information bits and output
// positions. Memory: W words of the codeword (shared, or `scratch` + b W), zeroed, the
// information bits set at their positions by shared atomics, transformed, written one byte per
// position (coalesced).
__global__ void polar_encode_kernel(encoder_kernel_params p) {
  extern __shared__ std::uint32_t shared_words[];
  std::uint32_t* words =
      p.scratch ? p.scratch + static_cast<std::size_t>(blockIdx.x) * p.W : shared_words;
  for (unsigned long long f = blockIdx.x; f < p.frames; f += gridDim.x) {
    for (unsigned w = threadIdx.x; w < p.W; w += blockDim.x) words[w] = 0;
    __syncthreads();
    const std::uint8_t* info = p.info + f * p.K;
    for (unsigned k = threadIdx.x; k < p.K; k += blockDim.x)
      if (info[k] & 1u) atomicOr(&words[p.positions[k] >> 5], 1u << (p.positions[k] & 31));
    __syncthreads();
    transform_words(words, p.N, p.W);
    if (p.systematic) {
      for (unsigned w = threadIdx.x; w < p.W; w += blockDim.x) words[w] &= p.info_mask[w];
      __syncthreads();
      transform_words(words, p.N, p.W);
    }
    std::uint8_t* out = p.codewords + f * p.N;
    for (unsigned j = threadIdx.x; j < p.N; j += blockDim.x)
      out[j] = static_cast<std::uint8_t>((words[j >> 5] >> (j & 31)) & 1u);
    __syncthreads();  // the words are rewritten for the next frame
  }
}

}  // namespace gpufec::polar::detail
