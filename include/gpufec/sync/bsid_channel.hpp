// The binary substitution-insertion-deletion (BSID) channel (Bahl & Jelinek; Davey & MacKay), over
// an alphabet of `alphabet` symbols (2 today; the decoder's metric is written for any size so a
// 4-ary DNA alphabet can follow).
//
// For each transmitted symbol, repeatedly: with probability Pi a uniformly random symbol is
// inserted and the channel stays on the same input symbol; else with Pd the input symbol is
// deleted; else (Pt = 1 - Pi - Pd) it is transmitted, substituted by a uniformly chosen different
// symbol with probability Ps. No insertion follows the frame's last symbol.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpufec/common/hd.hpp"
#include "gpufec/common/philox.hpp"

namespace gpufec::sync {

struct bsid_params {
  double Pi = 0;  // insertion
  double Pd = 0;  // deletion
  double Ps = 0;  // substitution of a transmitted symbol
  int alphabet = 2;

  GPUFEC_HD double Pt() const { return 1.0 - Pi - Pd; }
  // Throws invalid_argument naming the field unless 0 <= Pi, Pd, Ps <= 1, Pi + Pd < 1, and the
  // alphabet is binary (the only one implemented end to end today). NaN is rejected too.
  void validate() const;
};

// Transmits x[0, tau) through the channel, writing at most `capacity` received symbols into y.
// Returns the true received length rho (which may exceed `capacity`: then y holds only the first
// `capacity` symbols and the frame is undecodable by construction). When `drift` is non-null it
// receives the true drift at every multiple of `stride` input symbols: drift[k] = (received symbols
// emitted before input symbol k*stride is considered) - k*stride, for k = 0 .. tau/stride, where
// the last entry (k*stride == tau) is rho - tau. Host and device share this definition, so a GPU
// thread per frame reproduces the CPU's frames exactly from the same stream.
GPUFEC_HD_INLINE std::size_t bsid_transmit(const bsid_params& p, const std::uint8_t* x,
                                           std::size_t tau, philox_stream& rng, std::uint8_t* y,
                                           std::size_t capacity, std::int32_t* drift = nullptr,
                                           std::size_t stride = 1) {
  const double p_ins = p.Pi, p_ins_del = p.Pi + p.Pd;
  const auto a = static_cast<std::uint32_t>(p.alphabet);
  std::size_t rho = 0;
  auto emit = [&](std::uint32_t symbol) {
    if (rho < capacity) y[rho] = static_cast<std::uint8_t>(symbol);
    ++rho;
  };
  for (std::size_t t = 0; t < tau; ++t) {
    if (drift && t % stride == 0)
      drift[t / stride] = static_cast<std::int32_t>(static_cast<long long>(rho) - (long long)t);
    for (;;) {
      const double u = rng.next_uniform();
      if (u < p_ins) {
        emit(a == 2 ? rng.next_bit() : rng.next_below(a));
        continue;
      }
      if (u < p_ins_del) break;  // deleted
      std::uint32_t s = x[t];
      if (p.Ps > 0 && rng.next_uniform() < p.Ps)
        s = a == 2 ? s ^ 1u : (s + 1 + rng.next_below(a - 1)) % a;
      emit(s);
      break;
    }
  }
  if (drift && tau % stride == 0)
    drift[tau / stride] = static_cast<std::int32_t>(static_cast<long long>(rho) - (long long)tau);
  return rho;
}

// Host convenience: the whole received sequence, grown as needed.
std::vector<std::uint8_t> bsid_transmit(const bsid_params& p, const std::vector<std::uint8_t>& x,
                                        philox_stream& rng,
                                        std::vector<std::int32_t>* drift = nullptr,
                                        std::size_t stride = 1);

}  // namespace gpufec::sync
