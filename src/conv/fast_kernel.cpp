// The fast decoder's SIMD kernels, written once with Google Highway and compiled for every x86
// target it knows (AVX-512, AVX2, SSE4, SSSE3, portable 128-bit emulation); HWY_DYNAMIC_DISPATCH
// picks the best the CPU has at run time.
//
// Add-compare-select (ACS) over all 2^(K-1) states of a stage, int16 path metrics.
//
// Butterflies. In gpufec's state numbering (conv/code.hpp) old states x and x + S/2 (they differ
// in the oldest register bit) both lead to new states 2x (register bit w = 0) and 2x + 1 (w = 1).
// The metrics of states 0..S-1 are 2V vectors of L lanes in natural order, so vector v < V
// ("A") and vector V + v ("B") hold states x and x + S/2 in the same lane: one vector operation
// does L butterflies and yields `lo` (new state 2x) and `hi` (2x + 1) per lane. Storing them back
// in natural order is an interleave: new vectors 2v and 2v + 1 are lo and hi interleaved lane by
// lane. InterleaveLower/Upper do that within each 128-bit block, which for a vector of one block
// is the whole interleave; vectors of two blocks (L = 16, the widest the kernel uses, also on
// AVX-512) then swap the middle blocks with ConcatLowerLower/ConcatUpperUpper. (Keeping the
// block-interleaved order instead would pin the block bit of every position: states would never
// reach some positions, so the cross-block step is needed.)
//
// Survivors. Lane p's two decisions (1: the predecessor x + S/2 won) become bits 2p (lo) and
// 2p + 1 (hi) of the stage's row, by one byte blend (OddEven of the two byte masks) and one
// movemask: the decision of new state j is bit j of the row, in natural order, so the traceback
// needs no table: predecessor = (j >> 1) + d S/2.
//
// Branch metrics (the paper's Eq. 8-9). The metric of a branch with output label o is
// delta(o) = sum_b (1 - 2 o_b) L_b, and delta(~o) = -delta(o). When every polynomial taps both
// its current and its oldest input (symmetric butterflies), the four branches of a butterfly carry
// labels o, ~o, ~o, o, so one metric m per butterfly serves all four: lo = max(A + m, B - m),
// hi = max(A - m, B + m). Each stage has a 16-byte table of delta over all 2^beta labels (beta <=
// 3), and m is read by a byte shuffle with per-lane byte indices fixed for the whole frame. General
// codes use four shuffles from the half table (2^(beta-1) labels with the last bit 0) and per-lane
// signs. Decisions compare strictly, so a tie keeps the predecessor whose oldest bit is 0: the
// reference decoder's rule.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conv/fast_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format off
#include "hwy/highway.h"
// clang-format on

#include <cmath>
#include <stdexcept>

#include "conv/fast_kernel.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpufec::conv::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Arrays of vectors need sized vector types, and the layout needs at least 2 lanes.
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE

// Vectors for 2^log_b butterflies: all of them in one vector, up to 16 lanes (two blocks; wider
// vectors would need a cross-block interleave Highway 1.0 lacks, and K = 7 fills 16 lanes).
template <int kLogButterflies>
using acs_tag = hn::CappedTag<std::int16_t, (kLogButterflies <= 4 ? (1 << kLogButterflies) : 16)>;

// The stage's 8-entry table, in every 128-bit block of a vector (or one block for narrow ones).
template <class D>
HWY_INLINE auto load_table(D d, const std::int16_t* table) {
  if constexpr (hn::MaxLanes(d) <= 8) {
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

template <int kLogButterflies, bool kSymmetric>
void acs_stages(const acs_call& c) {
  const acs_tag<kLogButterflies> d;
  const hn::Repartition<std::uint8_t, decltype(d)> d8;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t kLanes = hn::MaxLanes(d);
  constexpr std::size_t kButterflies = std::size_t{1} << kLogButterflies;
  constexpr std::size_t kVectors = kButterflies / kLanes;
  static_assert(kVectors == 1 || kLanes >= 4, "survivor rows need whole bytes per vector");
  constexpr std::size_t kRowBytesPerVector = 2 * kLanes / 8;
  constexpr std::size_t kKinds = kSymmetric ? 1 : 4;

  V metric[2 * kVectors];
  for (std::size_t i = 0; i < 2 * kVectors; ++i)
    metric[i] = hn::LoadU(d, c.path_metric + i * kLanes);
  V index[kKinds * kVectors];
  V sign[kKinds * kVectors];
  for (std::size_t k = 0; k < kKinds; ++k)
    for (std::size_t v = 0; v < kVectors; ++v) {
      index[k * kVectors + v] = hn::LoadU(d, c.lane_index + k * kButterflies + v * kLanes);
      sign[k * kVectors + v] =
          kSymmetric ? hn::Zero(d) : hn::LoadU(d, c.lane_sign + k * kButterflies + v * kLanes);
    }

  const auto renormalize = [&] {
    const V reference = hn::Set(d, hn::GetLane(metric[0]));
    for (std::size_t i = 0; i < 2 * kVectors; ++i) metric[i] = hn::Sub(metric[i], reference);
  };

  for (std::size_t t = 0; t < c.stages; ++t) {
    const auto table = load_table(d, c.branch_table + 8 * t);
    std::uint8_t* row = c.survivor_rows + t * c.row_bytes;
    V next[2 * kVectors];
    for (std::size_t v = 0; v < kVectors; ++v) {
      const V a = metric[v], b = metric[kVectors + v];
      V a0, b0, a1, b1;
      if constexpr (kSymmetric) {
        const V m = lookup(d, table, index[v]);
        a0 = hn::Add(a, m);
        b0 = hn::Sub(b, m);
        a1 = hn::Sub(a, m);
        b1 = hn::Add(b, m);
      } else {
        V delta[4];
        for (std::size_t k = 0; k < 4; ++k) {
          const V s = sign[k * kVectors + v];
          delta[k] = hn::Sub(hn::Xor(lookup(d, table, index[k * kVectors + v]), s), s);
        }
        a0 = hn::Add(a, delta[0]);
        b0 = hn::Add(b, delta[1]);
        a1 = hn::Add(a, delta[2]);
        b1 = hn::Add(b, delta[3]);
      }
      const V lo = hn::Max(a0, b0), hi = hn::Max(a1, b1);
      const auto decided_lo = hn::BitCast(d8, hn::VecFromMask(d, hn::Lt(a0, b0)));
      const auto decided_hi = hn::BitCast(d8, hn::VecFromMask(d, hn::Lt(a1, b1)));
      hn::StoreMaskBits(d8, hn::MaskFromVec(hn::OddEven(decided_hi, decided_lo)),
                        row + v * kRowBytesPerVector);
      const V lower = hn::InterleaveLower(d, lo, hi), upper = hn::InterleaveUpper(d, lo, hi);
      if constexpr (kLanes <= 8) {
        next[2 * v] = lower;
        next[2 * v + 1] = upper;
      } else {
        static_assert(kLanes == 16, "the cross-block step handles two blocks");
        next[2 * v] = hn::ConcatLowerLower(d, upper, lower);
        next[2 * v + 1] = hn::ConcatUpperUpper(d, upper, lower);
      }
    }
    for (std::size_t i = 0; i < 2 * kVectors; ++i) metric[i] = next[i];
    if (t % renormalize_every == renormalize_every - 1) renormalize();
  }
  renormalize();
  for (std::size_t i = 0; i < 2 * kVectors; ++i)
    hn::StoreU(metric[i], d, c.path_metric + i * kLanes);
}

template <bool kSymmetric>
void acs_for_K(const acs_call& c) {
  switch (c.K) {
    case 3:
      return acs_stages<1, kSymmetric>(c);
    case 4:
      return acs_stages<2, kSymmetric>(c);
    case 5:
      return acs_stages<3, kSymmetric>(c);
    case 6:
      return acs_stages<4, kSymmetric>(c);
    case 7:
      return acs_stages<5, kSymmetric>(c);
    case 8:
      return acs_stages<6, kSymmetric>(c);
    case 9:
      return acs_stages<7, kSymmetric>(c);
  }
}

template <int kLogButterflies>
int lanes_for() {
  return static_cast<int>(hn::MaxLanes(acs_tag<kLogButterflies>()));
}
#endif  // HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE

simd_shape AcsShape(int K) {
  simd_shape s;
  s.target = hwy::TargetName(HWY_TARGET);
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  switch (K) {
    case 3:
      s.lanes = lanes_for<1>();
      break;
    case 4:
      s.lanes = lanes_for<2>();
      break;
    case 5:
      s.lanes = lanes_for<3>();
      break;
    case 6:
      s.lanes = lanes_for<4>();
      break;
    case 7:
      s.lanes = lanes_for<5>();
      break;
    case 8:
      s.lanes = lanes_for<6>();
      break;
    case 9:
      s.lanes = lanes_for<7>();
      break;
  }
#else
  (void)K;
#endif
  return s;
}

void RunAcs(const acs_call& c) {
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  if (c.symmetric)
    acs_for_K<true>(c);
  else
    acs_for_K<false>(c);
#else
  (void)c;
  throw std::logic_error("conv: no ACS kernel on this SIMD target");
#endif
}

void QuantizeLlrs(const float* llr, std::size_t n, float scale, std::int8_t* q) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<std::int8_t, decltype(df)> d8;
  const auto s = hn::Set(df, scale);
  const auto lo = hn::Set(df, -127.0f), hi = hn::Set(df, 127.0f);
  const std::size_t N = hn::Lanes(df);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::Min(hn::Max(hn::Mul(hn::LoadU(df, llr + i), s), lo), hi);
    hn::StoreU(hn::DemoteTo(d8, hn::NearestInt(v)), d8, q + i);
  }
  for (; i < n; ++i) {
    const float v = std::fmin(std::fmax(llr[i] * scale, -127.0f), 127.0f);
    q[i] = static_cast<std::int8_t>(std::nearbyint(v));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gpufec::conv::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpufec::conv::detail {

HWY_EXPORT(AcsShape);
HWY_EXPORT(RunAcs);
HWY_EXPORT(QuantizeLlrs);

simd_shape acs_shape(int K) {
  return HWY_DYNAMIC_DISPATCH(AcsShape)(K);
}
void run_acs(const acs_call& call) {
  HWY_DYNAMIC_DISPATCH(RunAcs)(call);
}
void quantize_llrs(const float* llr, std::size_t n, float scale, std::int8_t* q) {
  HWY_DYNAMIC_DISPATCH(QuantizeLlrs)(llr, n, scale, q);
}
// Plain C++ (no dispatch), so the sum is the same on every target: four float accumulators in a
// fixed order (which compilers may keep in one 128-bit register), flushed to double every 4096.
llr_scan scan_llrs(const float* llr, std::size_t n) {
  constexpr std::size_t kBlock = 4096;
  llr_scan out;
  out.first_not_finite = n;
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t end = start + kBlock < n ? start + kBlock : n;
    float acc[4] = {0, 0, 0, 0};
    bool finite = true;
    std::size_t i = start;
    for (; i + 4 <= end; i += 4)
      for (std::size_t j = 0; j < 4; ++j) {
        acc[j] += std::fabs(llr[i + j]);
        finite &= std::isfinite(llr[i + j]);
      }
    double block = (static_cast<double>(acc[0]) + acc[1]) + (static_cast<double>(acc[2]) + acc[3]);
    for (; i < end; ++i) {
      block += std::fabs(llr[i]);
      finite &= std::isfinite(llr[i]);
    }
    if (!finite) {
      for (std::size_t j = start; j < end; ++j)
        if (!std::isfinite(llr[j])) {
          out.first_not_finite = j;
          return out;
        }
    }
    out.sum_abs += block;
  }
  return out;
}

}  // namespace gpufec::conv::detail
#endif
