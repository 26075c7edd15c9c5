// Byte alignment of blocks laid out one after another in one allocation (staging buffers, shared
// memory): host and device share the rule, so both compute the same offsets.
#pragma once

#include <cstddef>

#include "gpufec/common/hd.hpp"

namespace gpufec {

// `bytes` rounded up to a multiple of 16 (the alignment of every block laid out after another,
// and of 16-byte vector loads).
GPUFEC_HD constexpr std::size_t align16(std::size_t bytes) {
  return (bytes + 15) & ~std::size_t(15);
}

// `value` rounded up to a multiple of `multiple` (> 0).
GPUFEC_HD constexpr int round_up(int value, int multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
GPUFEC_HD constexpr std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace gpufec
