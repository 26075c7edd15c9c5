// What a decoder is fed, in every family and in the simulator's chain: float LLRs, int8 LLRs, or
// hard decisions (0/1). LLRs are positive for bit 0.
#pragma once

#include <array>
#include <cstddef>

#include "gpufec/common/enum_names.hpp"

namespace gpufec {

enum class llr_kind { f32, i8, hard };

// Bytes of one decoder input of `kind`.
constexpr std::size_t llr_bytes(llr_kind kind) {
  return kind == llr_kind::f32 ? sizeof(float) : 1;
}

}  // namespace gpufec

template <>
struct gpufec::enum_names<gpufec::llr_kind> {
  static constexpr std::array entries{
      enum_entry{llr_kind::f32, "float"},
      enum_entry{llr_kind::i8, "int8"},
      enum_entry{llr_kind::hard, "hard"},
  };
};
