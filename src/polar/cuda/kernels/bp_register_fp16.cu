// The fp16 (__half2, two codewords per register) register BP kernels (min-sum, scaled min-sum),
// m = 3 .. 11, both schedules.
#include "polar/cuda/kernels/bp_register_kernels.cuh"

namespace gpufec::polar::detail {

const void* register_kernel_fp16(bool scaled, int m, bool left_first) {
  return scaled ? register_kernel_for<lane_rules::fp16_min_sum<true>>(m, left_first)
                : register_kernel_for<lane_rules::fp16_min_sum<false>>(m, left_first);
}

}  // namespace gpufec::polar::detail
