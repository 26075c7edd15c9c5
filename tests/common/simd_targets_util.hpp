// Runs a test body once per Highway target this CPU supports (and the library was compiled for),
// by Highway's test mock, so the narrower targets (AVX2, SSE4, ...) are checked on a machine whose
// dispatch would pick AVX-512. GPUFEC_SIMD is applied first: a capped run tests the targets left.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/simd_target.hpp"
#include "hwy/targets.h"

namespace gpufec::testing {

// The supported targets, widest first (lowest bit first).
inline std::vector<std::int64_t> simd_targets_to_test() {
  detail::apply_simd_cap();
  std::vector<std::int64_t> out;
  for (std::int64_t left = hwy::SupportedTargets() & HWY_TARGETS; left != 0; left &= left - 1)
    out.push_back(left & -left);
  return out;
}

// Whether GPUFEC_SIMD leaves out some targets (then fewer are tested; scalar leaves no SIMD one).
inline bool simd_capped() {
  const char* cap = std::getenv(detail::simd_cap_variable);
  return cap && detail::simd_cap_disabled_targets(cap) != 0;
}

// Makes Highway dispatch to `target` until destruction, which restores the normal choice (also
// when the test body fails or throws).
class simd_target_override {
 public:
  explicit simd_target_override(std::int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~simd_target_override() { hwy::SetSupportedTargetsForTest(0); }
  simd_target_override(const simd_target_override&) = delete;
  simd_target_override& operator=(const simd_target_override&) = delete;
};

inline std::string simd_target_name(std::int64_t target) {
  return hwy::TargetName(target);
}

}  // namespace gpufec::testing
