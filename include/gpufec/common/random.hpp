// Distributions over the Philox streams. Integer-derived draws (bits, uniforms, Bernoulli) are
// bit-identical on CPU and GPU; Gaussians go through log/sqrt/cos, whose last bit may differ
// between the host libm and CUDA's, which is documented for AWGN users in docs/random.md.
#pragma once

#include <cmath>
#include <cstdint>

#include "gpufec/common/philox.hpp"

namespace gpufec {

// Box-Muller on the two uniforms of one Philox block: two independent N(0, 1) draws.
GPUFEC_HD_INLINE void gaussian_pair(const philox4x32_ctr& w, double& g0, double& g1) {
  const double u1 = uniform_open01(w.v[0], w.v[1]);
  const double u2 = uniform_open01(w.v[2], w.v[3]);
  const double r = sqrt(-2.0 * log(u1));
  const double theta = 6.283185307179586476925286766559 * u2;
  g0 = r * cos(theta);
  g1 = r * sin(theta);
}

// The k-th standard normal of a stream, addressable by position (pairs share a block), so a GPU
// thread per position and a CPU loop draw the same values.
GPUFEC_HD_INLINE double gaussian_at(const philox_stream& s, std::uint64_t k) {
  double g0, g1;
  gaussian_pair(s.block(static_cast<std::uint32_t>(k >> 1)), g0, g1);
  return (k & 1) ? g1 : g0;
}

// gaussian_at(s, k) for every k in [begin, end), in order: sink(k, g). Each pair's block and
// Box-Muller are computed once (gaussian_at alone computes both to give one).
template <class Sink>
inline void for_each_gaussian(const philox_stream& s, std::uint64_t begin, std::uint64_t end,
                              Sink&& sink) {
  for (std::uint64_t k = begin; k < end;) {
    double g[2];
    gaussian_pair(s.block(static_cast<std::uint32_t>(k >> 1)), g[0], g[1]);
    do {
      sink(k, g[k & 1]);
      ++k;
    } while (k < end && (k & 1));
  }
}

// The k-th uniform 32-bit word of a stream, addressable by position.
GPUFEC_HD_INLINE std::uint32_t u32_at(const philox_stream& s, std::uint64_t k) {
  return s.block(static_cast<std::uint32_t>(k >> 2)).v[k & 3];
}

}  // namespace gpufec
