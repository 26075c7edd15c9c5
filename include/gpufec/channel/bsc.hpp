// The binary symmetric channel: each bit flips independently with probability p.
//
// Flip of `position` in `frame`: the 52-bit uniform built from words 2k and 2k + 1 of
// philox_stream(seed, rng_channel, frame) is below p. Integer arithmetic and one exact conversion,
// so CPU and GPU flip exactly the same bits.
#pragma once

#include <cstdint>
#include <span>

#include "gpufec/common/hd.hpp"
#include "gpufec/common/random.hpp"

namespace gpufec::channel {

GPUFEC_HD_INLINE bool bsc_flips(std::uint64_t seed, std::uint64_t frame, std::uint64_t position,
                                double p) {
  const philox_stream s(seed, rng_channel, frame);
  return uniform_open01(u32_at(s, 2 * position), u32_at(s, 2 * position + 1)) < p;
}

class bsc {
 public:
  explicit bsc(double p);  // p in [0, 1]
  double p() const { return p_; }
  // out[i] = in[i] ^ flip(i), positions 0.. of (seed, frame); bits are 0 or 1.
  void transmit(std::uint64_t seed, std::uint64_t frame, std::span<const std::uint8_t> in,
                std::span<std::uint8_t> out) const;

 private:
  double p_;
};

}  // namespace gpufec::channel
