// Distributions over the Philox streams, bit-identical on the CPU (every SIMD target) and the GPU:
// integer-derived draws (bits, uniforms, Bernoulli) by exact arithmetic, Gaussians by Box-Muller in
// correctly rounded steps from a block's bits, four a block (box_muller.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpufec/common/box_muller.hpp"
#include "gpufec/common/philox.hpp"

namespace gpufec {

// The pair of words (a, b) = words (2h, 2h + 1) of block `block` of s as two N(0, 1) draws
// (box_muller.hpp), the tail companion's same words read only for a tail draw.
GPUFEC_HD_INLINE void gaussian_pair_of(const philox_stream& s, std::uint32_t block, int h,
                                       std::uint32_t a, std::uint32_t b, float& g0, float& g1) {
  const detail::scalar_box_muller_ops o;
  float e;
  if (detail::is_tail_pair(a, b)) {
    const philox4x32_ctr t = s.tail_block(block);
    e = detail::tail_exponent(t.v[2 * h], t.v[2 * h + 1]);
  } else {
    e = detail::binade_exponent(o, a, b);
  }
  detail::box_muller_words(o, a, b, e, g0, g1);
}

// The four N(0, 1) draws of block `block` of a stream: Box-Muller on words (0, 1) for g[0], g[1]
// and on words (2, 3) for g[2], g[3].
GPUFEC_HD_INLINE void gaussian_quad(const philox_stream& s, std::uint32_t block, float (&g)[4]) {
  const philox4x32_ctr w = s.block(block);
  gaussian_pair_of(s, block, 0, w.v[0], w.v[1], g[0], g[1]);
  gaussian_pair_of(s, block, 1, w.v[2], w.v[3], g[2], g[3]);
}

// The k-th standard normal of a stream, addressable by position (four share a block), so a GPU
// thread per block and a CPU loop draw the same values.
GPUFEC_HD_INLINE float gaussian_at(const philox_stream& s, std::uint64_t k) {
  const auto block = static_cast<std::uint32_t>(k >> 2);
  const philox4x32_ctr w = s.block(block);
  const int h = static_cast<int>(k >> 1) & 1;
  float g0, g1;
  gaussian_pair_of(s, block, h, w.v[2 * h], w.v[2 * h + 1], g0, g1);
  return (k & 1) ? g1 : g0;
}

// gaussian_at(s, k) for every k in [begin, end) into out[0, end - begin), bit for bit: Philox and
// Box-Muller on every lane of the widest SIMD target with a fused multiply-add the CPU has
// (Highway, run-time dispatch; src/common/random_simd.cpp), each block drawn once. Host only.
void gaussians(const philox_stream& s, std::uint64_t begin, std::uint64_t end, float* out);

// The k-th uniform 32-bit word of a stream, addressable by position.
GPUFEC_HD_INLINE std::uint32_t u32_at(const philox_stream& s, std::uint64_t k) {
  return s.block(static_cast<std::uint32_t>(k >> 2)).v[k & 3];
}

}  // namespace gpufec
