// The CUDA BPSK/AWGN chain as a registry entry (src/sim/cuda/awgn_chain.cu sets it when CUDA is
// compiled), and what both chains share.
#pragma once

#include <algorithm>
#include <memory>

#include "common/backend_registry.hpp"
#include "gpufec/sim/awgn_chain.hpp"

namespace gpufec::sim::detail {

struct cuda_awgn_chain_entry {
  using factory = std::unique_ptr<chain> (*)(const binary_code&, double ebn0_db,
                                             std::uint64_t seed);
};

// Frames per decoder call: about `samples` transmitted bits, at least one frame.
inline std::size_t frames_for(const binary_code& code, std::size_t samples) {
  return std::max<std::size_t>(1, samples / std::max(code.coded_bits, code.info_bits));
}

std::vector<std::pair<std::string, std::string>> chain_details(const binary_code& code,
                                                               double sigma,
                                                               const binary_decoder& decoder);

}  // namespace gpufec::sim::detail
