// The CUDA simulation chain of the sync family, as a registry entry (src/sync/sim/cuda_chain.cu
// sets it when CUDA is compiled).
#pragma once

#include <memory>

#include "gpufec/sync/simulation.hpp"

namespace gpufec::sync::detail {

struct cuda_chain_entry {
  using factory = std::unique_ptr<sim::chain> (*)(const sim_setup&, const bsid_params&,
                                                  std::uint64_t seed);
};

}  // namespace gpufec::sync::detail
