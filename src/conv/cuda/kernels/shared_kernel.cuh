// The shared-memory tiled Viterbi kernel (the paper's unified kernel): one warp decodes one tile
// from its LLRs to its bits in one kernel: depuncturing and branch metrics, add-compare-select
// with the path metrics and the survivor bits in shared memory, the best states at the subframe
// boundaries, and the (parallel) traceback; survivors never touch global memory. It decides
// exactly as tiled_decoder (gpufec/conv/tiling.hpp) on the same int8 LLRs: the same integer
// metrics (int32, exact: a tile of at most 2^16 stages moves a metric by at most 2^25), the same
// tie rules, the same tile geometry. It keeps the path metrics in shared memory (states spread
// over the lanes) and runs every code; the register kernel (register_kernel.cuh), a thread per
// tile with the path metrics in registers, runs the common feedforward codes. Included by the
// engine's translation unit (tiled_engine.cu) only.
#pragma once

#include <climits>

#include "conv/cuda/kernels/tiled_params.cuh"

namespace gpufec::conv::detail {
namespace {

// A start state the tile knows it is not in: far below any path from a valid state, which a tile
// moves by at most max_tile_stages * 4 * 128 = 2^25.
constexpr int kExcluded = -(1 << 29);
constexpr int kMaxWords = 8;  // survivor words per stage: 256 states

using kernel_params = tiled_params;

// The best state of `pm` (the lowest among equals), in every lane.
__device__ int warp_best(const int* pm, int S, int lane) {
  int value = INT_MIN, index = S;
  for (int j = lane; j < S; j += 32)
    if (pm[j] > value) {
      value = pm[j];
      index = j;
    }
  for (int offset = 16; offset > 0; offset /= 2) {
    const int v = __shfl_xor_sync(0xffffffffu, value, offset);
    const int i = __shfl_xor_sync(0xffffffffu, index, offset);
    if (v > value || (v == value && i < index)) {
      value = v;
      index = i;
    }
  }
  return index;
}

// tiled_viterbi_kernel. Index map: warp w of block b takes tiles g = b W + w, then g + gridDim.x W
// ...; tile g is tile i = g mod T of frame g / T (T tiles per frame). Lane l owns new states
// j = 32 k + l (k < words) in the ACS, tile stages e = l, l + 32, ... in the depuncturing, and
// traceback subframes s = l, l + 32, .... Shared memory: one slot per warp = branch metrics
// [stage][2^beta] int16, survivor words [stage][words], path metrics [2][S] int32, subframe start
// states [subframes] int32.
__global__ void tiled_viterbi_kernel(kernel_params p) {
  extern __shared__ __align__(16) unsigned char shared[];
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const int warps = static_cast<int>(blockDim.x / 32);
  unsigned char* slot = shared + static_cast<std::size_t>(warp) * p.slot_bytes;
  auto* dtab = reinterpret_cast<short*>(slot);
  auto* surv = reinterpret_cast<unsigned*>(slot + p.dtab_bytes);
  auto* pm = reinterpret_cast<int*>(slot + p.dtab_bytes + p.surv_bytes);
  auto* best = reinterpret_cast<int*>(slot + p.dtab_bytes + p.surv_bytes + p.pm_bytes);

  // This lane's states' predecessor labels, fixed per code.
  unsigned char labels[kMaxWords];
#pragma unroll
  for (int k = 0; k < kMaxWords; ++k) {
    const int j = 32 * k + lane;
    labels[k] = k < p.words && j < p.S ? p.pair_labels[j] : 0;
  }

  const unsigned long long total = p.frames * p.tiles_per_frame;
  for (unsigned long long g = static_cast<unsigned long long>(blockIdx.x) * warps + warp; g < total;
       g += static_cast<unsigned long long>(gridDim.x) * warps) {
    const unsigned long long frame = g / p.tiles_per_frame;
    const unsigned i = static_cast<unsigned>(g % p.tiles_per_frame);
    const long long N = p.N;
    const long long first = p.grid + static_cast<long long>(i) * p.f;
    const long long last = min(first + static_cast<long long>(p.f), N);
    const long long lo = p.circle ? first - p.v1 : first - min(first, static_cast<long long>(p.v1));
    const long long hi = p.circle ? last + p.v2 : min(last + static_cast<long long>(p.v2), N);
    const int stages = static_cast<int>(hi - lo);
    const int begin = static_cast<int>(first - lo), end = begin + static_cast<int>(last - first);
    const std::int8_t* llr = p.llr + frame * p.coded_bits;

    // Depuncturing and the 2^beta branch metrics of every stage.
    for (int e = lane; e < stages; e += 32) {
      const long long t = ((lo + e) % N + N) % N;
      const int phase = static_cast<int>(t % p.period);
      const long long base = (t / p.period) * p.sent_per_period + p.phase_base[phase];
      const unsigned mask = p.phase_mask[phase];
      int L[4] = {0, 0, 0, 0};
      for (int b = 0, k = 0; b < p.beta; ++b)
        if ((mask >> b) & 1u) L[b] = llr[base + k++];
      for (int o = 0; o < p.labels; ++o) {
        int d = 0;
        for (int b = 0; b < p.beta; ++b) d += ((o >> b) & 1) ? -L[b] : L[b];
        dtab[e * p.labels + o] = static_cast<short>(d);
      }
    }
    const bool known_start = !p.circle && !p.open_start && lo == 0;
    for (int j = lane; j < p.S; j += 32) pm[j] = known_start && j != 0 ? kExcluded : 0;
    __syncwarp();

    // Forward. Subframe s decodes tile stages [begin + s sub, min(begin + (s+1) sub, end)) and
    // is traced back from boundary min(its end + v2, stages): the best state there is noted.
    const int subframes = (end - begin + static_cast<int>(p.sub) - 1) / static_cast<int>(p.sub);
    const auto start_of = [&](int s) {
      return min(min(begin + (s + 1) * static_cast<int>(p.sub), end) + static_cast<int>(p.v2),
                 stages);
    };
    int noted = 0;  // subframes whose start state is noted
    const int half = p.S / 2;
    for (int e = 0; e < stages; ++e) {
      const short* row = dtab + e * p.labels;
      const int* from = pm + (e & 1) * p.S;
      int* to = pm + ((e + 1) & 1) * p.S;
#pragma unroll
      for (int k = 0; k < kMaxWords; ++k) {
        if (k >= p.words) break;
        const int j = 32 * k + lane;
        bool decision = false;
        if (j < p.S) {
          const int s0 = j >> 1;
          const int m0 = from[s0] + row[labels[k] & 15];
          const int m1 = from[s0 + half] + row[labels[k] >> 4];
          decision = m1 > m0;
          to[j] = decision ? m1 : m0;
        }
        const unsigned word = __ballot_sync(0xffffffffu, decision);
        if (lane == k) surv[e * p.words + k] = word;
      }
      __syncwarp();
      if (noted < subframes && start_of(noted) == e + 1 && e + 1 < stages) {
        const int b = warp_best(to, p.S, lane);
        if (lane == 0) best[noted] = b;
        ++noted;
      }
    }
    const bool known_end = p.zero_tail && hi == N;
    const int end_state = known_end ? 0 : warp_best(pm + (stages & 1) * p.S, p.S, lane);
    __syncwarp();

    // Traceback, one subframe per lane.
    std::uint8_t* out = p.bits + frame * p.info_bits;
    for (int s = lane; s < subframes; s += 32) {
      const int a = begin + s * static_cast<int>(p.sub);
      const int b = min(a + static_cast<int>(p.sub), end);
      const int start = start_of(s);
      int state = start == stages ? end_state : best[s];
      for (int t = start - 1; t >= a; --t) {
        const unsigned word = surv[t * p.words + (state >> 5)];
        const int predecessor = (state >> 1) | (((word >> (state & 31)) & 1u) ? half : 0);
        if (t < b) {
          const long long stage = first + (t - begin);
          if (stage < static_cast<long long>(p.info_bits))
            out[stage] = static_cast<std::uint8_t>((state & 1) ^ p.parity[predecessor]);
        }
        state = predecessor;
      }
    }
    __syncwarp();
  }
}

}  // namespace
}  // namespace gpufec::conv::detail
