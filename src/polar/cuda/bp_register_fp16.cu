// The fp16 (__half2, two codewords per register) register BP kernels (min-sum, scaled min-sum),
// m = 3 .. 11.
#include "polar/cuda/bp_register_kernels.cuh"

namespace gpufec::polar::detail {

const void* register_kernel_fp16(bool scaled, int m) {
  return scaled ? register_kernel_for<lane_rules::fp16_min_sum<true>>(m)
                : register_kernel_for<lane_rules::fp16_min_sum<false>>(m);
}

}  // namespace gpufec::polar::detail
