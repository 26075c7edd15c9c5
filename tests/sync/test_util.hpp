// Helpers shared by the sync decoder tests (CPU and CUDA): random frames through the BSID channel,
// and the brute-force oracle.
#pragma once

#include <cstdint>
#include <vector>

#include "gpufec/common/batch.hpp"
#include "gpufec/common/philox.hpp"
#include "gpufec/sync/bsid_channel.hpp"
#include "gpufec/sync/simulation.hpp"
#include "gpufec/sync/tvb_code.hpp"

namespace gpufec::sync::testing {

inline bsid_params params(double Pi, double Pd, double Ps = 0) {
  return {Pi, Pd, Ps};
}

struct frames {
  std::vector<std::vector<std::uint32_t>> messages;
  batch<std::uint8_t> received;
};

// `count` random messages, encoded and sent through the channel, from (seed, frame index): the
// library's one frame generator (sync::draw_frames), messages split per frame.
inline frames make_frames(const tvb_code& code, const bsid_params& ch, std::uint64_t seed,
                          std::size_t count, std::uint64_t first_frame = 0) {
  sim_frames made = sync::draw_frames(code, ch, seed, count, first_frame);
  frames out;
  const std::size_t N = code.N();
  for (std::size_t k = 0; k < count; ++k)
    out.messages.emplace_back(made.messages.begin() + k * N, made.messages.begin() + (k + 1) * N);
  out.received = std::move(made.received);
  return out;
}

// P(y | x) through the exact full-frame lattice (no drift limits), for every end drift:
// result[m] = Pr{receive y[0, tau + m), drift m after the last symbol | x}, m = 0 .. rho - tau
// shifted by tau (index tau + m, i.e. by received prefix length).
inline std::vector<double> prefix_likelihoods(const std::vector<std::uint8_t>& x,
                                              std::span<const std::uint8_t> y,
                                              const bsid_params& ch) {
  const std::size_t tau = x.size(), rho = y.size();
  const double ins = ch.Pi / 2, del = ch.Pd, match = ch.Pt() * (1 - ch.Ps),
               mismatch = ch.Pt() * ch.Ps;
  std::vector<double> prev(rho + 1, 0.0), cur(rho + 1, 0.0);
  prev[0] = 1;
  for (std::size_t j = 1; j <= rho; ++j) prev[j] = ins * prev[j - 1];
  for (std::size_t r = 1; r <= tau; ++r) {
    const double in = r < tau ? ins : 0.0;
    for (std::size_t j = 0; j <= rho; ++j) {
      double v = del * prev[j];
      if (j > 0) v += in * cur[j - 1] + (y[j - 1] == x[r - 1] ? match : mismatch) * prev[j - 1];
      cur[j] = v;
    }
    std::swap(prev, cur);
  }
  return prev;  // index = received prefix length
}

}  // namespace gpufec::sync::testing
