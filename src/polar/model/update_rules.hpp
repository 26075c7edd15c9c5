// The arithmetic of every polar decoder, scalar fp32, in the one order that the SIMD paths and the
// CUDA decoder repeat operation for operation. Compiled with -ffp-contract=off (no FMA
// contraction), every step below is one IEEE-754 operation, so min-sum and scaled min-sum give the
// same bits on every path; the sum-product rules call exp/log1p (or exp/log at the LLR <-> LR
// borders), whose last bits differ between libm, Highway and CUDA, so those paths agree in
// decisions away from ties and in soft values to a few ulps per operation.
//
// A BP "rule" is a message algebra: `check` is the check-node combination f, `variable` the
// variable-node combination (a sum of LLRs, a product of LRs), `saturate` the bound applied to
// every message a butterfly writes, `frozen` the message a frozen u carries into the graph,
// `unknown` the message that carries nothing.
//
// Signs: sign(a) is the IEEE sign bit (so -0.0 counts as negative inside f, as a SIMD XOR of sign
// bits does); a hard decision is 1 exactly when the LLR is < 0 (so -0.0 decides 0, as
// channel::hard_decision does) or, for an LR, when it is < 1.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gpufec::polar::detail {

// Channel LLRs are clamped to this magnitude on entry. It never binds in practice (AWGN LLRs are
// below 1e4) and keeps every SC and min-sum message finite: a message is a sum of at most
// N log2 N <= 2^25 clamped terms, 2^125 < FLT_MAX = 2^128.
inline constexpr float llr_input_bound = 0x1p100f;
// Sum-product BP bound: LR messages stay in [2^-40, 2^40], LLR messages in [-40 ln 2, 40 ln 2].
// Why 40: the LR update forms R1 (R2 L2) of three messages, <= 2^120 < 2^128 and >= 2^-120 above
// the smallest normal 2^-126, so the seed's formulas never overflow, underflow or divide by zero.
inline constexpr float lr_bound = 0x1p40f;
inline constexpr float lr_floor = 0x1p-40f;
inline constexpr float sp_llr_bound = 27.7258872223978123766892848583f;  // 40 ln 2

inline std::uint32_t bits_of(float v) {
  return std::bit_cast<std::uint32_t>(v);
}
inline float with_sign_of(float magnitude, std::uint32_t sign_bit) {
  return std::bit_cast<float>(bits_of(magnitude) ^ sign_bit);
}
inline std::uint32_t product_sign(float a, float b) {
  return (bits_of(a) ^ bits_of(b)) & 0x80000000u;
}

// f(a, b) = (scale * min(|a|, |b|)) with sign(a) sign(b). scale = 1 is plain min-sum (the multiply
// by 1.0f is exact).
inline float f_min_sum(float a, float b, float scale) {
  const float magnitude = scale * std::min(std::fabs(a), std::fabs(b));
  return with_sign_of(magnitude, product_sign(a, b));
}

// f(a, b) = 2 atanh(tanh(a/2) tanh(b/2)). With x = |a|, y = |b|:
//   |f| = min(x, y) + log(1 + e^-(x+y)) - log(1 + e^-|x-y|) >= 0,
// because (1 + e^(x+y)) / (e^x + e^y) = e^min (1 + e^-(x+y)) / (1 + e^-|x-y|). The order:
// ((min + log1p(exp(-(x + y)))) - log1p(exp(-|x - y|))), then max(., 0) (rounding can leave -1 ulp
// where the true value is 0). Finite inputs give finite outputs: exp of a negative argument
// underflows to 0 at worst.
inline float f_sum_product(float a, float b) {
  const float x = std::fabs(a), y = std::fabs(b);
  const float near = std::log1p(std::exp(-(x + y)));
  const float far = std::log1p(std::exp(-std::fabs(x - y)));
  const float magnitude = std::max((std::min(x, y) + near) - far, 0.0f);
  return with_sign_of(magnitude, product_sign(a, b));
}

inline bool hard_llr(float llr) {
  return llr < 0.0f;
}
inline float clamp_input(float llr) {
  return std::clamp(llr, -llr_input_bound, llr_input_bound);
}

// Min-sum and scaled min-sum: no bound needed (see llr_input_bound); a frozen bit is known to be 0,
// LLR +inf, and f(+inf, v) = scale |v| sign(v), +inf + finite = +inf: no inf - inf can arise
// because every R message is finite or +inf (docs/polar.md).
struct min_sum_rule {
  float scale = 1.0f;
  float check(float a, float b) const { return f_min_sum(a, b, scale); }
  static float variable(float a, float b) { return a + b; }
  static float saturate(float v) { return v; }
  static float from_llr(float llr) { return clamp_input(llr); }
  static float to_llr(float v) { return v; }
  static bool hard(float v) { return hard_llr(v); }
  static constexpr float frozen = std::numeric_limits<float>::infinity();
  static constexpr float unknown = 0.0f;
};

// LLR sum-product, saturated like the LR rule so that the two compute the same function.
struct sum_product_rule {
  static float check(float a, float b) { return f_sum_product(a, b); }
  static float variable(float a, float b) { return a + b; }
  static float saturate(float v) { return std::clamp(v, -sp_llr_bound, sp_llr_bound); }
  static float from_llr(float llr) { return saturate(llr); }
  static float to_llr(float v) { return v; }
  static bool hard(float v) { return hard_llr(v); }
  static constexpr float frozen = sp_llr_bound;
  static constexpr float unknown = 0.0f;
};

// The seed's likelihood ratios lambda = P(0)/P(1) = e^LLR. Its slide-16 updates are
//   LL1 = (1 + L1 L2 R2) / (L1 + L2 R2),   LL2 = L2 (1 + L1 R1) / (L1 + R1)
// (and RR1, RR2 with L and R exchanged): check(a, b) = (1 + a b) / (a + b) is f in the LR domain,
// variable(a, b) = a b is the LLR sum. Each evaluated as written: t = a * b first where a product
// feeds a check, then (1 + L1 * t) / (L1 + t).
struct lr_sum_product_rule {
  static float check(float a, float b) { return (1.0f + a * b) / (a + b); }
  static float variable(float a, float b) { return a * b; }
  static float saturate(float v) { return std::clamp(v, lr_floor, lr_bound); }
  static float from_llr(float llr) { return saturate(std::exp(sum_product_rule::saturate(llr))); }
  static float to_llr(float v) { return std::log(v); }
  static bool hard(float v) { return v < 1.0f; }
  static constexpr float frozen = lr_bound;
  static constexpr float unknown = 1.0f;
};

}  // namespace gpufec::polar::detail
