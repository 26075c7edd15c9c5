// Device limits and the occupancy questions a plan asks when it chooses launch shapes (seed paper
// sec. V: shapes are chosen at run time from the device, never hard-coded).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "common/cuda/check.cuh"
#include "common/cuda/launch_shape.hpp"
#include "gpufec/common/align.hpp"

namespace gpufec::cuda {

// What a plan needs to know of the current device, read once per plan.
struct device_limits {
  int device = 0;
  int sm_count = 0;
  int compute_major = 0;
  int max_block_threads = 0;
  std::size_t shared_optin = 0;  // dynamic shared memory a block may opt in to, bytes
  std::size_t free_memory = 0, total_memory = 0;
  int least_priority = 0,
      greatest_priority = 0;  // stream priorities (greatest is numerically least)
};
device_limits current_device_limits();

// Resident blocks per SM of `kernel` at `threads` threads and `shared` bytes (0: does not fit).
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, std::size_t shared) {
  int blocks = 0;
  GPUFEC_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
  return blocks;
}

// Lets `kernel` use `shared` bytes of dynamic shared memory (never lowering what an earlier plan
// allowed: the attribute is process-wide, and a plan still alive may launch with more), and asks
// for the largest carveout, so that an SM running one kernel's blocks can take another's without
// first draining to change its L1/shared split (kernels of different pipelined parts run side by
// side; measured in the sync decoder, bench/RESULTS.md, 2026-11-21, priorities that hold and
// lattice rows shared by prefix, 40acca4).
template <class Kernel>
void allow_shared(Kernel kernel, std::size_t shared) {
  cudaFuncAttributes attributes{};
  GPUFEC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  if (static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) < shared)
    GPUFEC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared)));
  GPUFEC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxShared));
}

// The occupancy search every plan runs (seed paper sec. V): candidate shapes offered in the
// plan's order of preference, each asked of the occupancy API at its threads and shared memory,
// and the one whose score (resident tiles, codewords, threads ... per SM: the plan's measure of
// them, from the blocks per SM) is highest is kept; on a tie the earlier one stays, unless the
// offer says later ones win ties. A shape whose shared memory exceeds what a block may opt in to
// is not asked (resident() is 0).
template <class Kernel>
class shape_search {
 public:
  shape_search(Kernel kernel, std::size_t shared_optin) : kernel_(kernel), optin_(shared_optin) {}

  // Resident blocks per SM of the kernel at `threads` threads and `shared` bytes, having let it
  // use them (0: more than the device gives a block, or no block fits).
  int resident(int threads, std::size_t shared) const {
    if (shared > optin_) return 0;
    allow_shared(kernel_, shared);
    return resident_blocks(kernel_, threads, shared);
  }
  // Keeps `shape` when its `score` beats the best so far (ties too if `ties_win`); a shape of no
  // resident block never wins.
  bool offer(const launch_shape& shape, long long score, bool ties_win = false) {
    if (shape.blocks_per_sm <= 0) return false;
    if (best_ && (score < score_ || (score == score_ && !ties_win))) return false;
    best_ = shape;
    score_ = score;
    return true;
  }
  const launch_shape& best() const { return best_; }
  long long best_score() const { return score_; }

 private:
  Kernel kernel_;
  std::size_t optin_;
  launch_shape best_;
  long long score_ = 0;
};

// A block per item, a thread per element: the widest block of whole warps, from `threads` down by
// halves, that keeps a block resident with `shared` bytes ({} when not even a warp does).
template <class Kernel>
launch_shape widest_resident(Kernel kernel, int threads, std::size_t shared) {
  allow_shared(kernel, shared);
  for (threads = round_up(threads, 32);; threads = round_up(threads / 2, 32)) {
    if (const int blocks = resident_blocks(kernel, threads, shared); blocks > 0)
      return {threads, 1, threads, shared, blocks};
    if (threads == 32) return {};
  }
}

// The occupancy API's block size for a kernel without dynamic shared memory (grid-stride loops).
template <class Kernel>
launch_shape suggested_shape(Kernel kernel) {
  int min_grid = 0, threads = 0;
  GPUFEC_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &threads, kernel, 0, 0));
  return {threads, threads, 1, 0, resident_blocks(kernel, threads, 0)};
}

}  // namespace gpufec::cuda
