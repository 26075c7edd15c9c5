// The one frame generator of the sync family: what every chain, test and benchmark decodes.
#include <vector>

#include "gpufec/sync/simulation.hpp"

namespace gpufec::sync {

std::size_t draw_frame(const tvb_code& code, const bsid_params& channel, std::uint64_t seed,
                       std::uint64_t f, std::uint32_t* message, std::uint8_t* x,
                       std::uint8_t* received, std::size_t capacity) {
  philox_stream source(seed, rng_source, f);
  for (int i = 0; i < code.N(); ++i)
    message[i] = source.next_below(static_cast<std::uint32_t>(code.q()));
  const auto tau = static_cast<std::size_t>(code.tau());
  code.encode(std::span<const std::uint32_t>(message, code.N()), std::span<std::uint8_t>(x, tau));
  philox_stream events(seed, rng_channel, f);
  return bsid_transmit(channel, x, tau, events, received, capacity);
}

sim_frames draw_frames(const tvb_code& code, const bsid_params& channel, std::uint64_t seed,
                       std::size_t count, std::uint64_t first) {
  sim_frames out;
  const std::size_t N = code.N(), tau = static_cast<std::size_t>(code.tau());
  out.messages.resize(count * N);
  std::vector<std::uint8_t> x(tau), y(2 * tau + 64);
  for (std::size_t k = 0; k < count; ++k) {
    std::size_t rho = draw_frame(code, channel, seed, first + k, out.messages.data() + k * N,
                                 x.data(), y.data(), y.size());
    if (rho > y.size()) {  // rare: send it again into room for all of it
      y.resize(rho);
      rho = draw_frame(code, channel, seed, first + k, out.messages.data() + k * N, x.data(),
                       y.data(), y.size());
    }
    out.received.push_back(std::span<const std::uint8_t>(y.data(), rho));
  }
  return out;
}

}  // namespace gpufec::sync
