// The rules and description of the CUDA polar BP plan (cuda_plan.hpp).
#include "polar/plan/cuda_plan.hpp"

#include <algorithm>

#include "gpufec/common/error.hpp"

namespace gpufec::polar::detail {

unsigned cuda_plan::blocks_for(unsigned long long frames) const {
  const unsigned long long per_block = std::max(slots, 1u);
  return static_cast<unsigned>(
      std::clamp<unsigned long long>((frames + per_block - 1) / per_block, 1, std::max(grid, 1u)));
}

std::string cuda_plan::describe(unsigned N, unsigned m, bool replace) const {
  const std::string chunks = cat("; host chunks of ", chunk_frames, " frames on 2 streams");
  const std::string refill = cat(", refill ", replace ? "replace" : "block");
  if (registers)
    return cat("CUDA BP register kernel (", lanes == 2 ? "fp16, 2 codewords per register" : "fp32",
               "), ", N / 8, " threads per codeword holding 8 nodes of every 3-stage group, ",
               (m + 2) / 3 - 1, " boundary columns in shared memory (", region_bytes,
               " B per slot), ", registers_per_thread, " registers per thread (", spilled_bytes,
               " B local), ", shape.By, " slots per block, ", cuda::to_string(shape), ", grid ",
               grid, refill, chunks);
  return cat("CUDA BP memory kernel, messages in ", global ? "global" : "shared", " memory (",
             slot_bytes, " B per codeword), ", shape.Bx, " threads per codeword, ", slots,
             " codewords per block, ", cuda::to_string(shape), ", grid ", grid, refill, chunks);
}

}  // namespace gpufec::polar::detail
