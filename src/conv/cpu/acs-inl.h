// Helpers shared by the fast decoder's two ACS kernels (fast_kernel.cpp: one frame at a time;
// fast_kernel_two.cpp: two frames per vector): the per-stage branch-metric table, the byte-shuffle
// lookup and one vector of butterflies. Highway's per-target header: each kernel file includes it
// once per SIMD target (the include guard flips with HWY_TARGET_TOGGLE).
#if defined(GPUFEC_CONV_ACS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GPUFEC_CONV_ACS_INL_H_
#undef GPUFEC_CONV_ACS_INL_H_
#else
#define GPUFEC_CONV_ACS_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gpufec::conv::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
// The stage's table in every 64-bit (4 entries) or 128-bit (8 entries) unit of a vector, so the
// byte shuffle (which works within 128-bit blocks) finds it from every lane.
template <std::size_t kEntries, class D>
HWY_INLINE auto load_table(D d, const std::int16_t* table) {
  if constexpr (kEntries == 4) {
    std::uint64_t word;
    std::memcpy(&word, table, sizeof word);
    if constexpr (hn::MaxLanes(d) < 8)  // narrower than a block: look up from a full one
      return hn::Set(hn::Full128<std::uint64_t>(), word);
    else
      return hn::BitCast(d, hn::Set(hn::Repartition<std::uint64_t, D>(), word));
  } else if constexpr (hn::MaxLanes(d) <= 8) {
    (void)d;
    return hn::LoadU(hn::Full128<std::int16_t>(), table);
  } else {
    return hn::LoadDup128(d, table);
  }
}

// Lane i of the result is the int16 table entry whose two byte indices lane i of `byte_index`
// holds.
template <class D, class T>
HWY_INLINE hn::Vec<D> lookup(D d, T table, hn::Vec<D> byte_index) {
  const hn::Repartition<std::uint8_t, D> d8;
  return hn::BitCast(d, hn::TableLookupBytes(table, hn::BitCast(d8, byte_index)));
}

// One vector of butterflies: lane p of `a` and `b` holds states x and x + S/2, which lead to 2x
// (returned in `lo`) and 2x + 1 (`hi`). The result's byte mask holds lane p's two decisions in
// bytes 2p (lo) and 2p + 1 (hi): 1 when the predecessor x + S/2 was strictly better.
template <bool kSymmetric, class D, class T>
HWY_INLINE hn::Mask<hn::Repartition<std::uint8_t, D>> butterflies(
    D d, const T& table, const hn::Vec<D>* index, const hn::Vec<D>* sign, std::size_t vectors,
    std::size_t v, hn::Vec<D> a, hn::Vec<D> b, hn::Vec<D>& lo, hn::Vec<D>& hi) {
  using V = hn::Vec<D>;
  const hn::Repartition<std::uint8_t, D> d8;
  V a0, b0, a1, b1;
  if constexpr (kSymmetric) {
    (void)sign;
    (void)vectors;
    const V m = lookup(d, table, index[v]);
    a0 = hn::Add(a, m);
    b0 = hn::Sub(b, m);
    a1 = hn::Sub(a, m);
    b1 = hn::Add(b, m);
  } else {
    V delta[4];
    for (std::size_t k = 0; k < 4; ++k) {
      const V s = sign[k * vectors + v];
      delta[k] = hn::Sub(hn::Xor(lookup(d, table, index[k * vectors + v]), s), s);
    }
    a0 = hn::Add(a, delta[0]);
    b0 = hn::Add(b, delta[1]);
    a1 = hn::Add(a, delta[2]);
    b1 = hn::Add(b, delta[3]);
  }
  lo = hn::Max(a0, b0);
  hi = hn::Max(a1, b1);
  const auto decided_lo = hn::BitCast(d8, hn::VecFromMask(d, hn::Lt(a0, b0)));
  const auto decided_hi = hn::BitCast(d8, hn::VecFromMask(d, hn::Lt(a1, b1)));
  return hn::MaskFromVec(hn::OddEven(decided_hi, decided_lo));
}

#endif  // HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE

}  // namespace HWY_NAMESPACE
}  // namespace gpufec::conv::detail
HWY_AFTER_NAMESPACE();

#endif  // GPUFEC_CONV_ACS_INL_H_
