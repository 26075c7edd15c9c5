// Gaussians of a Philox stream in bulk (gaussians(), random.hpp): one Philox block per lane of a
// vector of 64-bit lanes (each 32-bit word of the block in the low half of its lane, so the
// round's 32 x 32 -> 64 products are one MulEven each), the uniforms made as doubles there and
// rounded to float, two such vectors joined into one of floats, then box_muller.hpp on its lanes
// through Highway. Every operation is the scalar path's, in its order, so the values are
// gaussian_at's to the bit on every target (tests/common/test_philox.cpp checks each target the CPU
// has).
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

// box_muller's arithmetic policy on Highway vectors of floats.
template <class D>
struct simd_box_muller_ops {
  using V = hn::Vec<D>;
  D d;
  V set(float c) const { return hn::Set(d, c); }
  V add(V a, V b) const { return hn::Add(a, b); }
  V sub(V a, V b) const { return hn::Sub(a, b); }
  V mul(V a, V b) const { return hn::Mul(a, b); }
  V div(V a, V b) const { return hn::Div(a, b); }
  V sqrt(V a) const { return hn::Sqrt(a); }
  V floor(V a) const { return hn::Floor(a); }
  V neg(V a) const { return hn::Neg(a); }
  auto gt(V a, V b) const { return hn::Gt(a, b); }
  auto lt(V a, V b) const { return hn::Lt(a, b); }
  template <class M>
  M both(M a, M b) const {
    return hn::And(a, b);
  }
  template <class M>
  V select(M m, V a, V b) const {
    return hn::IfThenElse(m, a, b);
  }
  void split_exponent(V x, V& m, V& e) const {  // as scalar_box_muller_ops's
    const hn::RebindToUnsigned<D> du;
    const auto b = hn::BitCast(du, x);
    namespace k = box_muller_constants;
    m = hn::BitCast(d, hn::Or(hn::And(b, hn::Set(du, k::mantissa_bits)), hn::Set(du, k::one_bits)));
    e = hn::Sub(hn::BitCast(d, hn::Or(hn::ShiftRight<23>(b), hn::Set(du, k::two23_bits))),
                hn::Set(d, k::two23_plus_bias));
  }
};

// uniform_open01 (philox.hpp) on 64-bit lanes holding the words hi and lo: 52 bits below 2^52,
// made a double exactly (as the low bits of 2^52 + bits), plus a half, times 2^-52.
template <class DD, class VU>
hn::Vec<DD> uniform_open01_lanes(DD dd, VU hi, VU lo) {
  const hn::RebindToUnsigned<DD> du;
  const auto bits = hn::ShiftRight<12>(hn::Or(hn::ShiftLeft<32>(hi), lo));
  const auto value = hn::Sub(hn::BitCast(dd, hn::Or(bits, hn::Set(du, 0x4330000000000000ull))),
                             hn::Set(dd, 0x1p+52));
  return hn::Mul(hn::Add(value, hn::Set(dd, 0.5)), hn::Set(dd, 0x1p-52));
}

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

// Blocks [first, first + n) of the stream: out[2i], out[2i + 1] = gaussian_pair of block first + i.
void gaussian_pairs(const philox_stream& s, std::uint32_t first, std::size_t n, float* out) {
  std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> df;
  const hn::Repartition<std::uint64_t, decltype(df)> du;  // half as many lanes
  const hn::Rebind<double, decltype(du)> dd;
  const hn::Rebind<float, decltype(du)> dh;  // half of df
  const simd_box_muller_ops<decltype(df)> ops{df};
  const std::size_t W = hn::Lanes(du);  // blocks per Philox vector; 2 W per float vector
  const philox4x32_key key = s.key();
  const philox4x32_ctr ctr = s.counter(0);
  std::uint64_t k0[10], k1[10];
  for (int r = 0; r < 10; ++r) {
    k0[r] = static_cast<std::uint32_t>(key.v[0] + static_cast<std::uint32_t>(r) * philox_w0);
    k1[r] = static_cast<std::uint32_t>(key.v[1] + static_cast<std::uint32_t>(r) * philox_w1);
  }
  const auto lane = hn::Iota(du, 0);
  const auto low = hn::Set(du, 0xFFFFFFFFull);
  for (; i + 2 * W <= n; i += 2 * W) {
    hn::Vec<decltype(dh)> u[2][2];  // [half][u1, u2]
    for (std::size_t h = 0; h < 2; ++h) {
      auto c0 = hn::And(hn::Add(hn::Set(du, first + i + h * W), lane), low);  // mod 2^32
      auto c1 = hn::Set(du, ctr.v[1]), c2 = hn::Set(du, ctr.v[2]), c3 = hn::Set(du, ctr.v[3]);
      philox_lanes(du, c0, c1, c2, c3, k0, k1);
      u[h][0] = hn::DemoteTo(dh, uniform_open01_lanes(dd, c0, c1));
      u[h][1] = hn::DemoteTo(dh, uniform_open01_lanes(dd, c2, c3));
    }
    hn::Vec<decltype(df)> g0, g1;
    box_muller(ops, hn::Combine(df, u[1][0], u[0][0]), hn::Combine(df, u[1][1], u[0][1]), g0, g1);
    hn::StoreInterleaved2(g0, g1, df, out + 2 * i);
  }
#endif
  for (; i < n; ++i)
    gaussian_pair(s.block(static_cast<std::uint32_t>(first + i)), out[2 * i], out[2 * i + 1]);
}

}  // namespace gpufec::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpufec {
namespace detail {
HWY_EXPORT(gaussian_pairs);
}  // namespace detail

void gaussians(const philox_stream& s, std::uint64_t begin, std::uint64_t end, float* out) {
  if (begin >= end) return;
  detail::apply_simd_cap();
  float pair[2];
  if (begin & 1) {  // the second of a pair
    gaussian_pair(s.block(static_cast<std::uint32_t>(begin >> 1)), pair[0], pair[1]);
    *out++ = pair[1];
    ++begin;
  }
  const std::size_t pairs = static_cast<std::size_t>((end - begin) >> 1);
  HWY_DYNAMIC_DISPATCH(detail::gaussian_pairs)
  (s, static_cast<std::uint32_t>(begin >> 1), pairs, out);
  if ((end - begin) & 1) {  // the first of a pair
    gaussian_pair(s.block(static_cast<std::uint32_t>(end >> 1)), pair[0], pair[1]);
    out[2 * pairs] = pair[0];
  }
}
}  // namespace gpufec
#endif  // HWY_ONCE
