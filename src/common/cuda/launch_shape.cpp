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

std::string to_string(const launch_shape& s) {
  return cat("block ", s.threads, " (", s.Bx, " x ", s.By, "), shared ", s.shared, " B, ",
             s.blocks_per_sm, " blocks/SM");
}

}  // namespace gpufec::cuda
