#include "gpufec/channel/bsc.hpp"

#include <cmath>

#include "gpufec/common/error.hpp"

namespace gpufec::channel {

bsc::bsc(double p) : p_(p) {
  require(!std::isnan(p) && p >= 0.0 && p <= 1.0,
          "the BSC crossover probability must lie in [0, 1] (p = ", p, ")");
}

void bsc::transmit(std::uint64_t seed, std::uint64_t frame, std::span<const std::uint8_t> in,
                   std::span<std::uint8_t> out) const {
  require(in.size() == out.size(), "bsc transmit: ", in.size(), " bits in but ", out.size(),
          " out");
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = static_cast<std::uint8_t>((in[i] != 0) ^ bsc_flips(seed, frame, i, p_));
}

}  // namespace gpufec::channel
