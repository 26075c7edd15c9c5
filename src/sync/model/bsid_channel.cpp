#include "gpufec/sync/bsid_channel.hpp"

#include <cmath>

#include "gpufec/common/error.hpp"

namespace gpufec::sync {

void bsid_params::validate() const {
  auto check = [](double v, const char* name) {
    require(!std::isnan(v), "BSID channel: ", name, " is NaN");
    require(v >= 0 && v <= 1, "BSID channel: ", name, " = ", v, " must be in [0, 1]");
  };
  check(Pi, "Pi");
  check(Pd, "Pd");
  check(Ps, "Ps");
  require(Pi + Pd < 1, "BSID channel: Pi + Pd = ", Pi + Pd, " (Pi = ", Pi, ", Pd = ", Pd,
          ") must be below 1");
  require(alphabet == 2, "BSID channel: alphabet = ", alphabet,
          " is not supported (only the binary alphabet, 2, is implemented)");
}

std::vector<std::uint8_t> bsid_transmit(const bsid_params& p, const std::vector<std::uint8_t>& x,
                                        philox_stream& rng, std::vector<std::int32_t>* drift,
                                        std::size_t stride) {
  p.validate();
  require(stride >= 1, "bsid_transmit: stride = ", stride, " must be >= 1");
  for (std::size_t t = 0; t < x.size(); ++t)
    require(x[t] < p.alphabet, "bsid_transmit: input symbol ", t, " = ", int{x[t]},
            " is outside the alphabet of ", p.alphabet, " symbols");
  const std::size_t tau = x.size();
  if (drift) drift->assign(tau / stride + 1, 0);
  std::int32_t* d = drift ? drift->data() : nullptr;
  // A first guess of the received length (mean plus a margin); when the frame turns out longer,
  // the same draws are replayed from a copy of the original stream into a buffer of the exact size.
  const double mean = static_cast<double>(tau) * (1.0 - p.Pd) / (1.0 - p.Pi);
  std::vector<std::uint8_t> y(static_cast<std::size_t>(mean + 8.0 * std::sqrt(mean + 1.0)) + 16);
  const philox_stream start = rng;
  const std::size_t rho = bsid_transmit(p, x.data(), tau, rng, y.data(), y.size(), d, stride);
  if (rho > y.size()) {
    y.assign(rho, 0);
    philox_stream again = start;
    const std::size_t rho2 = bsid_transmit(p, x.data(), tau, again, y.data(), y.size(), d, stride);
    require<error>(rho2 == rho, "bsid_transmit: replay gave ", rho2, " symbols instead of ", rho);
    rng = again;
  }
  y.resize(rho);
  return y;
}

}  // namespace gpufec::sync
