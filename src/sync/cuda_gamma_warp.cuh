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
static_assert(sizeof(device_geometry::row0) / sizeof(float) >= gamma_warp_max_width);

// sum_D Pr{D} R goes through shared memory: each lane writes its W products as doubles, row k
// holding the 32 lanes' products (an odd row stride keeps the rows on different banks), then S
// lanes per k (S a power of two, S W <= 32) each add 32 / S consecutive products and combine them
// with log2(S) shuffles. That is ~3 W + 32 / S + 3 instructions per lane, against ~150 for a
// register reduce-scatter of doubles.
constexpr int gamma_red_stride = 33;
__host__ __device__ constexpr int gamma_red_lanes(int W) {
  int s = 1;
  while (2 * s * W <= 32) s *= 2;
  return s;
}
// Dynamic shared memory of a gamma_warp_kernel<W> block of `threads` threads.
__host__ __device__ constexpr std::size_t gamma_warp_shared(int W, int threads) {
  return static_cast<std::size_t>(threads / 32) * W * gamma_red_stride * sizeof(double);
}

// One lattice row in registers: entry k (drift m_n^- + k) from left = this row's entry k - 1,
// up = the previous row's k + 1 and diag = the previous row's k; bit k of `e` says whether the
// received symbol of the diagonal edge equals the codeword bit. The terms that are exactly zero
// are left out without changing a digit: `left` of entry 0 (the zero column), `up` of entry W - 1
// (outside the corridor) and every `left` of the last row (no insertion after the last symbol,
// (10)); x + 0 == x for the non-negative values here, and ins * 0 == 0 for finite ins.
template <int W, bool Ins>
__device__ __forceinline__ void lattice_row(float (&F)[W], unsigned e, float ins, float del,
                                            float match, float mismatch) {
  float left = 0.0f;
#pragma unroll
  for (int k = 0; k < W; ++k) {
    const float qd = mul_rn((e >> k) & 1u ? match : mismatch, F[k]);
    float v = qd;
    if (k + 1 < W) {
      const float du = mul_rn(del, F[k + 1 < W ? k + 1 : k]);
      v = Ins && k > 0 ? add_rn(add_rn(mul_rn(ins, left), du), qd) : add_rn(du, qd);
    } else if (Ins && k > 0) {
      v = add_rn(mul_rn(ins, left), qd);
    }
    F[k] = v;
    left = v;
  }
}

// gamma_warp_kernel<W>: grid (warp blocks over m', N, frames), one warp per (frame, i, m').
// Writes gsum(k, m') (k = delta - m_n^-, 0 where invalid; see gsum_block) and, when `gamma` is
// non-null, R at gamma[f][i][m'][k][D]. Shared: gamma_warp_shared(W, blockDim.x) bytes. At most 256
// threads (the planner's largest block); rows up to 16 also ask for two blocks per SM, which caps
// registers at 128 (ptxas needs fewer without spills); wider rows would spill under it.
template <int W>
__global__ void __launch_bounds__(256, W <= 16 ? 2 : 1)
    gamma_warp_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                      float* gamma, double* gsum) {
  extern __shared__ double gamma_red[];
  constexpr int S = gamma_red_lanes(W), T = 32 / S;
  const int lane = threadIdx.x & 31;
  const int mp = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), i = blockIdx.y,
            f = blockIdx.z;
  if (mp >= g.M) return;  // whole warp
  if (b.status[f] != status_ok) return;
  double* red = gamma_red + (threadIdx.x >> 5) * (W * gamma_red_stride);

  const device_segment seg = segment_of(g, i, mp, b.rho[f]);
  const bool valid = seg.d0 <= seg.d1;
  // The segment as a 64-bit mask built by the warp with two ballots: bit t = y[start + m_n^- + t]
  // (0 outside [0, mu)), so row r's diagonal symbols are bits r - 1 ... r - 2 + W. n + W <= 64
  // (n <= 32, W <= 32) keeps every bit a row reads inside the mask.
  unsigned ylo = 0, yhi = 0;
  if (valid) {
    const std::uint8_t* y = b.y + b.offsets[f] + seg.start;
    const int p0 = g.clo + lane, p1 = p0 + 32;
    ylo = __ballot_sync(0xffffffffu, p0 >= 0 && p0 < seg.mu && y[p0] != 0);
    yhi = __ballot_sync(0xffffffffu, p1 >= 0 && p1 < seg.mu && y[p1] != 0);
  }
  const float ins = g.ins_f, del = g.del_f, match = g.match_f, mismatch = g.mismatch_f;

  const std::size_t task_ofs = (static_cast<std::size_t>(f) * g.N + i) * g.M + mp;
  double acc = 0;  // this lane's share of sum_D Pr{D} R (lanes below S W)
  for (int D0 = 0; D0 < g.q; D0 += 32) {
    const int D = D0 + lane;
    const bool lane_on = D < g.q;
    const double prior = lane_on ? prior_of(b, g, f, i, D) : 0.0;
    float F[W] = {};
    if (valid) {
      const std::uint32_t x = codewords[static_cast<std::size_t>(i) * g.q + (lane_on ? D : 0)];
#pragma unroll
      for (int k = 0; k < W; ++k) F[k] = g.row0[k];
      // Row r's match bits: the mask window, inverted where the codeword bit is 0.
      auto match_bits = [&](int r) {
        return __funnelshift_r(ylo, yhi, r - 1) ^ (((x >> (r - 1)) & 1u) - 1u);
      };
      for (int r = 1; r < g.n; ++r)
        lattice_row<W, true>(F, match_bits(r), ins, del, match, mismatch);
      lattice_row<W, false>(F, match_bits(g.n), ins, del, match, mismatch);
    }
    // R for the valid drift changes, zero elsewhere (only segments at an edge have such entries).
    if (!valid || seg.d0 > g.clo || seg.d1 < g.clo + W - 1) {
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
#pragma unroll
    for (int k = 0; k < W; ++k)
      red[k * gamma_red_stride + lane] = prior * static_cast<double>(F[k]);
    __syncwarp();
    if (lane < S * W) {
      // Two accumulators halve the dependent chain; the order is fixed, so results are too.
      const double* col = red + (lane / S) * gamma_red_stride + (lane % S) * T;
      double s0 = 0, s1 = 0;
#pragma unroll
      for (int t = 0; t < T; t += 2) {
        s0 += col[t];
        s1 += col[t + 1];
      }
      acc += s0 + s1;
    }
    __syncwarp();  // the next D0 overwrites red
  }
#pragma unroll
  for (int o = S / 2; o >= 1; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (lane < S * W && lane % S == 0) store_gsum(g, gsum + gsum_block(g, f, i), lane / S, mp, acc);
}

}  // namespace gpufec::sync::cuda_detail
