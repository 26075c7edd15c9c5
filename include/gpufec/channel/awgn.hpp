// BPSK over the additive white Gaussian noise channel.
//
// Conventions (stated once, used everywhere in gpufec):
// - Mapping: bit b is sent as the symbol x = 1 - 2b (0 -> +1, 1 -> -1), unit symbol energy Es = 1.
// - Received: y = x + sigma * n, n ~ N(0, 1) drawn from gaussian_at(philox_stream(seed,
//   rng_channel, frame), position), so a GPU thread per position draws what the CPU loop draws.
// - Noise from the SNR: Es/N0 = R * m * Eb/N0 (R the code rate, m the bits per symbol) and
//   sigma^2 = N0 / 2 = 1 / (2 * Es/N0), hence sigma = sqrt(1 / (2 * R * m * 10^(EbN0_dB / 10))).
// - Arithmetic: float, as every decoder's input is (sigma and the LLR factor are computed in
//   double and rounded once to float); y = x + sigma n is one fused multiply-add.
// - LLR: L = log(P(b = 0 | y) / P(b = 1 | y)) = 2y / sigma^2, computed as y times the factor
//   2 / sigma^2 (one rounding each, on every backend). Positive L means bit 0 is more likely.
// - int8 LLRs: q = round(L * scale) in float, saturated to [-127, 127] (never -128, so -q is
//   always valid).
//   int8_llr_scale(sigma) maps the LLR of |y| = 1 + 3 sigma (a symbol three deviations beyond its
//   mean) to 127, keeping resolution where decisions are made and clipping only the tail.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>

#include "gpufec/common/hd.hpp"
#include "gpufec/common/ieee_ops.hpp"
#include "gpufec/common/llr_kind.hpp"
#include "gpufec/common/random.hpp"

namespace gpufec::channel {

GPUFEC_HD_INLINE float bpsk_symbol(std::uint8_t bit) {
  return bit ? -1.0f : 1.0f;
}

// The received sample of `bit` for a standard normal draw g: x + sigma g in float, one rounding
// (a fused multiply-add, ieee_ops.hpp), as on every backend; sigma is rounded to float first.
GPUFEC_HD_INLINE float awgn_sample(std::uint8_t bit, float sigma, float g) {
  return ieee_fma(sigma, g, bpsk_symbol(bit));
}

// The received sample at `position` of `frame` when `bit` was sent.
GPUFEC_HD_INLINE float awgn_received(std::uint64_t seed, std::uint64_t frame,
                                     std::uint64_t position, std::uint8_t bit, double sigma) {
  const philox_stream noise(seed, rng_channel, frame);
  return awgn_sample(bit, static_cast<float>(sigma), gaussian_at(noise, position));
}

// 2 / sigma^2, the factor of every LLR of a channel: in double, rounded once to float.
GPUFEC_HD_INLINE float llr_factor(double sigma) {
  return static_cast<float>(ieee_div(2.0, ieee_mul(sigma, sigma)));
}

// The LLR of a sample: y (rounded to float) times the factor, in float.
GPUFEC_HD_INLINE float llr_of(float y, float factor) {
  return ieee_mul(y, factor);
}
GPUFEC_HD_INLINE float llr_from_sample(double y, double sigma) {
  return llr_of(static_cast<float>(y), llr_factor(sigma));
}

// round(llr scale) in float (nearest, ties to even), saturated to [-127, 127].
GPUFEC_HD_INLINE std::int8_t llr_to_int8(float llr, float scale) {
  const float q = rintf(ieee_mul(llr, scale));
  return static_cast<std::int8_t>(q > 127.0f ? 127.0f : (q < -127.0f ? -127.0f : q));
}

// Hard decision on an LLR or a BPSK sample: 1 when negative (a zero decides 0).
GPUFEC_HD_INLINE std::uint8_t hard_decision(float llr) {
  return llr < 0.0f ? 1 : 0;
}

// The decoder's input of kind Out made of an LLR: the float itself, its int8 form at `scale`, or
// the hard decision (a byte).
template <class Out>
GPUFEC_HD_INLINE Out decoder_input(float llr, float scale) {
  if constexpr (sizeof(Out) == 4)
    return llr;
  else if constexpr (std::is_same_v<Out, std::int8_t>)
    return llr_to_int8(llr, scale);
  else
    return hard_decision(llr);
}

// The Eb/N0 every gpufec simulation and channel accepts, in dB: [-200, 200]. Within it sigma stays
// in [1e-10, 1e10] for any rate down to 1e-6, so LLRs are finite and nonzero in float.
inline constexpr double max_ebn0_db = 200;
// Throws invalid_argument naming the value when Eb/N0 (dB) is not finite or outside the range.
void check_ebn0(double ebn0_db);
// Noise standard deviation for Eb/N0 in dB, code rate R in (0, 1] and m bits per symbol.
double sigma_from_ebn0(double ebn0_db, double rate = 1.0, int bits_per_symbol = 1);
// Noise standard deviation for Es/N0 in dB (unit symbol energy).
double sigma_from_esn0(double esn0_db);
double esn0_from_ebn0(double ebn0_db, double rate = 1.0, int bits_per_symbol = 1);
// The int8 scale described above: 127 / (2 (1 + 3 sigma) / sigma^2).
double int8_llr_scale(double sigma);

// The decoder's input at positions [begin, end) of `frame`: for position j, the LLR of
// awgn_received(seed, frame, j, bits[j - begin], sigma) as `kind` (a float; int8 by llr_to_int8
// at int8_llr_scale(sigma); the hard decision on the float) into out[j - begin], an array of
// floats for f32 and of bytes otherwise. Bit for bit the formulas above, vectorized (Highway, run
// time dispatch; src/channel/awgn_simd.cpp): the CPU chain's channel stage.
void awgn_llrs(std::uint64_t seed, std::uint64_t frame, std::uint64_t begin, std::uint64_t end,
               const std::uint8_t* bits, double sigma, llr_kind kind, void* out);

class bpsk_awgn {
 public:
  explicit bpsk_awgn(double sigma);  // sigma > 0 and finite
  static bpsk_awgn from_ebn0(double ebn0_db, double rate = 1.0, int bits_per_symbol = 1);
  static bpsk_awgn from_esn0(double esn0_db);

  double sigma() const { return sigma_; }
  // y[i] = 1 - 2 bits[i] + noise, positions 0.. of (seed, frame).
  void transmit(std::uint64_t seed, std::uint64_t frame, std::span<const std::uint8_t> bits,
                std::span<float> y) const;
  void llr(std::span<const float> y, std::span<float> llr) const;
  void llr_int8(std::span<const float> y, std::span<std::int8_t> llr, double scale) const;

 private:
  double sigma_;
};

}  // namespace gpufec::channel
