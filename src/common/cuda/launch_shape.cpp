#include "common/cuda/launch_shape.hpp"

#include <algorithm>

#include "gpufec/common/error.hpp"

namespace gpufec::cuda {

int launch_shape::grid_stride_blocks(int sm_count, unsigned long long items) const {
  const unsigned long long needed = (items + threads - 1) / threads;
  const unsigned long long most =
      static_cast<unsigned long long>(std::max<long long>(1, wave(sm_count)));
  return static_cast<int>(std::max<unsigned long long>(1, std::min(needed, most)));
}

launch_shape::frame_grid launch_shape::frame_blocks(int sm_count, unsigned long long items,
                                                    unsigned long long frames) const {
  const unsigned long long most =
      static_cast<unsigned long long>(std::max<long long>(1, wave(sm_count)));
  const unsigned long long x =
      std::clamp<unsigned long long>((items + threads - 1) / threads, 1, most);
  const unsigned long long y =
      std::clamp<unsigned long long>(most / x, 1, std::clamp<unsigned long long>(frames, 1, 65535));
  return {static_cast<unsigned>(x), static_cast<unsigned>(y)};
}

std::string to_string(const launch_shape& s) {
  return cat("block ", s.threads, " (", s.Bx, " x ", s.By, "), shared ", s.shared, " B, ",
             s.blocks_per_sm, " blocks/SM");
}

}  // namespace gpufec::cuda
