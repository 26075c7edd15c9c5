// The fast gamma kernel: one warp per (frame, i, m'), lanes over D, the corridor lattice row held
// in W = M_n registers (one instantiation per width), so a node costs six instructions and no
// memory traffic. Used for the corridor lattice in float with q >= 32 and 2 <= M_n <= 32;
// gamma_kernel covers everything else. Both write the same gamma and gsum.
//
// Why it is exact: entry k of the row is drift m_n^- + k. Nodes with j < 0 are computed but stay
// exactly zero (their inputs are zero), and nodes past the end of the received segment (j > mu)
// are computed but never feed a node with j <= mu (every edge goes to a column >= its source's), so
// the R read out for delta in [d0, d1] equals the CPU's bit for bit: each node is
// (ins*left + del*up) + Q*diag in round-to-nearest, as there. (A width padded beyond M_n would
// need a per-entry deletion weight to keep the padding at zero, which ptxas rematerializes per
// row: two more instructions per node.)
#pragma once

#include "sync/cuda_kernels.cuh"

namespace gpufec::sync::cuda_detail {

constexpr int gamma_warp_max_width = 32;

// Smallest power of two >= w (w <= 32).
__host__ __device__ constexpr int pow2_at_least(int w) {
  int p = 1;
  while (p < w) p *= 2;
  return p;
}

// One level of the reduce-scatter below: lanes whose bit O is set keep the upper H of their 2H
// values, the others the lower H, and each adds what its partner sends.
template <int H, int O, int P>
__device__ __forceinline__ void reduce_scatter_level(double (&v)[P], int lane) {
  if constexpr (H >= 1) {
    const bool upper = lane & O;
#pragma unroll
    for (int j = 0; j < H; ++j) {
      const double send = upper ? v[j] : v[H + j];
      const double keep = upper ? v[H + j] : v[j];
      v[j] = keep + __shfl_xor_sync(0xffffffffu, send, O);
    }
    reduce_scatter_level<H / 2, O / 2>(v, lane);
  }
}

// gamma_warp_kernel<W>: grid (warp blocks, frames), warp w of frame f -> task (i, m') = i M + m'.
// Writes gsum[f][i][k][m'] (k = delta - m_n^-, 0 where invalid) and, when `gamma` is non-null,
// R at gamma[f][i][m'][k][D].
// At most 256 threads (the planner's largest block); rows up to 16 also ask for two blocks per SM,
// which caps registers at 128 (ptxas needs fewer without spills); wider rows would spill under it.
template <int W>
__global__ void __launch_bounds__(256, W <= 16 ? 2 : 1)
    gamma_warp_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                      float* gamma, double* gsum) {
  constexpr int P = pow2_at_least(W);
  const int lane = threadIdx.x & 31;
  // 32-bit index arithmetic (N M < 2^31, checked by the host): a 64-bit division is a subroutine
  // of ~70 instructions, which three of them per task would cost.
  const unsigned local = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  const int f = blockIdx.y;
  if (local >= static_cast<unsigned>(g.N * g.M)) return;  // whole warp
  const int mp = static_cast<int>(local % static_cast<unsigned>(g.M));
  const int i = static_cast<int>(local / static_cast<unsigned>(g.M));
  if (b.status[f] != status_ok) return;

  const device_segment seg = segment_of(g, i, mp, b.rho[f]);
  const bool valid = seg.d0 <= seg.d1;
  // The segment as a bit mask (bit p = y[start + p]), built by the warp with two ballots.
  std::uint64_t ymask = 0;
  if (valid) {
    const std::uint8_t* y = b.y + b.offsets[f] + seg.start;
    const unsigned lo = __ballot_sync(0xffffffffu, lane < seg.mu && y[lane] != 0);
    const unsigned hi = __ballot_sync(0xffffffffu, lane + 32 < seg.mu && y[lane + 32] != 0);
    ymask = (static_cast<std::uint64_t>(hi) << 32) | lo;
  }
  const float ins = g.ins_f, del = g.del_f, match = g.match_f, mismatch = g.mismatch_f;

  const std::size_t task_ofs = static_cast<std::size_t>(f) * g.N * g.M + local;
  double acc = 0;  // this lane's share of sum_D Pr{D} R after the reduce-scatter
  for (int D0 = 0; D0 < g.q; D0 += 32) {
    const int D = D0 + lane;
    const bool lane_on = D < g.q;
    float F[W] = {};
    if (valid) {
      const std::uint32_t x = codewords[static_cast<std::size_t>(i) * g.q + (lane_on ? D : 0)];
      // Row 0: F[0][j] = ins^j for j >= 0 (drift d = j), zero below.
#pragma unroll
      for (int k = 0; k < W; ++k) {
        const int d = g.clo + k;
        F[k] = d < 0 ? 0.0f : d == 0 ? 1.0f : mul_rn(ins, F[k > 0 ? k - 1 : 0]);
      }
      for (int r = 1; r <= g.n; ++r) {
        const std::uint64_t eq = ((x >> (r - 1)) & 1u) ? ymask : ~ymask;
        const int base = r + g.clo - 1;  // bit of y for entry 0 of this row
        const unsigned e = static_cast<unsigned>(base >= 0 ? eq >> base : eq << -base);
        const float ins_r = r < g.n ? ins : 0.0f;  // no insertion after the last symbol (10)
        float left = 0.0f;
#pragma unroll
        for (int k = 0; k < W; ++k) {
          const float up = k + 1 < W ? F[k + 1 < W ? k + 1 : k] : 0.0f;
          const float qv = (e >> k) & 1u ? match : mismatch;
          const float v = add_rn(add_rn(mul_rn(ins_r, left), mul_rn(del, up)), mul_rn(qv, F[k]));
          F[k] = v;
          left = v;
        }
      }
    }
    // R for the valid drift changes, zero elsewhere, stored; then sum_D Pr{D} R by a reduce-scatter
    // over the warp: after log2(P) halving levels lane l holds the sum over its half-warp-aligned
    // group of entry k = l / (32 / P), and the remaining levels add the groups. The tree is fixed
    // (deterministic), and a + b == b + a in IEEE arithmetic, so lanes sharing k agree exactly.
    double prior = 0;
    if (lane_on)
      prior = b.priors ? b.priors[(static_cast<long long>(f) * g.N + i) * g.q + D] : 1.0 / g.q;
    if (!valid || seg.d0 > g.clo || seg.d1 < g.clo + W - 1) {  // only segments at an edge
#pragma unroll
      for (int k = 0; k < W; ++k) {
        const int delta = g.clo + k;
        if (!(valid && delta >= seg.d0 && delta <= seg.d1)) F[k] = 0.0f;
      }
    }
    if (gamma && lane_on) {
      float* out = gamma + task_ofs * W * g.q + D;  // a running pointer: no 64-bit product per k
#pragma unroll
      for (int k = 0; k < W; ++k, out += g.q) *out = F[k];
    }
    constexpr int H = P / 2;  // the first level reads the floats: half as many doubles live
    double v[H];
    const bool upper = lane & 16;
#pragma unroll
    for (int j = 0; j < H; ++j) {
      const float lo = j < W ? F[j] : 0.0f, hi = j + H < W ? F[j + H < W ? j + H : 0] : 0.0f;
      const double send = prior * static_cast<double>(upper ? lo : hi);
      const double keep = prior * static_cast<double>(upper ? hi : lo);
      v[j] = keep + __shfl_xor_sync(0xffffffffu, send, 16);
    }
    reduce_scatter_level<H / 2, 8>(v, lane);
    double sum = v[0];
#pragma unroll
    for (int o = 16 / P; o >= 1; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    acc += sum;
  }
  const int k = lane / (32 / P);
  if (lane % (32 / P) == 0 && k < W) {
    gsum[gsum_block(g, f, i) + k * g.M + mp] = acc;
  }
}

}  // namespace gpufec::sync::cuda_detail
