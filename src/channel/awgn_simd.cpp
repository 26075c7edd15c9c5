// The chain's channel stage in bulk (channel::awgn_llrs): a chunk's Gaussians from gaussians()
// (random.hpp), then BPSK, the noise, the LLR and its float, int8 or hard form on every lane of a
// Highway vector of floats, each operation the scalar formula's (awgn.hpp) in its order, so the
// values are the same to the bit on every target with a native FMA; the others take the scalar
// formulas (tests/channel/test_channel.cpp).
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
// One chunk: n Gaussians g and the bits sent, into out (of `kind`); sigma, the LLR factor and the
// int8 scale as the float each is rounded to.
struct llr_chunk {
  const float* g;
  const std::uint8_t* bits;
  std::size_t n;
  float sigma, factor, scale;
  llr_kind kind;
  void* out;
};

// One position by the scalar formulas.
inline void llr_at(const llr_chunk& c, std::size_t i) {
  const float llr = llr_of(awgn_sample(c.bits[i], c.sigma, c.g[i]), c.factor);
  switch (c.kind) {
    case llr_kind::f32:
      static_cast<float*>(c.out)[i] = decoder_input<float>(llr, c.scale);
      return;
    case llr_kind::i8:
      static_cast<std::int8_t*>(c.out)[i] = decoder_input<std::int8_t>(llr, c.scale);
      return;
    case llr_kind::hard:
      static_cast<std::uint8_t*>(c.out)[i] = decoder_input<std::uint8_t>(llr, c.scale);
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
  std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR && HWY_NATIVE_FMA
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<std::uint8_t, decltype(df)> du8;
  const hn::Rebind<std::int8_t, decltype(df)> di8;
  const std::size_t W = hn::Lanes(df);
  const auto sigma = hn::Set(df, c.sigma), factor = hn::Set(df, c.factor);
  const auto one = hn::Set(df, 1.0f);
  const auto zero = hn::Zero(di);
  for (; i + W <= c.n; i += W) {
    const auto sent = hn::Ne(hn::PromoteTo(di, hn::LoadU(du8, c.bits + i)), zero);
    const auto x = hn::IfThenElse(hn::RebindMask(df, sent), hn::Neg(one), one);  // bpsk_symbol
    const auto y = hn::MulAdd(sigma, hn::LoadU(df, c.g + i), x);                 // awgn_sample
    const auto llr = hn::Mul(y, factor);                                         // llr_of
    if constexpr (Kind == llr_kind::f32) {
      hn::StoreU(llr, df, static_cast<float*>(c.out) + i);
    } else if constexpr (Kind == llr_kind::i8) {  // llr_to_int8: nearest, ties to even
      const auto limit = hn::Set(df, 127.0f);
      const auto q =
          hn::Min(hn::Max(hn::Round(hn::Mul(llr, hn::Set(df, c.scale))), hn::Neg(limit)), limit);
      hn::StoreU(hn::DemoteTo(di8, hn::ConvertTo(di, q)), di8,
                 static_cast<std::int8_t*>(c.out) + i);
    } else {  // hard_decision (a -0.0f decides 0)
      const auto negative = hn::Lt(llr, hn::Zero(df));
      hn::StoreU(
          hn::DemoteTo(du8, hn::IfThenElseZero(hn::RebindMask(di, negative), hn::Set(di, 1))), du8,
          static_cast<std::uint8_t*>(c.out) + i);
    }
  }
#endif
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
  const auto scale = static_cast<float>(kind == llr_kind::i8 ? int8_llr_scale(sigma) : 0.0);
  const std::size_t bytes = llr_bytes(kind);
  // Chunks small enough for their Gaussians to stay in the L1 cache between the two passes.
  constexpr std::size_t kChunk = 1024;
  float g[kChunk];
  for (std::uint64_t at = begin; at < end;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, end - at));
    gaussians(noise, at, at + n, g);
    const std::size_t offset = static_cast<std::size_t>(at - begin);
    HWY_DYNAMIC_DISPATCH(detail::llrs)
    (detail::llr_chunk{g, bits + offset, n, static_cast<float>(sigma), llr_factor(sigma), scale,
                       kind, static_cast<unsigned char*>(out) + offset * bytes});
    at += n;
  }
}
}  // namespace gpufec::channel
#endif  // HWY_ONCE
