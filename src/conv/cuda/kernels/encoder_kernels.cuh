// The CUDA convolutional encoder's kernels: the units of conv/model/encoder_units.hpp, one thread
// per frame for the sequential part (start states, a recursive code's register bits) and one
// thread per 32 stages for the rest.
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

// coded_words_kernel. Index map: frame f = blockIdx.y (+ gridDim.y per round); block x takes the
// frame's stage words x, x + gridDim.x, ... (word = 32 stages; a round covers blockDim.x words),
// thread t word (round base + t): stages t0 = 32 (base + t) .. t0 + 31. Each thread writes its
// sent bits (coded_word) into the block's shared staging at sent_before(t0) - sent_before(the
// round's first stage); the block then copies the round's bits to coded[f * coded_bits +
// sent_before(first stage) ..], consecutive threads consecutive bytes. Shared memory: 32 beta
// bytes per thread. Reads the frame's register bits `bits` (stride info_bits, L1-cached), its start
// state (start null: 0) and the phase table.
__global__ void coded_words_kernel(encoder_units u, const std::uint32_t* __restrict__ phases,
                                   const std::uint8_t* __restrict__ bits,
                                   const unsigned* __restrict__ start, std::uint64_t frames,
                                   std::uint8_t* __restrict__ coded) {
  extern __shared__ std::uint8_t staged[];
  const std::uint64_t words = (u.stages + 31) / 32;
  for (std::uint64_t f = blockIdx.y; f < frames; f += gridDim.y) {
    const std::uint8_t* w = bits + f * u.info_bits;
    const unsigned s = start ? start[f] : 0u;
    std::uint8_t* out = coded + f * u.coded_bits;
    for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x; base < words;
         base += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
      const std::uint64_t first = sent_before(u, phases, 32 * base);
      const std::uint64_t end_word = base + blockDim.x < words ? base + blockDim.x : words;
      const std::uint64_t last =
          end_word * 32 < u.stages ? sent_before(u, phases, end_word * 32) : u.coded_bits;
      const std::uint64_t word = base + threadIdx.x;
      if (word < words) {
        const std::uint64_t t0 = 32 * word;
        coded_word(u, phases, register_window(u, w, s, t0), t0,
                   staged + (sent_before(u, phases, t0) - first));
      }
      __syncthreads();
      for (std::uint64_t i = threadIdx.x; i < last - first; i += blockDim.x)
        out[first + i] = staged[i];
      __syncthreads();  // the staging is rewritten by the next round
    }
  }
}

}  // namespace gpufec::conv::detail
