// The update rules of update_rules.hpp on Highway vectors, one codeword per lane, compiled once
// per SIMD target (Highway's -inl convention: included from a file that foreach_target.h
// re-includes, guarded per target by HWY_TARGET_TOGGLE).
//
// Each vector rule performs the scalar rule's operations in the scalar rule's order, lane by lane:
// abs, min, max, add, mul and div are IEEE-754 on every Highway target, and a sign is applied by
// XOR of sign bits as the scalar code does. So min-sum, scaled min-sum and the LR rule give the
// scalar reference's bits exactly. The sum-product check uses Highway's Exp and Log1p (max error
// 1 and 2 ulp) where the reference calls libm: the one place the fast paths can differ, by ulps.
#if defined(GPUFEC_POLAR_SIMD_RULES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GPUFEC_POLAR_SIMD_RULES_INL_H_
#undef GPUFEC_POLAR_SIMD_RULES_INL_H_
#else
#define GPUFEC_POLAR_SIMD_RULES_INL_H_
#endif

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "polar/model/update_rules.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpufec::polar::detail::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
using float_tag = hn::ScalableTag<float>;
using float_vec = hn::Vec<float_tag>;

// (a XOR b) restricted to the sign bit.
HWY_INLINE float_vec product_sign(float_tag d, float_vec a, float_vec b) {
  return hn::And(hn::Xor(a, b), hn::SignBit(d));
}

struct simd_min_sum {
  float_vec scale;
  explicit simd_min_sum(float s) : scale(hn::Set(float_tag(), s)) {}
  HWY_INLINE float_vec check(float_vec a, float_vec b) const {
    const float_tag d;
    const float_vec magnitude = hn::Mul(scale, hn::Min(hn::Abs(a), hn::Abs(b)));
    return hn::Xor(magnitude, product_sign(d, a, b));
  }
  HWY_INLINE float_vec variable(float_vec a, float_vec b) const { return hn::Add(a, b); }
  HWY_INLINE float_vec saturate(float_vec v) const { return v; }
  HWY_INLINE hn::Mask<float_tag> hard(float_vec v) const {
    return hn::Lt(v, hn::Zero(float_tag()));
  }
  using scalar = min_sum_rule;
};

struct simd_sum_product {
  explicit simd_sum_product(float) {}
  HWY_INLINE float_vec check(float_vec a, float_vec b) const {
    const float_tag d;
    const float_vec x = hn::Abs(a), y = hn::Abs(b);
    const float_vec near = hn::Log1p(d, hn::Exp(d, hn::Neg(hn::Add(x, y))));
    const float_vec far = hn::Log1p(d, hn::Exp(d, hn::Neg(hn::Abs(hn::Sub(x, y)))));
    const float_vec magnitude = hn::Max(hn::Sub(hn::Add(hn::Min(x, y), near), far), hn::Zero(d));
    return hn::Xor(magnitude, product_sign(d, a, b));
  }
  HWY_INLINE float_vec variable(float_vec a, float_vec b) const { return hn::Add(a, b); }
  HWY_INLINE float_vec saturate(float_vec v) const {
    const float_tag d;
    return hn::Min(hn::Max(v, hn::Set(d, -sp_llr_bound)), hn::Set(d, sp_llr_bound));
  }
  HWY_INLINE hn::Mask<float_tag> hard(float_vec v) const {
    return hn::Lt(v, hn::Zero(float_tag()));
  }
  using scalar = sum_product_rule;
};

struct simd_lr_sum_product {
  explicit simd_lr_sum_product(float) {}
  HWY_INLINE float_vec check(float_vec a, float_vec b) const {
    const float_tag d;
    return hn::Div(hn::Add(hn::Set(d, 1.0f), hn::Mul(a, b)), hn::Add(a, b));
  }
  HWY_INLINE float_vec variable(float_vec a, float_vec b) const { return hn::Mul(a, b); }
  HWY_INLINE float_vec saturate(float_vec v) const {
    const float_tag d;
    return hn::Min(hn::Max(v, hn::Set(d, lr_floor)), hn::Set(d, lr_bound));
  }
  HWY_INLINE hn::Mask<float_tag> hard(float_vec v) const {
    return hn::Lt(v, hn::Set(float_tag(), 1.0f));
  }
  using scalar = lr_sum_product_rule;
};

// A hard decision as a float whose only possible set bit is the sign bit: XOR-able partial sums.
HWY_INLINE float_vec decision_bits(float_tag d, hn::Mask<float_tag> ones) {
  return hn::And(hn::VecFromMask(d, ones), hn::SignBit(d));
}

}  // namespace gpufec::polar::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // GPUFEC_POLAR_SIMD_RULES_INL_H_
