// The CUDA convolutional encoder's kernels: the units of conv/model/encoder_units.hpp, one thread
// per frame for the sequential part (start states, a recursive code's register bits) and one
// thread per coded bit for the rest.
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

// coded_bits_kernel<Index>. Index map: frame f = blockIdx.y (+ gridDim.y per round), coded bit
// r = blockIdx.x * blockDim.x + threadIdx.x (+ gridDim.x * blockDim.x per round) of that frame:
// coded[f * coded_bits + r] = coded_bit(r). Reads the frame's register bits `bits` (stride
// info_bits) around r's stage, its start state (start null: 0) and one period's slots. Index:
// 32 bits when a frame's coded bits fit (faster division), else 64.
template <class Index>
__global__ void coded_bits_kernel(encoder_units u, const std::uint32_t* __restrict__ slots,
                                  const std::uint8_t* __restrict__ bits,
                                  const unsigned* __restrict__ start, std::uint64_t frames,
                                  std::uint8_t* __restrict__ coded) {
  const Index n = static_cast<Index>(u.coded_bits);
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (std::uint64_t f = blockIdx.y; f < frames; f += gridDim.y) {
    const std::uint8_t* w = bits + f * u.info_bits;
    const unsigned s = start ? start[f] : 0u;
    std::uint8_t* out = coded + f * u.coded_bits;
    for (Index r = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; r < n; r += stride)
      out[r] = coded_bit<Index>(u, slots, w, s, r);
  }
}

}  // namespace gpufec::conv::detail
