// The library-wide cap on the SIMD instruction set (environment variable GPUFEC_SIMD), for
// measuring and testing the narrower Highway targets on a machine that has wider ones.
//
// GPUFEC_SIMD = auto (default, also when unset or empty) | avx3 | avx2 | sse4 | scalar, in any
// letter case. A cap disables every Highway target wider than the named one; Highway then
// dispatches to the best target left that the CPU has (a cap above what the CPU has changes
// nothing). scalar leaves no SIMD target: the conv fast decoder has no kernel there (the automatic
// choice takes the reference decoder), the polar fast paths run one lane. The caps name x86
// targets; on other architectures only scalar disables anything. Any other value is an
// invalid_argument naming the variable and the accepted values.
//
// The variable is read once per process, by the first call of apply_simd_cap(); every dispatching
// entry point of the library calls it before its first dispatch (conv: fast_kernel*.cpp; polar:
// fast_simd_target(), which every fast engine and the plan's choice call first).
#pragma once

#include <cstdint>
#include <string_view>

namespace gpufec::detail {

inline constexpr const char* simd_cap_variable = "GPUFEC_SIMD";

// The Highway target bits (hwy::DisableTargets' argument) the cap `value` disables: 0 for auto or
// an empty value. Throws invalid_argument for an unknown value.
std::int64_t simd_cap_disabled_targets(std::string_view value);

// Applies GPUFEC_SIMD (hwy::DisableTargets) on the first call; later calls cost one check. An
// unknown value throws on every call, so no dispatch runs uncapped.
void apply_simd_cap();

}  // namespace gpufec::detail
