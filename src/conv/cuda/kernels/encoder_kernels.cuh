// The CUDA convolutional encoder's kernels: the units of conv/model/encoder_units.hpp, one thread
// per frame for the sequential part (start states, a recursive code's register bits), one thread
// per 32 stages for the parities and one per four sent bits for the writes; for two streams sent
// every stage (rate 1/2 unpunctured), one thread per 32 stages for both.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "conv/model/encoder_units.hpp"

namespace gpufec::conv::detail {

// frame_start_kernel. Index map: thread f = blockIdx.x * blockDim.x + threadIdx.x (grid-stride)
// is frame f: start[f] = its start state; a recursive code's register bits go to
// registers[f * info_bits ..]. Reads info[f * info_bits ..]; tables in global memory.
__global__ void frame_start_kernel(encoder_units u, const std::uint8_t* __restrict__ info,
                                   const std::uint8_t* __restrict__ parity,
                                   const std::uint16_t* __restrict__ tailbiting_start,
                                   std::uint64_t frames, unsigned* __restrict__ start,
                                   std::uint8_t* __restrict__ registers) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t f = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       f < frames; f += stride)
    start[f] = frame_start(u, info + f * u.info_bits, parity, tailbiting_start,
                           registers ? registers + f * u.info_bits : nullptr);
}

// coded_words_kernel. Index map: frame f = blockIdx.y (+ gridDim.y per pass); block x takes the
// frame's rounds x, x + gridDim.x, ... of blockDim.x stage words (word = 32 stages). Thread t
// finds word (round base + t)'s stream words (stages t0 = 32 (base + t) .. t0 + 31) into the
// block's shared words[b * blockDim.x + t]; the block then writes the round's sent bits,
// coded[f * coded_bits + sent_before(32 base) ..], thread t the t-th, t + blockDim.x-th, ...
// aligned group of four bytes (a word store where the group lies inside the round, byte stores at
// its ends: the neighbouring round's block writes the rest). Shared memory: beta words per
// thread. Reads the frame's register bits `bits` (stride info_bits), its start state (start null:
// 0) and the phase and slot tables.
__global__ void coded_words_kernel(encoder_units u, const std::uint32_t* __restrict__ phases,
                                   const std::uint32_t* __restrict__ slots,
                                   small_divisor per_period, const std::uint8_t* __restrict__ bits,
                                   const unsigned* __restrict__ start, std::uint64_t frames,
                                   std::uint8_t* __restrict__ coded) {
  extern __shared__ std::uint32_t words[];
  const std::uint64_t total_words = (u.stages + 31) / 32;
  const unsigned stride = blockDim.x;
  for (std::uint64_t f = blockIdx.y; f < frames; f += gridDim.y) {
    const std::uint8_t* w = bits + f * u.info_bits;
    const unsigned s = start ? start[f] : 0u;
    std::uint8_t* out = coded + f * u.coded_bits;
    for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x;
         base < total_words; base += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
      const std::uint64_t t0 = 32 * base;
      const std::uint64_t word = base + threadIdx.x;
      if (word < total_words) {
        std::uint32_t streams[conv_code::max_beta];
        stream_words(u, register_window(u, w, s, 32 * word), streams);
#pragma unroll
        for (unsigned b = 0; b < conv_code::max_beta; ++b)
          if (b < u.beta) words[b * stride + threadIdx.x] = streams[b];
      }
      __syncthreads();
      const std::uint64_t end_word =
          base + blockDim.x < total_words ? base + blockDim.x : total_words;
      const std::uint64_t first = sent_before(u, phases, t0);
      const std::uint64_t last =
          end_word * 32 < u.stages ? sent_before(u, phases, end_word * 32) : u.coded_bits;
      const auto p0 = static_cast<unsigned>(t0 % u.period);
      const auto count = static_cast<std::uint32_t>(last - first);
      std::uint8_t* lo = out + first;
      const auto skew = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(lo) & 3u);
      std::uint8_t* aligned = lo - skew;
      const std::uint32_t groups = (skew + count + 3) / 4;
      for (std::uint32_t g = threadIdx.x; g < groups; g += blockDim.x) {
        std::uint32_t v = 0;
        const std::uint32_t r0 = 4 * g;  // the group's first byte, counted from `aligned`
        if (r0 >= skew && r0 + 4 <= skew + count) {
          for (unsigned j = 0; j < 4; ++j)
            v |= sent_bit(u, phases, slots, per_period, p0, r0 + j - skew, words, stride)
                 << (8 * j);
          reinterpret_cast<std::uint32_t*>(aligned)[g] = v;
        } else {
          for (unsigned j = 0; j < 4; ++j)
            if (r0 + j >= skew && r0 + j < skew + count)
              aligned[r0 + j] = static_cast<std::uint8_t>(
                  sent_bit(u, phases, slots, per_period, p0, r0 + j - skew, words, stride));
        }
      }
      __syncthreads();  // the words are rewritten by the next round
    }
  }
}

// The sent bits of two streams' words for stages t .. t + 31 (rate 1/2: stream 0's bit of a stage,
// then stream 1's): word i of `out` holds the bytes of stages t + 2i and t + 2i + 1. The streams
// are interleaved bit by bit (s0 in the even bits, s1 in the odd), and each nibble of that is
// spread to four bytes by one multiply (its bits land at 0, 8, 16 and 24 without overlap).
__device__ inline void pair_sent_words(std::uint32_t s0, std::uint32_t s1,
                                       std::uint32_t (&out)[16]) {
  const auto spread = [](std::uint64_t x) {  // bit k to bit 2k, k < 32
    x = (x | x << 16) & 0x0000FFFF0000FFFFull;
    x = (x | x << 8) & 0x00FF00FF00FF00FFull;
    x = (x | x << 4) & 0x0F0F0F0F0F0F0F0Full;
    x = (x | x << 2) & 0x3333333333333333ull;
    return (x | x << 1) & 0x5555555555555555ull;
  };
  const std::uint64_t z = spread(s0) | spread(s1) << 1;
#pragma unroll
  for (int i = 0; i < 16; ++i)
    out[i] = (static_cast<std::uint32_t>(z >> (4 * i)) & 0xFu) * 0x00204081u & 0x01010101u;
}

// pair_words_kernel (two streams sent every stage, coded_bits a multiple of 4). Index map: frame
// f = blockIdx.y (+ gridDim.y per pass); block x takes the frame's rounds x, x + gridDim.x, ...
// of blockDim.x stage words. Thread t finds word w = (round base + t)'s two stream words (stages
// 32 w .. 32 w + 31) and their 64 sent bytes, coded[f * coded_bits + 64 w ..], as 16 words in its
// warp's shared rows (row = lane, 17 words a row: the rows' writes meet no bank twice, their reads
// one bank twice); the warp then writes its 2 KiB in order, lane l the words l, l + 32, ... (those
// before the frame's end). Shared memory: 17 words per thread; blockDim.x a multiple of 32, the
// output on 4 bytes. Every thread runs every round, so the warp's syncs see all its lanes.
__global__ void pair_words_kernel(encoder_units u, const std::uint8_t* __restrict__ bits,
                                  const unsigned* __restrict__ start, std::uint64_t frames,
                                  std::uint8_t* __restrict__ coded) {
  extern __shared__ std::uint32_t rows[];
  constexpr unsigned kRow = 17;
  const std::uint64_t total_words = (u.stages + 31) / 32;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  std::uint32_t* mine = rows + (warp * 32 + lane) * kRow;
  const std::uint32_t* warp_rows = rows + warp * 32 * kRow;
  for (std::uint64_t f = blockIdx.y; f < frames; f += gridDim.y) {
    const std::uint8_t* w = bits + f * u.info_bits;
    const unsigned s = start ? start[f] : 0u;
    auto* out = reinterpret_cast<std::uint32_t*>(coded + f * u.coded_bits);
    const std::uint64_t out_words = u.coded_bits / 4;
    for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x;
         base < total_words; base += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
      const std::uint64_t word = base + threadIdx.x;
      std::uint32_t sent[16] = {};
      if (word < total_words) {
        std::uint32_t streams[conv_code::max_beta];
        stream_words(u, register_window(u, w, s, 32 * word), streams);
        pair_sent_words(streams[0], streams[1], sent);
      }
#pragma unroll
      for (int i = 0; i < 16; ++i) mine[i] = sent[i];
      __syncwarp();
      const std::uint64_t first = 16 * (base + 32 * warp);  // the warp's first output word
#pragma unroll
      for (unsigned j = 0; j < 16; ++j) {
        const unsigned k = 32 * j + lane;  // the warp's k-th word: row k / 16, word k % 16
        if (first + k < out_words) out[first + k] = warp_rows[(k / 16) * kRow + k % 16];
      }
      __syncwarp();  // the rows are rewritten by the next round
    }
  }
}

}  // namespace gpufec::conv::detail
