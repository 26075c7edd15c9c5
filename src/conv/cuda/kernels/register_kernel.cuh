// The register Viterbi kernel: one thread decodes one tile alone, its S path metrics as int16
// pairs in S/2 registers (register_layout.cuh), the add-compare-select in int16x2 SIMD with
// Hopper's DPX add-max, no shuffles and no shared memory on the ACS path. Survivors go to a ring
// of `ring` stages per thread in shared memory; each traceback subframe is traced as soon as the
// forward pass reaches its boundary, so a tile may be long (little overlap per decoded bit) while
// a thread keeps only sub + v2 - (K-1) stages of survivors. It decides exactly as tiled_decoder
// (tiling.hpp) and the shared-memory kernel: same geometry, same integer metrics, same ties.
// K = 9 runs on four threads per tile (lane_spec), each holding 64 of the 256 states and running
// the K = 7 cycle on them, with what the lanes add in register_lanes.cuh. A stage's decisions
// are packed into survivor words by register_pack.cuh; on rate 1/2 codes on one lane the add-max
// itself decides, with tagged metrics (register_metrics.cuh, the comment above kTagScale), and
// the walk steps two stages at a time (group_tracer).
//
// The stages run in cycles of P = K-1 (the register layout's period), fully unrolled, with no
// branch inside a cycle: the engine runs this kernel only on tile shapes whose f, f0 (or f when
// f0 = 0), v1 and v2 are multiples of P, so that every subframe boundary inside a tile falls at a
// cycle's end (layout phase 0); boundaries at the tile's end, which may fall mid-cycle, are traced
// after the forward pass. The ring holds whole cycles. The walks read stages from a tile's
// begin + K - 1 on, so on unpunctured codes with decision sums (rate 1/3, K = 9) the cycles of
// the v1 warm-up below that run without decisions (on punctured ones a second cycle loop cost
// ptxas 36 registers, 185, and with them a quarter of the resident warps). The tagged kernels
// decide them: their second loop (about 17 KB of code at K = 7) cost more in instruction fetch
// than it saved (K = 7 rate 1/2 +1% without; rate 1/3 -7.6% without, bench/RESULTS.md
// 2026-11-28).
//
// Index map: thread t of block b takes tiles g = (b T + t) / lanes, g + gridDim.x T / lanes, ...
// (T threads per block; lanes = 1, or 4 for K = 9: threads 4g .. 4g + 3 share tile g, as lane
// t mod 4); tile g is tile i = g mod tiles_per_frame of frame g / tiles_per_frame. Shared memory:
// the rings [thread][slot][word] (uint32), a thread's row padded by one slot (ring_row_words), so
// that a cycle's stores and a traceback cycle's loads are one base plus constant offsets and a
// warp's rows start on distinct banks. Bytes = (ring + 1) * T * words * 4.
//
// Why it is exact: register_metrics.cuh (the metrics' bias, renormalization and bounds).
#pragma once

#include <cstdint>
#include <type_traits>

#include "conv/cuda/kernels/register_lanes.cuh"
#include "conv/cuda/kernels/register_layout.cuh"
#include "conv/cuda/kernels/register_metrics.cuh"
#include "conv/cuda/kernels/register_pack.cuh"
#include "conv/cuda/kernels/register_traceback.cuh"
#include "conv/cuda/kernels/tiled_params.cuh"

namespace gpufec::conv::detail::regs {

template <class Spec, bool Punctured>
struct tile_run {
  static constexpr int K = Spec::K, S = Spec::S, R = Spec::R, P = Spec::phases, W = Spec::words;
  static constexpr int beta = Spec::beta;
  // The decision sums as multiply-adds (step()) where that balances the ALU and FMA pipes: K = 7
  // with two values per stage (measured: +3% at rate 1/2; at rate 1/3 the extra branch-metric
  // forms cost 40 registers and 3%, and K = 5 has FMA-pipe work enough).
  static constexpr bool fma_decision_sums = beta == 2 && K == 7;
  // Cycles between renormalizations (the bound in register_metrics.cuh).
  static constexpr int renorm_cycles = [] {
    int n = 8;
    while (n > 1 && !top_metric_ok(Spec::code_K, P, beta, n)) --n;
    return n;
  }();
  static_assert(top_metric_ok(Spec::code_K, P, beta, renorm_cycles),
                "the metric bound fails (register_metrics.cuh)");

  static constexpr int lanes = Spec::lanes;
  // Tagged decisions (register_metrics.cuh, the comment above kTagScale): two values per stage, one
  // lane, whole groups in a cycle. Others (rate 1/3, K = 9 on four lanes) take decision sums and
  // byte permutes.
  static constexpr bool tagged = lanes == 1 && beta == 2 && P % 2 == 0;
  static constexpr unsigned scale = tagged ? kTagScale : 1u;
  static constexpr int kTagSpread =
      4 * (Spec::code_K - 1) * 2 * static_cast<int>(kBranchBias) * beta;
  static_assert(!tagged || tag_range_ok(Spec::code_K, P, beta), "the tagged metric bound fails");
  // A group's fields: 2 bits per state, register r's at bit 2 (r mod 8) (its high half 16 above)
  // of word r / 8; its W-word slots hold them (the ring is unchanged).
  static constexpr int field_words = (R + 7) / 8;
  static_assert(!tagged || field_words <= 2 * W, "a group's fields fit its two slots");
  const tiled_params& p;
  unsigned* row;  // this thread's survivor ring: p.ring slots of W words (ring_row_words)
  unsigned unit;  // p.unit: 1
  unsigned minus_unit = 0u - unit;
  lane_group<Spec> group;  // four lanes per tile (lane_spec); one: nothing
  unsigned pm[R];
  // Tagged: the last group's fields, taken off as the next group's first stage reads them (its
  // ACS operands), and at a cycle's end what renormalizes the metrics, taken off by the next
  // cycle's first stage.
  unsigned fld[tagged ? R : 1];
  unsigned least2 = 0;
  int L[P][beta];   // this cycle's LLRs, per stage
  int Ln[P][beta];  // the next cycle's, loaded one cycle ahead (byte loads)

  // Word loads (unpunctured codes): a cycle's P beta bytes come as the RW aligned 32-bit words
  // that cover them whatever their alignment, RW = ceil(P beta / 4) + 1, kept raw (so a load is
  // waited for only when the cycle is unpacked, one cycle later) with the bit offset of the cycle's
  // first byte in the first word. Per byte loads of a thread's own stream touch a 32-byte sector
  // per byte; tiles far apart share no sector, so L1 cannot keep them (measured: 97% of the sectors
  // fetched from L2 were refetches). A tile whose words would wrap around a tail-biting frame or
  // leave the batch's buffer loads bytes and packs them instead.
  static constexpr bool word_loads = !Punctured;
  static constexpr int cycle_bytes = P * beta, RW = (cycle_bytes + 3) / 4 + 1;
  bool words_ok = false;

  // The tile.
  long long lo, first;
  int stages, begin, end, subframes, noted, boundary, slot;
  std::uint8_t* out;
  const std::int8_t* llr;
  // The LLR cursor: frame stage, puncturing phase, index of the stage's first value.
  long long ts, period_start;
  int phase;

  __device__ int start_of(int s) const {
    return min(min(begin + (s + 1) * static_cast<int>(p.sub), end) + static_cast<int>(p.v2),
               stages);
  }

  // The LLR loads (register_loads.cuh): the next stage's beta LLRs (0 where punctured), the
  // cursor stepped on; the next cycle's (only `count` < P stages of it when the tile ends inside
  // it); the next cycle's bytes as raw words (word_loads: aligned words, or bytes packed, shift
  // 0); L from a cycle's raw words.
  __device__ __forceinline__ void load_stage(int (&dst)[beta]);
  __device__ __forceinline__ void load_cycle(int (&dst)[P][beta], int count);
  __device__ __forceinline__ void fetch(unsigned (&raw)[RW], int& shift, int count);
  __device__ __forceinline__ void unpack(const unsigned (&raw)[RW], int shift);

  // The best state at the present layout phase Q (the lowest among equal metrics); on four lanes
  // the best of the 256 states, the same in every lane of the tile; and the traceback of subframe
  // s from `state` at stage `start` (register_best.cuh).
  template <int Q>
  __device__ __forceinline__ int best() const;
  template <int Q>
  __device__ int best_of_lanes() const;
  __device__ void trace(int s, int start, int state);

  // The decision sums' bias at stage k: bit 15 (31) says "the slot without the top bit wins,
  // ties included", or, where the lane's ties are strict (lane_group), X > Y: 0x7fff per half.
  // The add-max: uint16 on tagged metrics (their range: register_metrics.cuh, above kTagScale),
  // else int16.
  __device__ __forceinline__ static unsigned add_max(unsigned a, unsigned b, unsigned c) {
    if constexpr (tagged)
      return __viaddmax_u16x2(a, b, c);
    else
      return __viaddmax_s16x2(a, b, c);
  }
  template <int k>
  __device__ __forceinline__ unsigned decision_bias() const {
    return group.template strict_ties<k>() ? 0x7fff7fffu : kDecisionBias;
  }

  // One trellis stage, the k-th of a cycle: layout phase k to (k + 1) mod P. Its survivors go to
  // ring slot slot + k (a cycle never straddles the ring's end: the ring is whole cycles); without
  // Decide, only the metrics (the decision sums, then unused, compile away).
  template <int k, bool Decide = true>
  __device__ __forceinline__ void step() {
    static_assert(Decide || !tagged, "the tagged kernels decide every cycle (header comment)");
    constexpr int q = (k + 1) % P;
    // Two labels' biased branch metrics in one register (label lo_label in the low half,
    // hi_label in the high), each 128 beta + sum of +-L in [0, 256 beta], plus `bias`: one linear
    // form in the stage's LLRs, exact since each half stays in [0, 2^16). Multiply-adds run on the
    // FMA pipe, beside the ALU pipe's add-max, byte permutes and logic, which bound this kernel
    // (ncu: ALU 76% busy, FMA half idle). The halves of a register differ in one state bit, so
    // their labels differ by a constant of the phase: four distinct pairs per stage at most, and
    // their sums.
    const auto sign = [](unsigned label, int b) { return (label >> b) & 1u ? ~0u : 1u; };
    const auto pair = [&](unsigned lo_label, unsigned hi_label, unsigned bias) {
      unsigned v = bias + scale * kBranchBias * beta * 0x10001u;
#pragma unroll
      for (int b = 0; b < beta; ++b)
        v += static_cast<unsigned>(L[k][b]) * scale *
             (sign(lo_label, b) + sign(hi_label, b) * 0x10000u);
      return v;
    };
    // Tagged: the lower predecessor's tag at this stage of its group.
    constexpr unsigned tag = tagged ? 1u << (k % 2) : 0u;
    // Tagged, a cycle's first stage: the renormalization, least2 (least in each half), off every
    // candidate. Y's sums are 32-bit adds, exact as long as each half's result is in range; the
    // add-max's operand is added per half, so its halves are made less by least each (a uint16
    // add-max with 0 whose sum wraps: a per-half subtraction, which the add-max's own sum then
    // brings back into range, since no metric is below least).
    constexpr bool renorms = tagged && k == 0;
    const unsigned renorm = renorms ? least2 : 0u;
    const auto less = [&](unsigned v) {
      if constexpr (renorms)
        return __viaddmax_u16x2(v, ((0u - least2) & 0xffffu) * 0x10001u, 0u);
      else
        return v;
    };
    // pair(lo_label, hi_label, bias) - pair(ulo, uhi, 0), the same way.
    const auto pair_difference = [&](unsigned lo_label, unsigned hi_label, unsigned ulo,
                                     unsigned uhi, unsigned bias) {
      unsigned v = bias;
#pragma unroll
      for (int b = 0; b < beta; ++b)
        v += static_cast<unsigned>(L[k][b]) *
             (sign(lo_label, b) - sign(ulo, b) + (sign(hi_label, b) - sign(uhi, b)) * 0x10000u);
      return v;
    };
    unsigned next[R], z[R];
    if constexpr (k < P - 1) {
      const unsigned tie = decision_bias<k>();
#pragma unroll
      for (int r = 0; r < R / 2; ++r) {
        const unsigned x0 = state_of(k, r, 0), x1 = state_of(k, r, 1);
        // Tagged, a group's first stage: the operands less the last group's fields (and in a
        // cycle's first stage the renormalization, taken off the branch metrics below).
        const unsigned A = tagged && k % 2 == 0 ? pm[r] - fld[r] : pm[r];
        const unsigned B = tagged && k % 2 == 0 ? pm[r + R / 2] - fld[r + R / 2] : pm[r + R / 2];
        constexpr unsigned up = S / 2;
        const int re = reg_of(q, 2 * x0), ro = reg_of(q, 2 * x0 + 1);
        const unsigned a0 = Spec::template label_at<k>(x0, 0),
                       a1 = Spec::template label_at<k>(x1, 0);
        const unsigned c0 = Spec::template label_at<k>(x0, 1),
                       c1 = Spec::template label_at<k>(x1, 1);
        const unsigned u0 = Spec::template label_at<k>(x0 + up, 0),
                       u1 = Spec::template label_at<k>(x1 + up, 0);
        const unsigned w0 = Spec::template label_at<k>(x0 + up, 1),
                       w1 = Spec::template label_at<k>(x1 + up, 1);
        const unsigned Ye = B + pair(u0, u1, 0) - renorm, Yo = B + pair(w0, w1, 0) - renorm;
        next[re] = add_max(A, less(pair(a0, a1, tag * 0x10001u)), Ye);
        next[ro] = add_max(A, less(pair(c0, c1, tag * 0x10001u)), Yo);
        if constexpr (tagged) {
          // No decision sums: the add-max decided (bit k % 2 of next[re] and next[ro]).
        } else if constexpr (fma_decision_sums) {
          // The decision sums A + pair(a, bias) - Ye as (A - B) + (pair(a, bias) - pair(u, 0)):
          // A - B serves both, and all three are multiply-adds (unit = 1 at run time).
          const unsigned D = B * minus_unit + A;
          z[re] = D * unit + pair_difference(a0, a1, u0, u1, tie);
          z[ro] = D * unit + pair_difference(c0, c1, w0, w1, tie);
        } else {
          z[re] = A + pair(a0, a1, tie) - Ye;
          z[ro] = A + pair(c0, c1, tie) - Yo;
        }
      }
    } else {
      // Register r holds the butterfly (x, x + S/2) itself, whose new states 2x and 2x + 1 land
      // in register r (phase 0). With its halves swapped once (a rotation, not two duplicates),
      // the low half compares lower X = A_x + bm(x, 0) with upper A_up + bm(up, 0) as everywhere,
      // but the high half compares upper X = A_up + bm(up, 1) with lower Y: its bias 0x7fff makes
      // bit 31 "upper > lower", the lower predecessor winning ties as always, and pack() stores
      // those bits inverted.
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const unsigned x = state_of(k, r, 0), xu = x + S / 2;  // x == r
        // A rotation, which ptxas fuses with the add below into one LEA.HI; the byte permute it
        // replaced cost a PRMT and an add (K = 7 rate 1/2: +2% Gb/s, bench/RESULTS.md 2026-11-27).
        const unsigned swapped = __funnelshift_l(pm[r], pm[r], 16);
        // Tagged: the lower predecessor is the add-max's operand in the low half, Y in the high.
        const unsigned Y = swapped + pair(Spec::template label_at<k>(xu, 0),
                                          Spec::template label_at<k>(x, 1), tag << 16);
        next[r] = add_max(
            pm[r], pair(Spec::template label_at<k>(x, 0), Spec::template label_at<k>(xu, 1), tag),
            Y);
        if constexpr (!tagged)
          z[r] = pm[r] +
                 pair(Spec::template label_at<k>(x, 0), Spec::template label_at<k>(xu, 1),
                      kStrictHighBias) -
                 Y;
      }
    }
    if constexpr (tagged) {
      if constexpr (k % 2 == 1) end_group<k>(next);
    } else if constexpr (Decide) {
      unsigned words[W];
      pack<R, k == P - 1>(z, words);
      if constexpr (W == 2)
        reinterpret_cast<uint2*>(row)[slot + k] = make_uint2(words[0], words[1]);
      else
        row[slot + k] = words[0];
    }
#pragma unroll
    for (int r = 0; r < R; ++r) pm[r] = next[r];
  }

  // Tagged: a group's fields (bits 0-1 and 16-17 of each register) at layout phase Q, packed
  // (pack_fields, register_pack.cuh) and stored at ring slots `at` and at + 1.
  template <int Q>
  __device__ __forceinline__ void store_fields(const unsigned (&f)[R], int at) {
    unsigned words[field_words];
    pack_fields<Spec, Q>(f, words);
    if constexpr (W == 2) {
      reinterpret_cast<uint2*>(row)[at] = make_uint2(words[0], words[1]);
      reinterpret_cast<uint2*>(row)[at + 1] = make_uint2(words[2], words[3]);
    } else {
      row[at] = words[0];
    }
  }
  // Tagged: the end of a group (stage k of a cycle, k odd): its fields go to the ring, and the
  // next group's first stage takes them off the metrics it reads; at the cycle's end, also the
  // renormalization (register_metrics.cuh, the comment above kTagScale), which the next cycle's
  // first stage takes off. State 0 is register 0's low half at every phase.
  template <int k>
  __device__ __forceinline__ void end_group(unsigned (&next)[R]) {
    if constexpr (k == P - 1)
      least2 = static_cast<unsigned>(max(static_cast<int>(next[0] & 0xfffcu) - kTagSpread, 0)) *
               0x10001u;
#pragma unroll
    for (int r = 0; r < R; ++r) fld[r] = next[r] & kFieldMask;
    store_fields<(k + 1) % P>(fld, slot + k - 1);
  }

  template <bool Decide = true, int k = 0>
  __device__ __forceinline__ void cycle() {
    step<k, Decide>();
    if constexpr (k + 1 < P) cycle<Decide, k + 1>();
  }

  // The last `rest` < P stages (LLRs in L), then the end state: 0 when known, else the best.
  template <int k = 0>
  __device__ int finish(int rest, bool known_end) {
    if constexpr (k < P) {
      if (k < rest) {
        step<k>();
        return finish<k + 1>(rest, known_end);
      }
      if constexpr (tagged && k % 2 == 1) {
        // The tile ends inside a group: its first stage's fields (bit 0) go to the ring.
        unsigned f[R];
#pragma unroll
        for (int r = 0; r < R; ++r) f[r] = pm[r] & kFieldMask;
        store_fields<k>(f, slot + k - 1);
      }
      return known_end ? 0 : best<k>();
    }
    return 0;
  }

  __device__ __forceinline__ void renormalize() {
    unsigned m = pm[0];
#pragma unroll
    for (int r = 1; r < R; ++r) m = __vminu2(m, pm[r]);
    unsigned least = min(m & 0xffffu, m >> 16);
    if constexpr (lanes > 1) least = group.least(least);  // one offset for the 256 states
    least *= 0x10001u;
#pragma unroll
    for (int r = 0; r < R; ++r) pm[r] -= least;
  }

  __device__ void run(unsigned long long frame, unsigned i) {
    const long long N = p.N;
    first = p.grid + static_cast<long long>(i) * p.f;
    const long long last = min(first + static_cast<long long>(p.f), N);
    lo = p.circle ? first - p.v1 : first - min(first, static_cast<long long>(p.v1));
    const long long hi = p.circle ? last + p.v2 : min(last + static_cast<long long>(p.v2), N);
    stages = static_cast<int>(hi - lo);
    begin = static_cast<int>(first - lo);
    end = begin + static_cast<int>(last - first);
    subframes = (end - begin + static_cast<int>(p.sub) - 1) / static_cast<int>(p.sub);
    out = p.bits + frame * p.info_bits;
    llr = p.llr + frame * p.coded_bits;
    ts = ((lo % N) + N) % N;
    phase = static_cast<int>(ts % p.period);
    period_start = (ts / p.period) * p.sent_per_period;
    const bool known_start = !p.circle && !p.open_start && lo == 0;
#pragma unroll
    for (int r = 0; r < R; ++r) pm[r] = 0;
    // State 0: phase 0, register 0, low half (four lanes: of lane 0, slot 0 ^ mask 0).
    if (known_start && group.lane == 0) pm[0] = tagged ? kTagStart : kStart;
    if constexpr (tagged) {
#pragma unroll
      for (int r = 0; r < R; ++r) fld[r] = 0;
      least2 = 0;
    }
    noted = 0;
    // Every subframe boundary inside the tile falls at a cycle's end (the engine runs this kernel
    // only on tile shapes whose f, f0, v1 and v2 are whole cycles); those at the tile's end are
    // traced after it.
    boundary = subframes > 0 ? start_of(0) : stages;
    slot = 0;
    const int cycles = stages / P, rest = stages - cycles * P;
    // The walks read stages from begin + K - 1 on (trace()), so the cycles below (the warm-up
    // through v1) need no decisions: only their metrics (unpunctured codes with decision sums,
    // below; bit 0 of the test switches decides them too).
    const int warm = (p.checks & 1) ? 0 : min((begin + Spec::code_K - 1) / P, cycles);
    // After a cycle: renormalization (tagged: inside the next cycle's first stage), the ring, and
    // the subframe ending here.
    const auto after_cycle = [&](int c) {
      if constexpr (!tagged)
        if (c % renorm_cycles == renorm_cycles - 1) renormalize();
      slot += P;
      if (slot == static_cast<int>(p.ring)) slot = 0;
      if ((c + 1) * P == boundary && boundary < stages) {
        trace(noted, boundary, best<0>());
        ++noted;
        boundary = noted < subframes ? start_of(noted) : stages;
      }
    };
    if constexpr (word_loads) {
      // The words of fetches 0 .. cycles (the last one may be empty) inside the buffer, no wrap.
      const auto buffer = reinterpret_cast<std::uintptr_t>(p.llr);
      const auto first_byte = reinterpret_cast<std::uintptr_t>(llr + ts * beta);
      const std::uintptr_t last_word_end =
          ((first_byte + static_cast<std::uintptr_t>(cycles) * cycle_bytes) & ~std::uintptr_t{3}) +
          4 * RW;
      words_ok = lo >= 0 && hi <= N && (first_byte & ~std::uintptr_t{3}) >= buffer &&
                 last_word_end <= buffer + p.frames * p.coded_bits;
      unsigned now[RW], next[RW];
      int now_shift = 0, next_shift = 0;
      fetch(now, now_shift, stages);
      const auto cycles_over = [&](auto decide, int from, int to) {
        for (int c = from; c < to; ++c) {
          fetch(next, next_shift, stages - (c + 1) * P);
          unpack(now, now_shift);
          group.flip_signs(L);
          cycle<decltype(decide)::value>();
          group.exchange(pm);
          after_cycle(c);
#pragma unroll
          for (int w = 0; w < RW; ++w) now[w] = next[w];
          now_shift = next_shift;
        }
      };
      if constexpr (tagged) {
        cycles_over(std::true_type{}, 0, cycles);
      } else {
        cycles_over(std::false_type{}, 0, warm);
        cycles_over(std::true_type{}, warm, cycles);
      }
      unpack(now, now_shift);
    } else {
      // Punctured codes decide through the warm-up too (header comment).
      load_cycle(L, stages);
      for (int c = 0; c < cycles; ++c) {
        load_cycle(Ln, stages - (c + 1) * P);
        group.flip_signs(L);
        cycle();
        group.exchange(pm);
        after_cycle(c);
#pragma unroll
        for (int k = 0; k < P; ++k)
#pragma unroll
          for (int b = 0; b < beta; ++b) L[k][b] = Ln[k][b];
      }
    }
    group.flip_signs(L);
    const int end_state = finish(rest, p.zero_tail && hi == N);
    slot += rest;  // past the last stage written
    if (slot >= static_cast<int>(p.ring)) slot -= static_cast<int>(p.ring);
    for (int s = noted; s < subframes; ++s) trace(s, stages, end_state);
  }
};

template <class Spec, bool Punctured>
__global__ void register_viterbi_kernel(tiled_params p) {
  extern __shared__ __align__(16) unsigned char shared[];
  tile_run<Spec, Punctured> run{
      p, reinterpret_cast<unsigned*>(shared) + threadIdx.x * ring_row_words(p.ring, Spec::words),
      p.unit};
  // Tile g: threads g lanes .. g lanes + lanes - 1 (lanes = 1, or 4 for K = 9: lane_spec).
  constexpr unsigned lanes = Spec::lanes;
  const unsigned long long total = p.frames * p.tiles_per_frame;
  for (unsigned long long g =
           (static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x) / lanes;
       g < total; g += static_cast<unsigned long long>(gridDim.x) * blockDim.x / lanes)
    run.run(g / p.tiles_per_frame, static_cast<unsigned>(g % p.tiles_per_frame));
}

}  // namespace gpufec::conv::detail::regs

// tile_run's LLR loads, best state and traceback, declared in the class.
#include "conv/cuda/kernels/register_best.cuh"   // IWYU pragma: keep
#include "conv/cuda/kernels/register_loads.cuh"  // IWYU pragma: keep
