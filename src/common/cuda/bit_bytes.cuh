// Bits as bytes (one bit a byte, 0 or 1, the layout of every batch of bits), written by a warp in
// whole sectors: shared by the kernels that expand packed words into bit bytes (the chain's
// source, the polar encoder).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gpufec::cuda {

// Bits 4q .. 4q + 3 of `v` as four bytes (one a bit, the first the lowest byte).
__device__ inline std::uint32_t nibble_bytes(std::uint32_t v, unsigned q) {
  const std::uint32_t nibble = v >> (4 * q);
  return (nibble & 1u) | (nibble & 2u) << 7 | (nibble & 4u) << 14 | (nibble & 8u) << 21;
}

// The 16 bytes of half `half` (bits 16 half .. 16 half + 15) of a 32-bit word.
__device__ inline uint4 half_word_bytes(std::uint32_t v, unsigned half) {
  return make_uint4(nibble_bytes(v, 4 * half), nibble_bytes(v, 4 * half + 1),
                    nibble_bytes(v, 4 * half + 2), nibble_bytes(v, 4 * half + 3));
}

// The bit bytes of `chunks` x 16 bits held 32 to a word, word i in lane i - first_lane of the
// warp (lanes first_lane .. first_lane + chunks / 2), written to out[0, 16 chunks): chunk c (16
// bytes, from half c % 2 of word c / 2) by lane c % 32, 512 bytes a store instruction. Every lane
// of the warp must call (shuffles); `out` sits on 16 bytes; chunks <= 64.
__device__ inline void store_warp_bit_bytes(std::uint32_t word, unsigned first_lane,
                                            unsigned chunks, std::uint8_t* out) {
  const unsigned lane = threadIdx.x % 32;
  for (unsigned c0 = 0; c0 < chunks; c0 += 32) {  // the same rounds for every lane
    const unsigned c = c0 + lane;
    const std::uint32_t w = __shfl_sync(0xffffffffu, word, (first_lane + c / 2) % 32);
    if (c < chunks) reinterpret_cast<uint4*>(out)[c] = half_word_bytes(w, c % 2);
  }
}

}  // namespace gpufec::cuda
