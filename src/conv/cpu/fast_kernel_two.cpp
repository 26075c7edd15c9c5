// The fast decoder's two-frame ACS kernel, written with Google Highway and dispatched at run time
// like fast_kernel.cpp (whose opening comment derives the butterfly layout, the survivor bits and
// the branch tables): two frames of equal length at once, one per 128-bit block of a 256-bit
// vector. The in-block interleave is then complete for each frame, so the cross-block step of the
// one-frame kernel disappears, and K = 5 frames (8 butterflies) fill a whole vector. Used for
// K = 5..7 (see AcsShape in fast_kernel.cpp for the measurements behind that range).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conv/cpu/fast_kernel_two.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format off
#include "hwy/highway.h"
// clang-format on

#include <cstring>
#include <stdexcept>

#include "common/simd_target.hpp"
#include "conv/cpu/acs-inl.h"
#include "conv/cpu/fast_kernel.hpp"

HWY_BEFORE_NAMESPACE();
namespace gpufec::conv::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
// Two frames at once, one per 128-bit block of a 256-bit vector (AVX2, AVX-512): the in-block
// interleave is then the whole interleave of each frame's states, so no cross-block step is
// needed, and frames of 8 butterflies (K = 5) fill a whole vector. Each frame keeps its natural
// state order in its block; survivor bits split the same way (16 bits per frame per vector).
// A stage's table row is 16 bytes [frame 0 | frame 1] of pair tables, broadcast to both blocks
// (the high block's byte indices are 8 higher), or 32 bytes of 8-entry tables, one per block.
template <int kLogButterflies, branch_layout kLayout>
void acs_stages_dual(const acs_dual_call& c) {
  const hn::CappedTag<std::int16_t, 16> d;
  if constexpr (hn::MaxLanes(d) != 16 || kLogButterflies < 3) {
    (void)c;
    throw std::logic_error("conv: no two-frame ACS kernel for this target or K");
  } else {
    constexpr bool kSymmetric = kLayout != branch_layout::half;
    constexpr bool kPair = kLayout == branch_layout::pair;
    constexpr std::size_t kRow = kPair ? 8 : 16;  // int16 per stage
    const hn::Half<decltype(d)> dh;
    const hn::Repartition<std::uint8_t, decltype(d)> d8;
    using V = hn::Vec<decltype(d)>;
    constexpr std::size_t kButterflies = std::size_t{1} << kLogButterflies;  // per frame
    constexpr std::size_t kVectors = kButterflies / 8;
    constexpr std::size_t kKinds = kSymmetric ? 1 : 4;

    V metric[2 * kVectors];
    for (std::size_t i = 0; i < 2 * kVectors; ++i)
      metric[i] = hn::Combine(d, hn::LoadU(dh, c.path_metric[1] + 8 * i),
                              hn::LoadU(dh, c.path_metric[0] + 8 * i));
    V index[kKinds * kVectors];
    V sign[kKinds * kVectors];
    // Pair rows hold both frames' tables in every block: the high block reads 8 bytes further.
    const V high_block =
        hn::Combine(d, hn::Set(dh, std::int16_t{kPair ? 0x0808 : 0}), hn::Zero(dh));
    for (std::size_t k = 0; k < kKinds; ++k)
      for (std::size_t v = 0; v < kVectors; ++v) {
        index[k * kVectors + v] =
            hn::Add(hn::LoadDup128(d, c.lane_index + k * kButterflies + v * 8), high_block);
        sign[k * kVectors + v] =
            kSymmetric ? hn::Zero(d) : hn::LoadDup128(d, c.lane_sign + k * kButterflies + v * 8);
      }
    // Each frame's state 0 sits in lane 0 of its block.
    const auto renormalize = [&] {
      const V reference = hn::Broadcast<0>(metric[0]);
      for (std::size_t i = 0; i < 2 * kVectors; ++i) metric[i] = hn::Sub(metric[i], reference);
    };

    const std::size_t stages = c.stages, row_bytes = c.row_bytes;
    const std::int16_t* tables = c.branch_table;
    std::uint8_t* row0 = c.survivor_rows[0];
    std::uint8_t* row1 = c.survivor_rows[1];
    // The companion walk, in locals (the survivor stores may alias anything). A step: the
    // decision of state j is bit j of its row, the predecessor (j >> 1) + d S/2, the bit released
    // j & 1 (feedforward codes).
    const std::size_t steps = c.walk ? std::min(stages, c.walk->steps) : 0;
    const std::uint8_t* walk_row0 = c.walk ? c.walk->row[0] : nullptr;
    const std::uint8_t* walk_row1 = c.walk ? c.walk->row[1] : nullptr;
    std::uint8_t* walk_bit0 = c.walk ? c.walk->bit[0] : nullptr;
    std::uint8_t* walk_bit1 = c.walk ? c.walk->bit[1] : nullptr;
    unsigned state0 = c.walk ? c.walk->state[0] : 0, state1 = c.walk ? c.walk->state[1] : 0;
    for (std::size_t t = 0; t < stages; ++t, tables += kRow, row0 += row_bytes, row1 += row_bytes) {
      if (t < steps) {
        std::uint64_t word0, word1;
        std::memcpy(&word0, walk_row0, sizeof word0);
        std::memcpy(&word1, walk_row1, sizeof word1);
        *walk_bit0-- = static_cast<std::uint8_t>(state0 & 1u);
        *walk_bit1-- = static_cast<std::uint8_t>(state1 & 1u);
        state0 = (state0 >> 1) | (static_cast<unsigned>((word0 >> state0) & 1u) << kLogButterflies);
        state1 = (state1 >> 1) | (static_cast<unsigned>((word1 >> state1) & 1u) << kLogButterflies);
        walk_row0 -= row_bytes;
        walk_row1 -= row_bytes;
      }
      const V table = kPair ? hn::LoadDup128(d, tables) : hn::LoadU(d, tables);
      V next[2 * kVectors];
      for (std::size_t v = 0; v < kVectors; ++v) {
        V lo, hi;
        const auto decided = butterflies<kSymmetric>(d, table, index, sign, kVectors, v, metric[v],
                                                     metric[kVectors + v], lo, hi);
        std::uint8_t bits[8];
        hn::StoreMaskBits(d8, decided, bits);
        std::memcpy(row0 + 2 * v, bits, 2);
        std::memcpy(row1 + 2 * v, bits + 2, 2);
        next[2 * v] = hn::InterleaveLower(d, lo, hi);
        next[2 * v + 1] = hn::InterleaveUpper(d, lo, hi);
      }
      for (std::size_t i = 0; i < 2 * kVectors; ++i) metric[i] = next[i];
      if (t % renormalize_every == renormalize_every - 1) renormalize();
    }
    renormalize();
    for (std::size_t i = 0; i < 2 * kVectors; ++i) {
      hn::StoreU(hn::LowerHalf(dh, metric[i]), dh, c.path_metric[0] + 8 * i);
      hn::StoreU(hn::UpperHalf(dh, metric[i]), dh, c.path_metric[1] + 8 * i);
    }
    if (c.walk) {
      *c.walk = {
          {walk_row0, walk_row1}, {walk_bit0, walk_bit1}, {state0, state1}, c.walk->steps - steps};
    }
  }
}

template <branch_layout kLayout>
void acs_dual_for_K(const acs_dual_call& c) {
  switch (c.K) {
    case 5:
      return acs_stages_dual<3, kLayout>(c);
    case 6:
      return acs_stages_dual<4, kLayout>(c);
    case 7:
      return acs_stages_dual<5, kLayout>(c);
  }
  throw std::logic_error("conv: the two-frame ACS kernel is built for K = 5..7");
}
#endif  // HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE

void RunAcsDual(const acs_dual_call& c) {
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  switch (c.layout) {
    case branch_layout::pair:
      return acs_dual_for_K<branch_layout::pair>(c);
    case branch_layout::full:
      return acs_dual_for_K<branch_layout::full>(c);
    case branch_layout::half:
      return acs_dual_for_K<branch_layout::half>(c);
  }
#else
  (void)c;
  throw std::logic_error("conv: no two-frame ACS kernel on this SIMD target");
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace gpufec::conv::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpufec::conv::detail {

HWY_EXPORT(RunAcsDual);

void run_acs_two_frames(const acs_dual_call& call) {
  ::gpufec::detail::apply_simd_cap();
  HWY_DYNAMIC_DISPATCH(RunAcsDual)(call);
}

}  // namespace gpufec::conv::detail
#endif
