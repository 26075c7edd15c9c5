// Checks on received frames shared by every conv decoder, so each bad input gets the same
// message whichever decoder meets it.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>

#include "gpufec/common/error.hpp"
#include "gpufec/conv/encoder.hpp"

namespace gpufec::conv::detail {

// "a frame of 1000 information bits (zero-tail, 1006 stages, pattern 101,110) is 1342 LLRs; got
// 1341".
inline void require_frame_length(std::size_t got, const frame_shape& shape, termination term,
                                 const puncture_pattern& pattern, const char* what) {
  require(got == shape.coded_bits, "a frame of ", shape.info_bits, " information bits (",
          name_of(term), ", ", shape.stages, " stages, pattern ", pattern.to_string(), ") is ",
          shape.coded_bits, " ", what, "; got ", got);
}

inline void require_bits_room(std::size_t got, const frame_shape& shape) {
  require(got == shape.info_bits, "the output of a frame is ", shape.info_bits,
          " decided bits; room was given for ", got);
}

// The message for a non-finite LLR at `index`.
inline std::string not_finite_message(float value, std::size_t index) {
  return cat("LLR ", index, " is ", std::isnan(value) ? "NaN" : "infinite",
             ": LLRs must be finite numbers (positive means bit 0)");
}

// The automatic scale of a frame of n values whose |L| sum to sum_abs: its mean |L| -> 31.75
// (1 when every value is 0). constexpr, so that the device quantizer's kernel uses it too.
constexpr double auto_scale_of_sum(double sum_abs, std::size_t n) {
  return sum_abs <= 0 ? 1.0 : 31.75 / (sum_abs / static_cast<double>(n));
}

inline void require_finite(std::span<const float> llrs) {
  for (std::size_t i = 0; i < llrs.size(); ++i)
    if (!std::isfinite(llrs[i])) throw invalid_argument(not_finite_message(llrs[i], i));
}

}  // namespace gpufec::conv::detail
