// The fast decoder's SIMD kernels, written once with Google Highway and compiled for every x86
// target Highway builds for here (AVX-512, AVX2, SSE4, SSSE3 and scalar); HWY_DYNAMIC_DISPATCH
// picks the best the CPU has at run time, at most the GPUFEC_SIMD cap (common/simd_target.hpp).
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
// hi = max(A - m, B + m). m is read from the stage's small table by a byte shuffle
// (TableLookupBytes) with per-lane byte indices fixed for the whole frame. The table holds the
// 2^beta values delta(o) (beta = 3: 8 int16, 16 bytes, in every 128-bit block), or at rate 1/2
// the 4 values [delta(00), delta(11), delta(01), delta(10)] (8 bytes, broadcast to every 64 bits),
// which pair_tables makes for many stages at once. Other codes use four shuffles from the half
// table (the 2^(beta-1) labels whose last bit is 0) and per-lane signs. Decisions compare strictly,
// so a tie keeps the predecessor whose oldest bit is 0: the reference decoder's rule.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conv/cpu/fast_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format off
#include "hwy/highway.h"
// clang-format on

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "common/simd_target.hpp"
#include "conv/cpu/acs-inl.h"
#include "conv/cpu/fast_kernel.hpp"

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

template <int kLogButterflies, branch_layout kLayout>
void acs_stages(const acs_call& c) {
  constexpr bool kSymmetric = kLayout != branch_layout::half;
  constexpr std::size_t kEntries = table_entries(kLayout);
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

  // Locals, so that the survivor stores (uint8_t, which may alias anything) force no reloads.
  const std::size_t stages = c.stages, row_bytes = c.row_bytes;
  const std::int16_t* tables = c.branch_table;
  std::uint8_t* row = c.survivor_rows;
  for (std::size_t t = 0; t < stages; ++t, tables += kEntries, row += row_bytes) {
    const auto table = load_table<kEntries>(d, tables);
    V next[2 * kVectors];
    for (std::size_t v = 0; v < kVectors; ++v) {
      V lo, hi;
      const auto decided = butterflies<kSymmetric>(d, table, index, sign, kVectors, v, metric[v],
                                                   metric[kVectors + v], lo, hi);
      hn::StoreMaskBits(d8, decided, row + v * kRowBytesPerVector);
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

template <branch_layout kLayout>
void acs_for_K(const acs_call& c) {
  switch (c.K) {
    case 3:
      return acs_stages<1, kLayout>(c);
    case 4:
      return acs_stages<2, kLayout>(c);
    case 5:
      return acs_stages<3, kLayout>(c);
    case 6:
      return acs_stages<4, kLayout>(c);
    case 7:
      return acs_stages<5, kLayout>(c);
    case 8:
      return acs_stages<6, kLayout>(c);
    case 9:
      return acs_stages<7, kLayout>(c);
  }
}

// Four stages per 128-bit step: x = (l0, l1) pairs widened to int16; swapping each pair's halves
// gives sums (l0 + l1 twice) and differences (l1 - l0, l0 - l1); (sum, -sum) and the differences
// interleaved by 32-bit units are the stages' tables, 8 bytes each: stored whole when the rows
// are contiguous (stride 4), else one 64-bit word per row.
// The pair tables of stages t..t + 3 from their 8 LLRs: stages t, t + 1 in `first`, t + 2, t + 3
// in `second`.
HWY_INLINE void pair_block(const std::int8_t* pairs, hn::Vec<hn::Full128<std::int16_t>>& first,
                           hn::Vec<hn::Full128<std::int16_t>>& second) {
  const hn::Full128<std::int16_t> d;
  const hn::Rebind<std::int8_t, decltype(d)> d8;
  const hn::Repartition<std::int32_t, decltype(d)> d32;
  const auto x = hn::PromoteTo(d, hn::LoadU(d8, pairs));
  const auto swapped = hn::Reverse2(d, x);
  const auto sum = hn::Add(x, swapped), difference = hn::Sub(swapped, x);
  const auto plus_minus = hn::OddEven(hn::Sub(hn::Zero(d), sum), sum);
  const auto a = hn::BitCast(d32, plus_minus), b = hn::BitCast(d32, difference);
  first = hn::BitCast(d, hn::InterleaveLower(d32, a, b));
  second = hn::BitCast(d, hn::InterleaveUpper(d32, a, b));
}

void pair_tables_simd(const std::int8_t* pairs, std::size_t stages, std::int16_t* tables,
                      std::size_t stride) {
  const hn::Full128<std::int16_t> d;
  const hn::Repartition<std::uint64_t, decltype(d)> d64;
  std::size_t t = 0;
  for (; t + 4 <= stages; t += 4) {
    hn::Vec<decltype(d)> first, second;  // stages t, t + 1; t + 2, t + 3
    pair_block(pairs + 2 * t, first, second);
    if (stride == 4) {
      hn::StoreU(first, d, tables + 4 * t);
      hn::StoreU(second, d, tables + 4 * t + 8);
      continue;
    }
    const std::uint64_t words[4] = {
        hn::GetLane(hn::BitCast(d64, first)),
        hn::GetLane(hn::UpperHalf(hn::Half<decltype(d64)>(), hn::BitCast(d64, first))),
        hn::GetLane(hn::BitCast(d64, second)),
        hn::GetLane(hn::UpperHalf(hn::Half<decltype(d64)>(), hn::BitCast(d64, second)))};
    for (std::size_t k = 0; k < 4; ++k) std::memcpy(tables + (t + k) * stride, words + k, 8);
  }
  for (; t < stages; ++t) {
    const int l0 = pairs[2 * t], l1 = pairs[2 * t + 1];
    const std::int16_t entry[4] = {
        static_cast<std::int16_t>(l0 + l1), static_cast<std::int16_t>(-l0 - l1),
        static_cast<std::int16_t>(l1 - l0), static_cast<std::int16_t>(l0 - l1)};
    std::memcpy(tables + t * stride, entry, 8);
  }
}

// Two frames' pair tables as the two-frame kernel reads them: row t = [frame 0's 4 | frame 1's 4].
void pair_tables_two_simd(const std::int8_t* pairs0, const std::int8_t* pairs1, std::size_t stages,
                          std::int16_t* tables) {
  const hn::Full128<std::int16_t> d;
  const hn::Repartition<std::uint64_t, decltype(d)> d64;
  std::size_t t = 0;
  for (; t + 4 <= stages; t += 4) {
    hn::Vec<decltype(d)> first0, second0, first1, second1;
    pair_block(pairs0 + 2 * t, first0, second0);
    pair_block(pairs1 + 2 * t, first1, second1);
    const auto f0 = hn::BitCast(d64, first0), f1 = hn::BitCast(d64, first1);
    const auto s0 = hn::BitCast(d64, second0), s1 = hn::BitCast(d64, second1);
    hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, f0, f1)), d, tables + 8 * t);
    hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, f0, f1)), d, tables + 8 * (t + 1));
    hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, s0, s1)), d, tables + 8 * (t + 2));
    hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, s0, s1)), d, tables + 8 * (t + 3));
  }
  for (; t < stages; ++t) {
    const int l0 = pairs0[2 * t], l1 = pairs0[2 * t + 1], m0 = pairs1[2 * t],
              m1 = pairs1[2 * t + 1];
    const std::int16_t row[8] = {
        static_cast<std::int16_t>(l0 + l1), static_cast<std::int16_t>(-l0 - l1),
        static_cast<std::int16_t>(l1 - l0), static_cast<std::int16_t>(l0 - l1),
        static_cast<std::int16_t>(m0 + m1), static_cast<std::int16_t>(-m0 - m1),
        static_cast<std::int16_t>(m1 - m0), static_cast<std::int16_t>(m0 - m1)};
    std::memcpy(tables + 8 * t, row, sizeof row);
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
  // Two frames per vector pay for K = 5..7 (AVX2, Zen 3, ns per stage and frame: K = 5 0.94
  // against 1.57 alone, K = 6 1.81 against 3.53, K = 7 3.71 against 4.25); from K = 8 on, twice
  // the metrics no longer fit in the 16 registers (K = 8: 9.1 against 6.5).
  s.two_frames = K >= 5 && K <= 7 && hn::MaxLanes(hn::CappedTag<std::int16_t, 16>()) == 16;
#endif
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
  switch (c.layout) {
    case branch_layout::pair:
      return acs_for_K<branch_layout::pair>(c);
    case branch_layout::full:
      return acs_for_K<branch_layout::full>(c);
    case branch_layout::half:
      return acs_for_K<branch_layout::half>(c);
  }
#else
  (void)c;
  throw std::logic_error("conv: no ACS kernel on this SIMD target");
#endif
}

void PairTables(const std::int8_t* pairs, std::size_t stages, std::int16_t* tables,
                std::size_t stride) {
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  pair_tables_simd(pairs, stages, tables, stride);
#else
  for (std::size_t t = 0; t < stages; ++t) {
    const int l0 = pairs[2 * t], l1 = pairs[2 * t + 1];
    const std::int16_t entry[4] = {
        static_cast<std::int16_t>(l0 + l1), static_cast<std::int16_t>(-l0 - l1),
        static_cast<std::int16_t>(l1 - l0), static_cast<std::int16_t>(l0 - l1)};
    std::memcpy(tables + t * stride, entry, 8);
  }
#endif
}

void PairTablesTwo(const std::int8_t* pairs0, const std::int8_t* pairs1, std::size_t stages,
                   std::int16_t* tables) {
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  pair_tables_two_simd(pairs0, pairs1, stages, tables);
#else
  PairTables(pairs0, stages, tables, 8);
  PairTables(pairs1, stages, tables + 4, 8);
#endif
}

// The sum of |L| in blocks of 4096: four accumulators, element i into accumulator i mod 4, in
// order; one 128-bit vector of them on SIMD targets and four floats on the scalar one: the same
// IEEE additions in the same order, so every target returns the same sum (the automatic scale
// must not depend on the machine). The blocks' sums are added in order in double within runs of
// kLlrScanRun values, and the runs' sums in order: runs can be summed at once (threads, lanes),
// and the same additions made, on the host and on the device.
llr_scan ScanLlrs(const float* llr, std::size_t n) {
  constexpr std::size_t kBlock = 4096;
  static_assert(kLlrScanRun % kBlock == 0);
  llr_scan out;
  out.first_not_finite = n;
  double run = 0;
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t end = start + kBlock < n ? start + kBlock : n;
    std::size_t i = start;
    alignas(16) float acc[4] = {0, 0, 0, 0};
    bool finite = true;
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
    const hn::Full128<float> d;
    auto sum = hn::Zero(d);
    auto bad = hn::Zero(d);  // lanes of all ones where a value was NaN or infinite
    for (; i + 4 <= end; i += 4) {
      const auto v = hn::LoadU(d, llr + i);
      sum = hn::Add(sum, hn::Abs(v));
      bad = hn::Or(bad, hn::VecFromMask(d, hn::Not(hn::IsFinite(v))));
    }
    hn::Store(sum, d, acc);
    finite = hn::AllFalse(d, hn::MaskFromVec(bad));
#else
    for (; i + 4 <= end; i += 4)
      for (std::size_t j = 0; j < 4; ++j) {
        acc[j] += std::fabs(llr[i + j]);
        finite = finite && std::isfinite(llr[i + j]);
      }
#endif
    double block = (static_cast<double>(acc[0]) + acc[1]) + (static_cast<double>(acc[2]) + acc[3]);
    for (; i < end; ++i) {
      block += std::fabs(llr[i]);
      finite = finite && std::isfinite(llr[i]);
    }
    if (!finite) {
      for (std::size_t j = start; j < end; ++j)
        if (!std::isfinite(llr[j])) {
          out.first_not_finite = j;
          return out;
        }
    }
    run += block;
    if (end == n || end % kLlrScanRun == 0) {
      out.sum_abs += run;
      run = 0;
    }
  }
  return out;
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
HWY_EXPORT(PairTables);
HWY_EXPORT(PairTablesTwo);
HWY_EXPORT(ScanLlrs);

simd_shape acs_shape(int K) {
  ::gpufec::detail::apply_simd_cap();
  return HWY_DYNAMIC_DISPATCH(AcsShape)(K);
}
void run_acs(const acs_call& call) {
  ::gpufec::detail::apply_simd_cap();
  HWY_DYNAMIC_DISPATCH(RunAcs)(call);
}
void pair_tables(const std::int8_t* llr_pairs, std::size_t stages, std::int16_t* tables,
                 std::size_t stride) {
  ::gpufec::detail::apply_simd_cap();
  HWY_DYNAMIC_DISPATCH(PairTables)(llr_pairs, stages, tables, stride);
}
void pair_tables_two(const std::int8_t* llr_pairs0, const std::int8_t* llr_pairs1,
                     std::size_t stages, std::int16_t* tables) {
  ::gpufec::detail::apply_simd_cap();
  HWY_DYNAMIC_DISPATCH(PairTablesTwo)(llr_pairs0, llr_pairs1, stages, tables);
}
void quantize_llrs(const float* llr, std::size_t n, float scale, std::int8_t* q) {
  ::gpufec::detail::apply_simd_cap();
  HWY_DYNAMIC_DISPATCH(QuantizeLlrs)(llr, n, scale, q);
}
llr_scan scan_llrs(const float* llr, std::size_t n) {
  ::gpufec::detail::apply_simd_cap();
  return HWY_DYNAMIC_DISPATCH(ScanLlrs)(llr, n);
}

}  // namespace gpufec::conv::detail
#endif
