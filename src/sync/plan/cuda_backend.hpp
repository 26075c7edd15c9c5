// The CUDA sync backend as the plan reaches it: a registry entry (common/backend_registry.hpp)
// that src/sync/cuda/engine.cu sets when CUDA is compiled. plan_cuda() chooses, the engine
// executes.
#pragma once

#include <cstddef>
#include <memory>

#include "common/backend_registry.hpp"
#include "sync/plan/cuda_plan.hpp"
#include "sync/plan/engine.hpp"

namespace gpufec::sync::detail {

// What the plan asks of plan_cuda(): a storage mode (automatic: the rule of policy.hpp), and for
// a retry after an allocation failed, a cap on the chunk (0: as many frames as the budget fits).
struct cuda_plan_request {
  storage_mode storage = storage_mode::automatic;
  std::size_t chunk_cap = 0;
  bool at_least_one = false;  // plan one frame even when the budget fits none (a retry)
};

// Throws out_of_memory when not one frame fits the budget, invalid_argument for what the CUDA
// decoder does not implement (a non-binary alphabet).
cuda_plan plan_cuda(const geometry& g, const decoder_options& options, std::size_t max_batch,
                    const cuda_plan_request& request);

struct cuda_backend {
  cuda_plan (*plan)(const geometry&, const decoder_options&, std::size_t, const cuda_plan_request&);
  std::unique_ptr<decoder_engine> (*engine)(const tvb_code&, const geometry&, const cuda_plan&);
};
struct cuda_backend_entry {
  using factory = const cuda_backend*;
};

}  // namespace gpufec::sync::detail
