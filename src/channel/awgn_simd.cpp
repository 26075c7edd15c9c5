// The chain's channel stage in bulk (channel::awgn_llrs): a chunk's Gaussians from gaussians()
// (random.hpp), then BPSK, the noise, the LLR and its float, int8 or hard form on every lane of a
// Highway vector of doubles, each operation the scalar formula's (awgn.hpp) in its order, so the
// values are the same to the bit on every target (tests/channel/test_channel.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "channel/awgn_simd.cpp"
#include "common/simd_target.hpp"
#include "gpufec/channel/awgn.hpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#ifndef GPUFEC_CHANNEL_AWGN_SIMD_TYPES
#define GPUFEC_CHANNEL_AWGN_SIMD_TYPES
namespace gpufec::channel::detail {
// One chunk: n Gaussians g and the bits sent, into out (of `kind`).
struct llr_chunk {
  const float* g;
  const std::uint8_t* bits;
  std::size_t n;
  double sigma, scale;
  llr_kind kind;
  void* out;
};

// One position by the scalar formulas.
inline void llr_at(const llr_chunk& c, std::size_t i) {
  const double llr = llr_from_sample(awgn_sample(c.bits[i], c.sigma, c.g[i]), c.sigma);
  switch (c.kind) {
    case llr_kind::f32:
      static_cast<float*>(c.out)[i] = static_cast<float>(llr);
      return;
    case llr_kind::i8:
      static_cast<std::int8_t*>(c.out)[i] = llr_to_int8(llr, c.scale);
      return;
    case llr_kind::hard:
      static_cast<std::uint8_t*>(c.out)[i] = hard_decision(static_cast<float>(llr));
      return;
  }
}
}  // namespace gpufec::channel::detail
#endif

HWY_BEFORE_NAMESPACE();
namespace gpufec::channel::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <llr_kind Kind>
void llr_lanes(const llr_chunk& c) {
  const hn::ScalableTag<double> d;
  const hn::Rebind<std::int32_t, decltype(d)> di;
  const hn::Rebind<std::uint8_t, decltype(d)> du8;
  const hn::Rebind<std::int8_t, decltype(d)> di8;
  const hn::Rebind<float, decltype(d)> df;  // also the Gaussians' tag
  const std::size_t W = hn::Lanes(d);
  const auto sigma = hn::Set(d, c.sigma), factor = hn::Set(d, llr_factor(c.sigma));
  const auto zero = hn::Zero(d), one = hn::Set(d, 1.0);
  std::size_t i = 0;
  for (; i + W <= c.n; i += W) {
    const auto bit = hn::PromoteTo(d, hn::PromoteTo(di, hn::LoadU(du8, c.bits + i)));
    const auto x = hn::IfThenElse(hn::Gt(bit, zero), hn::Neg(one), one);  // bpsk_symbol
    const auto y =
        hn::Add(x, hn::Mul(sigma, hn::PromoteTo(d, hn::LoadU(df, c.g + i))));  // awgn_sample
    const auto llr = hn::Mul(y, factor);                                       // llr_from_sample
    if constexpr (Kind == llr_kind::f32) {
      hn::StoreU(hn::DemoteTo(df, llr), df, static_cast<float*>(c.out) + i);
    } else if constexpr (Kind == llr_kind::i8) {  // llr_to_int8: nearest, ties to even
      const auto limit = hn::Set(d, 127.0);
      const auto q =
          hn::Min(hn::Max(hn::Round(hn::Mul(llr, hn::Set(d, c.scale))), hn::Neg(limit)), limit);
      hn::StoreU(hn::DemoteTo(di8, hn::DemoteTo(di, q)), di8, static_cast<std::int8_t*>(c.out) + i);
    } else {  // hard_decision on the float LLR (a double that rounds to -0.0f decides 0)
      const auto negative = hn::Lt(hn::PromoteTo(d, hn::DemoteTo(df, llr)), zero);
      hn::StoreU(hn::DemoteTo(du8, hn::DemoteTo(di, hn::IfThenElseZero(negative, one))), du8,
                 static_cast<std::uint8_t*>(c.out) + i);
    }
  }
  for (; i < c.n; ++i) llr_at(c, i);
}

void llrs(const llr_chunk& c) {
  switch (c.kind) {
    case llr_kind::f32:
      return llr_lanes<llr_kind::f32>(c);
    case llr_kind::i8:
      return llr_lanes<llr_kind::i8>(c);
    case llr_kind::hard:
      return llr_lanes<llr_kind::hard>(c);
  }
}

}  // namespace gpufec::channel::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpufec::channel {
namespace detail {
HWY_EXPORT(llrs);
}  // namespace detail

void awgn_llrs(std::uint64_t seed, std::uint64_t frame, std::uint64_t begin, std::uint64_t end,
               const std::uint8_t* bits, double sigma, llr_kind kind, void* out) {
  if (begin >= end) return;
  gpufec::detail::apply_simd_cap();
  const philox_stream noise(seed, rng_channel, frame);
  const double scale = kind == llr_kind::i8 ? int8_llr_scale(sigma) : 0.0;
  const std::size_t bytes = llr_bytes(kind);
  // Chunks small enough for their Gaussians to stay in the L1 cache between the two passes.
  constexpr std::size_t kChunk = 1024;
  float g[kChunk];
  for (std::uint64_t at = begin; at < end;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, end - at));
    gaussians(noise, at, at + n, g);
    const std::size_t offset = static_cast<std::size_t>(at - begin);
    HWY_DYNAMIC_DISPATCH(detail::llrs)
    (detail::llr_chunk{g, bits + offset, n, sigma, scale, kind,
                       static_cast<unsigned char*>(out) + offset * bytes});
    at += n;
  }
}
}  // namespace gpufec::channel
#endif  // HWY_ONCE
