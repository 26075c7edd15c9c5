#include "gpufec/channel/awgn.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpufec/common/error.hpp"

namespace gpufec::channel {

void check_ebn0(double ebn0_db) {
  require(std::isfinite(ebn0_db) && std::abs(ebn0_db) <= max_ebn0_db, "Eb/N0 must lie in [-",
          max_ebn0_db, ", ", max_ebn0_db, "] dB (Eb/N0 = ", ebn0_db, " dB)");
}

double esn0_from_ebn0(double ebn0_db, double rate, int bits_per_symbol) {
  check_ebn0(ebn0_db);
  require(std::isfinite(rate) && rate > 0.0 && rate <= 1.0,
          "the code rate must lie in (0, 1] (rate = ", rate, ")");
  require(bits_per_symbol >= 1,
          "bits per symbol must be at least 1 (bits_per_symbol = ", bits_per_symbol, ")");
  return ebn0_db + 10.0 * std::log10(rate * bits_per_symbol);
}

double sigma_from_esn0(double esn0_db) {
  // Beyond 300 dB either way sigma^2 leaves [1e-30, 1e30]: LLRs would overflow or vanish in float.
  require(std::isfinite(esn0_db) && std::abs(esn0_db) <= 300,
          "Es/N0 must lie in [-300, 300] dB (Es/N0 = ", esn0_db, " dB)");
  return std::sqrt(1.0 / (2.0 * std::pow(10.0, esn0_db / 10.0)));
}

double sigma_from_ebn0(double ebn0_db, double rate, int bits_per_symbol) {
  return sigma_from_esn0(esn0_from_ebn0(ebn0_db, rate, bits_per_symbol));
}

double int8_llr_scale(double sigma) {
  require(std::isfinite(sigma) && sigma > 0.0, "sigma must be positive (sigma = ", sigma, ")");
  return 127.0 / llr_from_sample(1.0 + 3.0 * sigma, sigma);
}

bpsk_awgn::bpsk_awgn(double sigma) : sigma_(sigma) {
  require(std::isfinite(sigma) && sigma > 0.0,
          "the AWGN noise deviation must be positive and finite (sigma = ", sigma, ")");
}

bpsk_awgn bpsk_awgn::from_ebn0(double ebn0_db, double rate, int bits_per_symbol) {
  return bpsk_awgn(sigma_from_ebn0(ebn0_db, rate, bits_per_symbol));
}

bpsk_awgn bpsk_awgn::from_esn0(double esn0_db) {
  return bpsk_awgn(sigma_from_esn0(esn0_db));
}

void bpsk_awgn::transmit(std::uint64_t seed, std::uint64_t frame,
                         std::span<const std::uint8_t> bits, std::span<float> y) const {
  require(bits.size() == y.size(), "transmit: ", bits.size(), " bits but ", y.size(), " outputs");
  // awgn_received's samples, the Gaussians drawn in bulk, a chunk at a time.
  const philox_stream noise(seed, rng_channel, frame);
  constexpr std::size_t kChunk = 1024;
  float g[kChunk];
  const auto sigma = static_cast<float>(sigma_);
  for (std::size_t at = 0; at < bits.size(); at += kChunk) {
    const std::size_t n = std::min(kChunk, bits.size() - at);
    gaussians(noise, at, at + n, g);
    for (std::size_t i = 0; i < n; ++i) y[at + i] = awgn_sample(bits[at + i], sigma, g[i]);
  }
}

void bpsk_awgn::llr(std::span<const float> y, std::span<float> out) const {
  require(y.size() == out.size(), "llr: ", y.size(), " samples but ", out.size(), " outputs");
  const float factor = llr_factor(sigma_);
  for (std::size_t i = 0; i < y.size(); ++i) out[i] = llr_of(y[i], factor);
}

void bpsk_awgn::llr_int8(std::span<const float> y, std::span<std::int8_t> out, double scale) const {
  require(y.size() == out.size(), "llr_int8: ", y.size(), " samples but ", out.size(), " outputs");
  require(std::isfinite(scale) && scale > 0.0 && scale <= std::numeric_limits<float>::max(),
          "the int8 LLR scale must be positive and a finite float (scale = ", scale, ")");
  const float factor = llr_factor(sigma_);
  for (std::size_t i = 0; i < y.size(); ++i)
    out[i] = llr_to_int8(llr_of(y[i], factor), static_cast<float>(scale));
}

}  // namespace gpufec::channel
