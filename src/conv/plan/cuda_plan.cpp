// The rules and description of the CUDA conv plan (cuda_plan.hpp).
#include "conv/plan/cuda_plan.hpp"

#include <algorithm>

#include "conv/cuda/policy.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::conv::detail {

unsigned cuda_plan::blocks_for(unsigned long long tiles) const {
  const auto per_block = static_cast<unsigned long long>(
      registers ? shape.threads / lanes : shape.By);  // tiles a block runs at once
  const unsigned long long needed = (tiles + per_block - 1) / per_block;
  const auto most = static_cast<unsigned long long>(shape.wave(sm_count) * policy::launch_waves);
  return static_cast<unsigned>(std::clamp<unsigned long long>(needed, 1, most));
}

std::size_t cuda_plan::preferred_batch(std::size_t max_batch) const {
  const std::size_t per_frame = std::max<std::size_t>(params.tiles_per_frame, 1);
  return std::clamp<std::size_t>(
      (policy::preferred_waves * resident_tiles + per_frame - 1) / per_frame, 1,
      std::max<std::size_t>(max_batch, 1));
}

std::string cuda_plan::describe(const std::string& code) const {
  const std::string tile_from = source == tile_source::fitted           ? " (fitted to the batch)"
                                : source == tile_source::kernel_default ? " (the kernel's default)"
                                                                        : "";
  const std::string host =
      !host_batches  ? std::string()
      : window_tiles ? cat("; host frames in windows of ", window_tiles, " tiles on 2 streams")
                     : cat("; host batches in chunks of ", chunk_frames, " frames on 2 streams");
  const std::string wave =
      cat(", ", resident_tiles, " tiles a wave, tile ", tile.to_string(), tile_from);
  if (registers)
    return cat("registers: ", lanes == 1 ? "one thread" : "four threads", " per tile, ", code,
               " compiled in, int16x2 DPX add-max, a ring of ", params.ring,
               " survivor stages per thread; ", cuda::to_string(shape), wave, host);
  return cat("shared memory: one warp per tile, ", shape.By, " tiles per block, ",
             cuda::to_string(shape), ", ", params.slot_bytes, " B of shared memory per tile", wave,
             host);
}

}  // namespace gpufec::conv::detail
