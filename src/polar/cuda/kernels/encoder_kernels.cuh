// The CUDA polar encoder's kernels: x = u G_N (twice with the frozen positions cleared between,
// for a systematic code), a codeword's positions packed 32 to a word as polar::encode packs them
// 64 to a word (encoder.cpp). A warp a codeword up to N = 1024 (its words in the lanes), a block a
// codeword beyond (its words in shared or global memory).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/cuda/bit_bytes.cuh"

namespace gpufec::polar::detail {

inline constexpr std::uint16_t kFrozenSource = 0xFFFF;
// The warp kernel's limit: a codeword's words in the warp's lanes, one a lane.
inline constexpr unsigned kWarpKernelMaxN = 1024;

struct encoder_kernel_params {
  const std::uint8_t* info = nullptr;        // [frame][K], 0/1
  std::uint8_t* codewords = nullptr;         // [frame][N]
  const std::uint32_t* positions = nullptr;  // [K], ascending: where information bit k goes
  const std::uint32_t* info_mask = nullptr;  // [W]: the information positions (systematic)
  // [b][w] (b < 32, w < W), for the warp kernel: the information bit at position 32 w + b, or
  // kFrozenSource.
  const std::uint16_t* sources = nullptr;
  std::uint32_t* scratch = nullptr;  // null: words in shared memory; else W words per block
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

// transform_words for a codeword of N <= 1024 positions whose word w is lane w's `x` (W =
// max(1, N / 32) words): within the word by masks, across words by shuffles. Every lane calls.
__device__ inline std::uint32_t transform_warp_word(std::uint32_t x, unsigned N) {
  constexpr std::uint32_t low[5] = {0x55555555u, 0x33333333u, 0x0F0F0F0Fu, 0x00FF00FFu,
                                    0x0000FFFFu};
  for (unsigned level = 0; level < 5 && (1u << level) < N; ++level)
    x ^= (x >> (1u << level)) & low[level];
  const unsigned lane = threadIdx.x % 32;
  for (unsigned h = 1; 32 * h < N; h <<= 1) {
    const std::uint32_t partner = __shfl_down_sync(0xffffffffu, x, h);
    if ((lane & h) == 0) x ^= partner;
  }
  return x;
}

// polar_encode_warp_kernel (N <= kWarpKernelMaxN). Index map: warp v = threadIdx.x / 32 of block
// b encodes frames b * warps + v (+ gridDim.x * warps per round); lane l holds word l (positions
// 32 l .. 32 l + 31) of the codeword. The frame's information bits arrive 32 bytes a load and one
// ballot a word in the warp's shared words; lane l sets its positions from them through
// sources[b][l], transforms (twice, masked between, when systematic), and the warp writes the
// codeword's bytes 512 a store where `vectors` (N a multiple of 16, the batch on 16 bytes), else a
// byte a lane.
__global__ void polar_encode_warp_kernel(encoder_kernel_params p, bool vectors) {
  __shared__ std::uint32_t info_words[32][32];  // per warp: K <= 1024 bits
  const unsigned lane = threadIdx.x % 32, warps = blockDim.x / 32;
  std::uint32_t* mine = info_words[threadIdx.x / 32];
  const unsigned info_word_count = (p.K + 31) / 32;
  for (unsigned long long f =
           static_cast<unsigned long long>(blockIdx.x) * warps + threadIdx.x / 32;
       f < p.frames; f += static_cast<unsigned long long>(gridDim.x) * warps) {
    const std::uint8_t* info = p.info + f * p.K;
    for (unsigned c = 0; c < info_word_count; ++c) {
      const unsigned k = 32 * c + lane;
      const std::uint32_t word = __ballot_sync(0xffffffffu, k < p.K && (info[k] & 1u));
      if (lane == c % 32) mine[c] = word;
    }
    __syncwarp();
    std::uint32_t x = 0;
    if (lane < p.W)
      for (unsigned b = 0; b < 32 && 32 * lane + b < p.N; ++b) {
        const unsigned k = p.sources[b * p.W + lane];
        if (k != kFrozenSource) x |= (mine[k >> 5] >> (k & 31) & 1u) << b;
      }
    __syncwarp();  // the words are rewritten for the next frame
    x = transform_warp_word(x, p.N);
    if (p.systematic) {
      if (lane < p.W) x &= p.info_mask[lane];
      x = transform_warp_word(x, p.N);
    }
    std::uint8_t* out = p.codewords + f * p.N;
    if (vectors) {
      cuda::store_warp_bit_bytes(x, 0, p.N / 16, out);
      continue;
    }
    for (unsigned j0 = 0; j0 < p.N; j0 += 32) {  // the same rounds for every lane
      const std::uint32_t w = __shfl_sync(0xffffffffu, x, j0 / 32);
      if (j0 + lane < p.N) out[j0 + lane] = static_cast<std::uint8_t>((w >> lane) & 1u);
    }
  }
}

}  // namespace gpufec::polar::detail
