// Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC'11),
// the counter-based generator also behind cuRAND's Philox4_32_10. A draw is a pure function of
// (key, counter), so the CPU and GPU produce identical numbers from (seed, stream, frame, index)
// whatever the thread layout: that is what makes simulations reproducible across thread counts
// and backends.
#pragma once

#include <cstdint>

#include "gpufec/common/hd.hpp"

namespace gpufec {

struct philox4x32_ctr {
  std::uint32_t v[4];
};
struct philox4x32_key {
  std::uint32_t v[2];
};

// The round's multipliers and the key's Weyl increments (Salmon et al.), also for the bulk draws
// on SIMD lanes (src/common/random_simd.cpp).
inline constexpr std::uint32_t philox_m0 = 0xD2511F53u, philox_m1 = 0xCD9E8D57u;
inline constexpr std::uint32_t philox_w0 = 0x9E3779B9u, philox_w1 = 0xBB67AE85u;

GPUFEC_HD_INLINE philox4x32_ctr philox4x32_10(philox4x32_ctr c, philox4x32_key k) {
  constexpr std::uint32_t M0 = philox_m0, M1 = philox_m1, W0 = philox_w0, W1 = philox_w1;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(M0) * c.v[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(M1) * c.v[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c = {{hi1 ^ c.v[1] ^ k.v[0], lo1, hi0 ^ c.v[3] ^ k.v[1], lo0}};
    k.v[0] += W0;
    k.v[1] += W1;
  }
  return c;
}

// 52 random bits from two words, centred in their cell of width 2^-52: the result lies in the open
// interval (0, 1), so log() is safe and `u < p` never fires for p = 0 nor fails for p = 1. Exact
// arithmetic (every value is a double), hence bit-identical on CPU and GPU.
GPUFEC_HD_INLINE double uniform_open01(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 12;
  return (static_cast<double>(bits) + 0.5) * (1.0 / 4503599627370496.0);  // 2^-52
}

// The bit that makes a stream word its tail companion's (philox_stream::tail_block).
inline constexpr std::uint32_t rng_tail_flag = 0x80000000u;

// A sequential stream of draws for one (seed, stream, frame): key = seed, counter = (block, frame,
// stream). Streams separate independent uses (source bits, channel events, noise) of one frame.
class philox_stream {
 public:
  GPUFEC_HD philox_stream(std::uint64_t seed, std::uint32_t stream, std::uint64_t frame,
                          std::uint32_t first_block = 0)
      : key_{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}},
        ctr_{{first_block, static_cast<std::uint32_t>(frame),
              static_cast<std::uint32_t>(frame >> 32), stream}},
        used_(4) {}

  // The four words of block `block` of this stream, independent of the sequential position.
  GPUFEC_HD philox4x32_ctr block(std::uint32_t b) const { return philox4x32_10(counter(b), key_); }
  // Block b of the stream's tail companion (stream word | rng_tail_flag): the extra bits a rare
  // draw needs (a Gaussian's deep tail, box_muller.hpp) at the same address as the block it
  // extends, so draws stay addressable by position.
  GPUFEC_HD philox4x32_ctr tail_block(std::uint32_t b) const {
    philox4x32_ctr c = counter(b);
    c.v[3] |= rng_tail_flag;
    return philox4x32_10(c, key_);
  }

  // The key, and the counter of block b (the bulk draws compute blocks lane by lane from them).
  GPUFEC_HD philox4x32_key key() const { return key_; }
  GPUFEC_HD philox4x32_ctr counter(std::uint32_t b) const {
    philox4x32_ctr c = ctr_;
    c.v[0] = b;
    return c;
  }

  GPUFEC_HD std::uint32_t next_u32() {
    if (used_ == 4) {
      buffer_ = philox4x32_10(ctr_, key_);
      ++ctr_.v[0];
      used_ = 0;
    }
    return buffer_.v[used_++];
  }
  GPUFEC_HD double next_uniform() {
    const std::uint32_t hi = next_u32();
    return uniform_open01(hi, next_u32());
  }
  GPUFEC_HD bool next_bernoulli(double p) { return next_uniform() < p; }
  GPUFEC_HD std::uint32_t next_bit() { return next_u32() >> 31; }
  // Uniform integer in [0, n), n > 0, without modulo bias (rejection on the top range).
  GPUFEC_HD std::uint32_t next_below(std::uint32_t n) {
    const std::uint32_t limit = static_cast<std::uint32_t>(-n) % n;  // 2^32 mod n
    for (;;) {
      const std::uint64_t m = static_cast<std::uint64_t>(next_u32()) * n;
      if (static_cast<std::uint32_t>(m) >= limit) return static_cast<std::uint32_t>(m >> 32);
    }
  }

 private:
  philox4x32_key key_;
  philox4x32_ctr ctr_;
  philox4x32_ctr buffer_{};
  int used_;
};

// Stream identifiers: one per independent use of randomness within a frame.
enum rng_stream : std::uint32_t {
  rng_source = 1,    // message symbols / information bits
  rng_channel = 2,   // channel events (noise, insertions, deletions, substitutions)
  rng_codebook = 3,  // random codebooks (frame = code position)
};

}  // namespace gpufec
