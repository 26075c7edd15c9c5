// The compiled register BP kernels (one per m = 3 .. 11, message type and schedule), looked up by
// the engine at plan time. Each precision is its own translation unit (bp_register_fp32.cu,
// bp_register_fp16.cu), so the two compile in parallel.
#pragma once

#include <utility>

#include "polar/cuda/kernels/bp_lane_rules.cuh"
#include "polar/cuda/kernels/bp_register_kernel.cuh"

namespace gpufec::polar::detail {

inline constexpr int register_kernel_min_m = 3, register_kernel_max_m = 11;

template <class Rule, bool LeftFirst, int... I>
const void* register_kernel_at(int m, std::integer_sequence<int, I...>) {
  static const void* const table[] = {reinterpret_cast<const void*>(
      &polar_bp_register_kernel<register_kernel_min_m + I, Rule, LeftFirst>)...};
  return m >= register_kernel_min_m && m <= register_kernel_max_m ? table[m - register_kernel_min_m]
                                                                  : nullptr;
}

// The kernel polar_bp_register_kernel<m, Rule, left_first> as a launchable pointer (null outside
// 3 .. 11).
template <class Rule>
const void* register_kernel_for(int m, bool left_first) {
  constexpr auto ms =
      std::make_integer_sequence<int, register_kernel_max_m - register_kernel_min_m + 1>{};
  return left_first ? register_kernel_at<Rule, true>(m, ms)
                    : register_kernel_at<Rule, false>(m, ms);
}

// Defined in bp_register_fp32.cu and bp_register_fp16.cu. left_first: the lr-rl schedule.
const void* register_kernel_fp32(bool scaled, int m, bool left_first);
const void* register_kernel_fp16(bool scaled, int m, bool left_first);

}  // namespace gpufec::polar::detail
