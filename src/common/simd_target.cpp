#include "common/simd_target.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

#include "gpufec/common/error.hpp"
#include "hwy/targets.h"

namespace gpufec::detail {

namespace {

// Every target bit but the two portable ones (HWY_EMU128, HWY_SCALAR): all SIMD instruction sets.
constexpr std::int64_t all_simd_targets = ~(HWY_EMU128 | HWY_SCALAR) & INT64_MAX;
// Highway numbers x86 targets from the widest (low bits) to the narrowest, within bits
// 0..HWY_HIGHEST_TARGET_BIT_X86; a cap at target t disables the x86 bits below t's.
constexpr std::int64_t wider_x86_than(std::int64_t target) {
  return target - 1;
}
static_assert(HWY_AVX3 < HWY_AVX2 && HWY_AVX2 < HWY_SSE4 && HWY_SSE4 < HWY_SSSE3 &&
              HWY_SSSE3 < (1LL << (HWY_HIGHEST_TARGET_BIT_X86 + 1)));

}  // namespace

std::int64_t simd_cap_disabled_targets(std::string_view value) {
  std::string lower(value);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.empty() || lower == "auto") return 0;
  if (lower == "avx3") return wider_x86_than(HWY_AVX3);  // also AVX3_DL and later
  if (lower == "avx2") return wider_x86_than(HWY_AVX2);
  if (lower == "sse4") return wider_x86_than(HWY_SSE4);
  if (lower == "scalar") return all_simd_targets;
  throw invalid_argument(cat(simd_cap_variable, " = \"", value,
                             "\" is not a SIMD cap: use auto, avx3, avx2, sse4 or scalar"));
}

void apply_simd_cap() {
  static const bool applied = [] {
    const char* value = std::getenv(simd_cap_variable);
    const std::int64_t disabled = simd_cap_disabled_targets(value ? value : "");
    if (disabled != 0) hwy::DisableTargets(disabled);
    return true;
  }();
  (void)applied;
}

}  // namespace gpufec::detail
