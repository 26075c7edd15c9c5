// Gaussians of a Philox stream in bulk (gaussians(), random.hpp): one Philox block per lane of a
// vector of 64-bit lanes (each 32-bit word of the block in the low half of its lane, so the
// round's 32 x 32 -> 64 products are one MulEven each), its words gathered into vectors of 32-bit
// lanes, then box_muller.hpp on them through Highway. Every operation is the scalar path's, in its
// order, fused multiply-adds included, so the values are gaussian_at's to the bit on every target
// with a native FMA (the others take the scalar path; tests/common/test_gaussian.cpp checks each
// target the CPU has).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "common/random_simd.cpp"
#include "common/simd_target.hpp"
#include "gpufec/common/box_muller.hpp"
#include "gpufec/common/random.hpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gpufec::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// box_muller's arithmetic policy on Highway vectors of floats and of their bits.
template <class D>
struct simd_box_muller_ops {
  using V = hn::Vec<D>;
  using DU = hn::RebindToUnsigned<D>;
  using U = hn::Vec<DU>;
  D d;
  DU du;
  V set(float c) const { return hn::Set(d, c); }
  U setu(std::uint32_t c) const { return hn::Set(du, c); }
  V add(V a, V b) const { return hn::Add(a, b); }
  V sub(V a, V b) const { return hn::Sub(a, b); }
  V mul(V a, V b) const { return hn::Mul(a, b); }
  V div(V a, V b) const { return hn::Div(a, b); }
  V sqrt(V a) const { return hn::Sqrt(a); }
  V fma(V a, V b, V c) const { return hn::MulAdd(a, b, c); }  // fused: HWY_NATIVE_FMA targets
  U bits(V a) const { return hn::BitCast(du, a); }
  V from_bits(U a) const { return hn::BitCast(d, a); }
  auto gt(V a, V b) const { return hn::Gt(a, b); }
  template <class M>
  V select(M m, V a, V b) const {
    return hn::IfThenElse(m, a, b);
  }
  U band(U a, U b) const { return hn::And(a, b); }
  U bor(U a, U b) const { return hn::Or(a, b); }
  U bxor(U a, U b) const { return hn::Xor(a, b); }
  U uadd(U a, U b) const { return hn::Add(a, b); }
  U usub(U a, U b) const { return hn::Sub(a, b); }
  template <int n>
  U shl(U a) const {
    return hn::ShiftLeft<n>(a);
  }
  template <int n>
  U shr(U a) const {
    return hn::ShiftRight<n>(a);
  }
};

// Philox4x32-10 on blocks c0 (the block indices) of the stream whose other counter words and
// round keys are given, one block per 64-bit lane; the four words come back in c0..c3.
template <class DU>
HWY_INLINE void philox_lanes(DU du, hn::Vec<DU>& c0, hn::Vec<DU>& c1, hn::Vec<DU>& c2,
                             hn::Vec<DU>& c3, const std::uint64_t (&k0)[10],
                             const std::uint64_t (&k1)[10]) {
  const hn::Repartition<std::uint32_t, DU> d32;
  const auto m0 = hn::BitCast(d32, hn::Set(du, philox_m0));
  const auto m1 = hn::BitCast(d32, hn::Set(du, philox_m1));
  const auto low = hn::Set(du, 0xFFFFFFFFull);
  for (int r = 0; r < 10; ++r) {  // philox4x32_10, lane by lane
    const auto p0 = hn::MulEven(m0, hn::BitCast(d32, c0));
    const auto p1 = hn::MulEven(m1, hn::BitCast(d32, c2));
    c0 = hn::Xor(hn::Xor(hn::ShiftRight<32>(p1), c1), hn::Set(du, k0[r]));
    c1 = hn::And(p1, low);
    c2 = hn::Xor(hn::Xor(hn::ShiftRight<32>(p0), c3), hn::Set(du, k1[r]));
    c3 = hn::And(p0, low);
  }
}

// Blocks [first, first + n) of the stream: out[4i .. 4i + 3] = gaussian_quad of block first + i.
// A vector of Philox blocks gives its words 0 and 2 as the a words of a float vector (the first
// pairs, then the second), its words 1 and 3 as the b words; the rare vector with a tail draw is
// done again by the scalar path, which reads the tail blocks.
void gaussian_quads(const philox_stream& s, std::uint32_t first, std::size_t n, float* out) {
  std::size_t i = 0;
// ARMv7's NEON divides and takes square roots by estimates and Newton steps (not correctly
// rounded): the scalar path there.
#if HWY_TARGET != HWY_SCALAR && HWY_NATIVE_FMA && !HWY_ARCH_ARM_V7
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> d32;
  const hn::Repartition<std::uint64_t, decltype(df)> du;  // half as many lanes
  const hn::Half<decltype(df)> dh;
  const simd_box_muller_ops<decltype(df)> ops{df, d32};
  const std::size_t W = hn::Lanes(du);  // blocks per vector
  const philox4x32_key key = s.key();
  const philox4x32_ctr ctr = s.counter(0);
  std::uint64_t k0[10], k1[10];
  for (int r = 0; r < 10; ++r) {
    k0[r] = static_cast<std::uint32_t>(key.v[0] + static_cast<std::uint32_t>(r) * philox_w0);
    k1[r] = static_cast<std::uint32_t>(key.v[1] + static_cast<std::uint32_t>(r) * philox_w1);
  }
  const auto lane = hn::Iota(du, 0);
  const auto low = hn::Set(du, 0xFFFFFFFFull);
  const auto zero = hn::Zero(d32);
  for (; i + W <= n; i += W) {
    auto c0 = hn::And(hn::Add(hn::Set(du, first + i), lane), low);  // mod 2^32
    auto c1 = hn::Set(du, ctr.v[1]), c2 = hn::Set(du, ctr.v[2]), c3 = hn::Set(du, ctr.v[3]);
    philox_lanes(du, c0, c1, c2, c3, k0, k1);
    const auto a = hn::ConcatEven(d32, hn::BitCast(d32, c2), hn::BitCast(d32, c0));
    const auto b = hn::ConcatEven(d32, hn::BitCast(d32, c3), hn::BitCast(d32, c1));
    hn::Vec<decltype(df)> g0, g1;
    box_muller_words(ops, a, b, binade_exponent(ops, a, b), g0, g1);
    hn::StoreInterleaved4(hn::LowerHalf(dh, g0), hn::LowerHalf(dh, g1), hn::UpperHalf(dh, g0),
                          hn::UpperHalf(dh, g1), dh, out + 4 * i);
    namespace k = box_muller_constants;  // is_tail_pair on the lanes
    const auto tail = hn::And(hn::Eq(hn::And(a, hn::Set(d32, k::z_high_bits)), zero),
                              hn::Eq(hn::And(b, hn::Set(d32, k::z_low_bits)), zero));
    if (HWY_UNLIKELY(!hn::AllFalse(d32, tail)))
      for (std::size_t j = i; j < i + W; ++j)
        gaussian_quad(s, static_cast<std::uint32_t>(first + j),
                      *reinterpret_cast<float(*)[4]>(out + 4 * j));
  }
#endif
  for (; i < n; ++i)
    gaussian_quad(s, static_cast<std::uint32_t>(first + i),
                  *reinterpret_cast<float(*)[4]>(out + 4 * i));
}

}  // namespace gpufec::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpufec {
namespace detail {
HWY_EXPORT(gaussian_quads);
}  // namespace detail

void gaussians(const philox_stream& s, std::uint64_t begin, std::uint64_t end, float* out) {
  if (begin >= end) return;
  detail::apply_simd_cap();
  float quad[4];
  if (begin & 3) {  // inside a block: its last draws
    gaussian_quad(s, static_cast<std::uint32_t>(begin >> 2), quad);
    for (std::uint64_t k = begin; k < end && (k & 3); ++k) *out++ = quad[k & 3];
    begin = std::min(end, (begin | 3) + 1);
  }
  const std::size_t blocks = static_cast<std::size_t>((end - begin) >> 2);
  HWY_DYNAMIC_DISPATCH(detail::gaussian_quads)
  (s, static_cast<std::uint32_t>(begin >> 2), blocks, out);
  if ((end - begin) & 3) {  // the first draws of a block
    gaussian_quad(s, static_cast<std::uint32_t>((end - 1) >> 2), quad);
    for (std::uint64_t k = 0; k < ((end - begin) & 3); ++k) out[4 * blocks + k] = quad[k];
  }
}
}  // namespace gpufec
#endif  // HWY_ONCE
