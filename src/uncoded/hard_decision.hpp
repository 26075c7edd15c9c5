// The uncoded family's decoder: a hard decision on each LLR's sign, behind the BPSK/AWGN chain's
// decoder interface. The CPU one is here; the CUDA one registers itself (cuda/hard_decision.cu).
#pragma once

#include <memory>

#include "common/backend_registry.hpp"
#include "gpufec/sim/awgn_chain.hpp"

namespace gpufec::uncoded::detail {

struct cuda_decoder_entry {
  using factory = std::unique_ptr<sim::binary_decoder> (*)(std::size_t max_batch);
};

std::unique_ptr<sim::binary_decoder> make_cpu_decoder(std::size_t max_batch);

}  // namespace gpufec::uncoded::detail
