// The register Viterbi kernel's metric arithmetic (register_kernel.cuh): the bias and the bounds
// that make its packed int16 (and tagged uint16) metrics exact, checked at compile time for every
// code the kernel runs (tile_run's static_asserts).
//
// Why it is exact. Metrics are kept non-negative and below 2^15: every branch metric carries the
// bias kBranchBias beta = 128 beta (so it lies in [0, m], m = 256 beta, for int8 LLRs in
// [-128, 127]: never negative, so no half of a packed sum borrows from the other, even for
// -128, which 127 beta would let through); the metrics are renormalized every
// renorm_cycles cycles by subtracting their minimum; a known start state begins at kStart and the
// others at 0. Adding one constant to every branch metric of a stage, or subtracting one from
// every metric, changes no comparison; and with metrics in [0, 2^15) the int16x2 sums never wrap,
// and the 32-bit sum A + (BM + 0x80008000) - Y never carries between halves, so its bit 15 (31)
// says X >= Y of the low (high) half exactly (with 0x7fff in the high half, bit 31 says X > Y:
// the phase-0 stage's swapped high halves, step()). Bounds: K-1 stages after the start every
// state is reachable from every other, so the spread of the metrics is at most (K-1) m, which is
// what a renormalization leaves as the largest; before the first one the largest is at most
// kStart plus what the stages add. n cycles add at most n (K-1) m, and a candidate sum one more
// m: renorm_cycles is the largest n (at most 8) that keeps max(kStart, (K-1) m) + n (K-1) m + m
// below 2^15 (K = 7, beta = 2: 7 cycles, 30 208 at most; beta = 3: 5). The start offset 8192
// exceeds every spread (K <= 7, beta <= 4: at most 6144), so an excluded state never beats one
// reached from the known start (as the CPU's excluded metric never does).
#pragma once

namespace gpufec::conv::detail::regs {

constexpr unsigned kStart = 8192;      // the known start state's metric; the others start at 0
constexpr unsigned kBranchBias = 128;  // per LLR: a branch metric's bias (header comment)
// The header comment's bound, for n cycles between renormalizations: the largest candidate sum
// stays below 2^15, and the start offset exceeds the spread.
// A cycle is `phases` stages (K - 1, or 6 on four lanes).
constexpr bool top_metric_ok(int K, int phases, int beta, int n) {
  const int m = 2 * static_cast<int>(kBranchBias) * beta, spread = (K - 1) * m;
  const int top = static_cast<int>(kStart) > spread ? static_cast<int>(kStart) : spread;
  return static_cast<int>(kStart) > spread && top + n * phases * m + m < (1 << 15);
}
// The decision sums' bias: bit 15 (31) of X - Y + kDecisionBias says X >= Y of the low (high)
// half; 0x7fff in the high half instead makes bit 31 say X > Y.
constexpr unsigned kDecisionBias = 0x80008000u, kStrictHighBias = 0x7fff8000u;

// Tagged decisions (rate 1/2 codes on one lane, an even cycle; tile_run::tagged): metrics are
// kept times kTagScale, and the two bits below are free for tags. In the stages of a pair (a
// "group": stages 2i and 2i + 1 of a cycle) the candidate from the lower predecessor carries the
// tag 2^j at stage j of the group, the upper one none, so that the add-max itself decides: bit j
// of the new metric is the decision, and where both sums are equal the tagged one is larger
// (lower wins ties, as in the reference). The bits below bit j are the winner's earlier tags
// (less than 2^j), which neither outweigh a tag nor a scaled metric step of 4: X - Y = 4 d +
// 2^j + (g_X - g_Y) with |g_X - g_Y| < 2^j is positive for d >= 0 and negative for d < 0. After
// the group, bits 0 and 1 of state s's metric are the decisions along s's survivor path, what a
// traceback step through both stages needs (register_traceback.cuh, group_tracer); they are
// stored as fields and cleared. So the stage needs no decision sums and the pack no byte
// permutes: a mask, a shift-add and a subtract per register and group.
// Range: cleared metrics are 4 (the biased metric) exactly, whose spread is at most
// kTagSpread = 4 (K-1) m once K-1 stages have passed, as at every cycle's end. Each cycle's first
// stage takes max(state 0's metric - kTagSpread, 0) off every candidate, which leaves every
// metric in [0, 2 kTagSpread], and a cycle adds at most P (4 m + 3): 36 882 at K = 7, above
// 2^15, so the tagged add-max compares as uint16 (__viaddmax_u16x2; the 32-bit sums' halves stay
// below 2^16 and never carry). (A renormalization per group, as int16 needs, cost a cycle 56 more
// ALU instructions: K = 7 rate 1/2 +2.5% without, bench/RESULTS.md 2026-11-28.) A known start
// state begins at kTagStart, above what P stages add to any other (so no other start wins a
// survivor), and kTagStart plus a cycle's sums stays below 2^16. best() needs the largest metric
// within 0x8003 of every other: kTagStart plus a cycle's sums inside a tile's first cycle from
// the known start (every metric is non-negative), kTagSpread + 3 after.
constexpr unsigned kTagScale = 4, kFieldMask = 0x00030003u, kTagStart = 16384;
constexpr bool tag_range_ok(int K, int phases, int beta) {
  const int m = 2 * static_cast<int>(kBranchBias) * beta, step = 4 * m + 3;
  const int spread = 4 * (K - 1) * m, start = static_cast<int>(kTagStart);
  return start > phases * step && 2 * spread + phases * step < (1 << 16) &&
         start + phases * step <= 0x8003 && spread + 3 <= 0x8003;
}

}  // namespace gpufec::conv::detail::regs
