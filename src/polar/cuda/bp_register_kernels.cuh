// The compiled register BP kernels (one per m = 3 .. 11, per message type), looked up by the
// engine at plan time. Each precision is its own translation unit (bp_register_fp32.cu,
// bp_register_fp16.cu), so the two compile in parallel.
#pragma once

#include "polar/cuda/bp_lane_rules.cuh"
#include "polar/cuda/bp_register_kernel.cuh"

namespace gpufec::polar::detail {

inline constexpr int register_kernel_min_m = 3, register_kernel_max_m = 11;

// The kernel polar_bp_register_kernel<m, Rule> as a launchable pointer (null outside 3 .. 11).
template <class Rule>
const void* register_kernel_for(int m) {
  switch (m) {
    case 3:
      return reinterpret_cast<const void*>(&polar_bp_register_kernel<3, Rule>);
    case 4:
      return reinterpret_cast<const void*>(&polar_bp_register_kernel<4, Rule>);
    case 5:
      return reinterpret_cast<const void*>(&polar_bp_register_kernel<5, Rule>);
    case 6:
      return reinterpret_cast<const void*>(&polar_bp_register_kernel<6, Rule>);
    case 7:
      return reinterpret_cast<const void*>(&polar_bp_register_kernel<7, Rule>);
    case 8:
      return reinterpret_cast<const void*>(&polar_bp_register_kernel<8, Rule>);
    case 9:
      return reinterpret_cast<const void*>(&polar_bp_register_kernel<9, Rule>);
    case 10:
      return reinterpret_cast<const void*>(&polar_bp_register_kernel<10, Rule>);
    case 11:
      return reinterpret_cast<const void*>(&polar_bp_register_kernel<11, Rule>);
    default:
      return nullptr;
  }
}

// Defined in bp_register_fp32.cu and bp_register_fp16.cu.
const void* register_kernel_fp32(bool scaled, int m);
const void* register_kernel_fp16(bool scaled, int m);

}  // namespace gpufec::polar::detail
