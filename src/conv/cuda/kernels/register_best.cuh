// The register kernel's best state and traceback (tile_run's members declared in
// register_kernel.cuh, defined here): the lowest state among those of the largest metric, on one
// lane from the packed halves, on four lanes by shuffles between the tile's lanes; and a
// subframe's traceback through the thread's ring (register_traceback.cuh's walks).
#pragma once

#include "conv/cuda/kernels/register_kernel.cuh"

namespace gpufec::conv::detail::regs {

// The best state at the present layout phase Q (the lowest among equal metrics). Which halves
// hold the largest metric, as pack() places decisions: top - metric >= 0 in each half (no
// borrow), + 0x7fff sets bit 15 (31) where it is not 0; the clear bits of the packed words are
// the candidates (mostly one), and the lowest state among them wins. (A compare and a select per
// state took about 240 instructions; this about 32 sums, the pack and a short loop.)
template <class Spec, bool Punctured>
template <int Q>
__device__ __forceinline__ int tile_run<Spec, Punctured>::best() const {
  if constexpr (lanes > 1) return best_of_lanes<Q>();
  unsigned m = pm[0];
#pragma unroll
  for (int r = 1; r < R; ++r) m = __vmaxu2(m, pm[r]);
  // Tagged: the fields below bit 2 may hold tags (a tile's last, partial group): the largest
  // metric's equals are those within its multiple of 4.
  const unsigned top = tagged ? (max(m & 0xffffu, m >> 16) | 3u) * 0x10001u + 0x7ffc7ffcu
                              : max(m & 0xffffu, m >> 16) * 0x10001u + 0x7fff7fffu;
  unsigned z[R];
#pragma unroll
  for (int r = 0; r < R; ++r) z[r] = top - pm[r];
  unsigned words[W];
  pack<R, false>(z, words);
  // The positions in use: h H + i for i < R (a word per half when W = 2).
  constexpr int H = half_block(R), n = K - 2;  // rev(r) has n bits
  constexpr unsigned block = R >= 32 ? ~0u : (1u << R) - 1u;
  constexpr unsigned used = W == 2 ? ~0u : block | (block << H);
  int state = S;
#pragma unroll
  for (int w = 0; w < W; ++w) {
    for (unsigned equal = ~words[w] & used; equal; equal &= equal - 1u) {
      const int b = 32 * w + __ffs(static_cast<int>(equal)) - 1;  // position h H + rev(r)
      const int h = b / H, r = static_cast<int>(__brev(static_cast<unsigned>(b % H)) >> (32 - n));
      state = min(state, state_of(Q, r, h));
    }
  }
  return state;
}
// Four lanes: the best of the 256 states after Q stages of a cycle (Q = 0: after the
// exchange), the lowest among equal metrics, the same in every lane of the tile. (Not inlined:
// it runs once per subframe.)
template <class Spec, bool Punctured>
template <int Q>
__device__ int tile_run<Spec, Punctured>::best_of_lanes() const {
  unsigned m = pm[0];
#pragma unroll
  for (int r = 1; r < R; ++r) m = __vmaxu2(m, pm[r]);
  unsigned top = max(m & 0xffffu, m >> 16);
  const unsigned mask = Spec::mask(Q, group.lane);
  unsigned state = 0xffffu;
#pragma unroll
  for (int j = 0; j < S; ++j) {
    const unsigned v = half_of(Q, j) ? pm[reg_of(Q, j)] >> 16 : pm[reg_of(Q, j)] & 0xffffu;
    const unsigned x = insert_lane(static_cast<unsigned>(j) ^ mask, group.lane, Q);
    if (v == top) state = min(state, x);
  }
#pragma unroll
  for (int d = 1; d < lanes; d *= 2) {
    const unsigned other_top = __shfl_xor_sync(group.mask, top, d, 4);
    const unsigned other = __shfl_xor_sync(group.mask, state, d, 4);
    if (other_top > top || (other_top == top && other < state)) {
      top = other_top;
      state = other;
    }
  }
  return static_cast<int>(state);
}
template <class Spec, bool Punctured>
__device__ void tile_run<Spec, Punctured>::trace(int s, int start, int state) {
  const int a = begin + s * static_cast<int>(p.sub);
  const int b = min(a + static_cast<int>(p.sub), end);
  // Tile position t is frame stage first + t - begin; stages from info_bits on are not written.
  const long long info_end = static_cast<long long>(p.info_bits) - first + begin;
  const int limit = static_cast<int>(min(static_cast<long long>(b), info_end));
  const int last_slot = (slot == 0 ? static_cast<int>(p.ring) : slot) - 1;
  // The last argument (unpunctured codes): how far above the written range the walk starts to
  // keep its history: 0, or never under the test switch (tiled_params::checks).
  if constexpr (lanes > 1) {
    // Subframe s is traced by lane s mod 4, through the rings of all four: the group meets
    // before (the other lanes' decisions are visible) and after (none of them writes its ring
    // again, in this tile or the next, while the trace reads it).
    __syncwarp(group.mask);
    if (group.lane == static_cast<unsigned>(s) % lanes) {
      const unsigned* rows = row - group.lane * ring_row_words(p.ring, W);
      if constexpr (Punctured)
        trace_lanes<Spec>(rows, ring_row_words(p.ring, W), static_cast<int>(p.ring), last_slot,
                          start, a, limit, static_cast<unsigned>(state), out + (first - begin));
      else
        trace_lanes<Spec>(rows, ring_row_words(p.ring, W), static_cast<int>(p.ring), last_slot,
                          start, a, limit, static_cast<unsigned>(state), out + (first - begin),
                          (p.checks & 2) ? 1 << 20 : 0);
    }
    __syncwarp(group.mask);
  } else if constexpr (tagged && Punctured) {
    trace_groups<Spec>(row, static_cast<int>(p.ring), last_slot, start, a, limit,
                       static_cast<unsigned>(state), out + (first - begin));
  } else if constexpr (tagged) {
    trace_groups<Spec>(row, static_cast<int>(p.ring), last_slot, start, a, limit,
                       static_cast<unsigned>(state), out + (first - begin),
                       (p.checks & 2) ? 1 << 20 : 0);
  } else if constexpr (Punctured) {
    trace_subframe<Spec>(row, static_cast<int>(p.ring), last_slot, start, a, limit,
                         static_cast<unsigned>(state), out + (first - begin));
  } else {
    trace_subframe<Spec>(row, static_cast<int>(p.ring), last_slot, start, a, limit,
                         static_cast<unsigned>(state), out + (first - begin),
                         (p.checks & 2) ? 1 << 20 : 0);
  }
}

}  // namespace gpufec::conv::detail::regs
