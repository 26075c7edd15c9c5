// Distributions over the Philox streams, bit-identical on the CPU (every SIMD target) and the GPU:
// integer-derived draws (bits, uniforms, Bernoulli) by exact arithmetic, Gaussians by Box-Muller in
// correctly rounded steps (box_muller.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpufec/common/box_muller.hpp"
#include "gpufec/common/philox.hpp"

namespace gpufec {

// Box-Muller on the two uniforms of one Philox block: two independent N(0, 1) draws.
GPUFEC_HD_INLINE void gaussian_pair(const philox4x32_ctr& w, float& g0, float& g1) {
  detail::box_muller(detail::scalar_box_muller_ops{},
                     static_cast<float>(uniform_open01(w.v[0], w.v[1])),
                     static_cast<float>(uniform_open01(w.v[2], w.v[3])), g0, g1);
}

// The k-th standard normal of a stream, addressable by position (pairs share a block), so a GPU
// thread per position and a CPU loop draw the same values.
GPUFEC_HD_INLINE float gaussian_at(const philox_stream& s, std::uint64_t k) {
  float g0, g1;
  gaussian_pair(s.block(static_cast<std::uint32_t>(k >> 1)), g0, g1);
  return (k & 1) ? g1 : g0;
}

// gaussian_at(s, k) for every k in [begin, end) into out[0, end - begin), bit for bit: Philox and
// Box-Muller on every lane of the widest SIMD target the CPU has (Highway, run-time dispatch;
// src/common/random_simd.cpp), each pair's block drawn once. Host only.
void gaussians(const philox_stream& s, std::uint64_t begin, std::uint64_t end, float* out);

// The k-th uniform 32-bit word of a stream, addressable by position.
GPUFEC_HD_INLINE std::uint32_t u32_at(const philox_stream& s, std::uint64_t k) {
  return s.block(static_cast<std::uint32_t>(k >> 2)).v[k & 3];
}

}  // namespace gpufec
