// The fast gamma kernel: a warp per up to 32 states m' of one (frame, i), lanes over D, the
// corridor lattice row held in W = M_n registers (one instantiation per width), so a node costs
// six instructions (five without substitutions) and no memory traffic. Used for the corridor
// lattice in float with q >= 32 and 2 <= M_n <= 32; gamma_kernel covers everything else. Both write
// the same gamma and gsum.
//
// Why it is exact: entry k of the row is drift m_n^- + k. Nodes with j < 0 are computed but stay
// exactly zero (their inputs are zero), and nodes past the end of the received segment (j > mu)
// are computed but never feed a node with j <= mu (every edge goes to a column >= its source's), so
// the R read out for delta in [d0, d1] equals the CPU's bit for bit: each node is
// (ins*left + del*up) + Q*diag in round-to-nearest, as there. (A width padded beyond M_n would
// need a per-entry deletion weight to keep the padding at zero, which ptxas rematerializes per
// row: two more instructions per node.)
#pragma once

#include "sync/cuda/kernels/device_geometry.cuh"
#include "sync/cuda/policy.hpp"

namespace gpufec::sync::cuda_detail {

constexpr int gamma_warp_max_width = policy::gamma_warp_max_width;
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
// Doubles of shared memory per warp of gamma_warp_states: the products summed over D (W rows of
// gamma_red_stride), then the shared prefix rows (W rows of 32 floats, see gamma_prefix_rows).
__host__ __device__ constexpr int gamma_warp_doubles(int W) {
  return W * gamma_red_stride + W * 16;
}
// Dynamic shared memory of a gamma_warp_kernel<W> block of `threads` threads.
__host__ __device__ constexpr std::size_t gamma_warp_shared(int W, int threads) {
  return static_cast<std::size_t>(threads / 32) * gamma_warp_doubles(W) * sizeof(double);
}

// One lattice row in registers: entry k (drift m_n^- + k) from left = this row's entry k - 1,
// up = the previous row's k + 1 and diag = the previous row's k; bit k of `e` says whether the
// received symbol of the diagonal edge equals the codeword bit. `prev` is F itself, or row 0 in
// the kernel's parameters for the first row (the products then take their operand from the
// constant bank: no register copies of row 0 per lattice). The terms that are exactly zero are
// left out without changing a digit: `left` of entry 0 (the zero column), `up` of entry W - 1
// (outside the corridor) and every `left` of the last row (no insertion after the last symbol,
// (10)); x + 0 == x for the non-negative values here, and ins * 0 == 0 for finite ins.
// NoSub (a channel without substitutions, mismatch == 0): Q * diag is match * diag or exactly 0,
// so the diagonal term is added under the bit as a predicate instead of being selected: one
// instruction less per node, the same digits.
template <int W, bool Ins, bool NoSub, class Prev>
__device__ __forceinline__ void lattice_row(float (&F)[W], const Prev& prev, unsigned e, float ins,
                                            float del, float match, float mismatch) {
  float left = 0.0f;
#pragma unroll
  for (int k = 0; k < W; ++k) {
    float v;
    if constexpr (NoSub) {
      const float qd = mul_rn(match, prev[k]);
      if (k + 1 < W) {
        const float du = mul_rn(del, prev[k + 1 < W ? k + 1 : k]);
        v = Ins && k > 0 ? add_rn(mul_rn(ins, left), du) : du;
      } else {
        v = Ins && k > 0 ? mul_rn(ins, left) : 0.0f;
      }
      // A predicated add (selp of a sum would cost the select back).
      asm("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t@p add.rn.f32 %0, %0, %2;\n\t}"
          : "+f"(v)
          : "r"(e & (1u << k)), "f"(qd));
    } else {
      const float qd = mul_rn((e >> k) & 1u ? match : mismatch, prev[k]);
      v = qd;
      if (k + 1 < W) {
        const float du = mul_rn(del, prev[k + 1 < W ? k + 1 : k]);
        v = Ins && k > 0 ? add_rn(add_rn(mul_rn(ins, left), du), qd) : add_rn(du, qd);
      } else if (Ins && k > 0) {
        v = add_rn(mul_rn(ins, left), qd);
      }
    }
    F[k] = v;
    left = v;
  }
}

// Rows 1 ... gamma_prefix_rows of a lattice depend on the codeword's first gamma_prefix_rows bits
// only: 16 prefixes, so a warp computes them for two states at once (lanes 0-15: state t, lanes
// 16-31: state t + 1, lane & 15 the prefix) into shared memory, and each lattice starts from the
// row of its prefix there. The same operations on the same operands: the same digits. For q = 32
// and n = 10, two rows in ten fewer per lattice for W loads (and W stores per two states); in
// registers (shuffles) instead, the rows of state t + 1 stayed live and the kernels spilled.
constexpr int gamma_prefix_rows = policy::gamma_prefix_rows;

// The largest number of consecutive m' one warp takes (the received window below holds 96 bits:
// 31 more than the 64 a lattice reads).
constexpr int gamma_warp_max_tasks = policy::gamma_warp_max_tasks;

// The lattices of `tasks` consecutive states m' from mp0 of one (frame, i), run by one warp: what
// depends only on (frame, i), or on D, is done once. For each state t and each chunk of 32 symbols
// it hands this lane's row (R for drift changes m_n^- + k, zero where invalid) to
// sink(t, D, lane_on, F), then adds sum_D Pr{D} R and writes gsum(k, m') (k = delta - m_n^-, 0
// where invalid; see gsum_block), and also to back[m' Kp + k] when `back` is not null (a backward
// row kept in shared memory). `red`: this warp's gamma_warp_doubles(W) doubles of shared memory.
template <int W, bool NoSub, class Sink>
__device__ __forceinline__ void gamma_warp_states(const device_geometry& g, const device_frames& b,
                                                  const std::uint32_t* codewords, double* red,
                                                  double* gsum, double* back, int f, int i, int mp0,
                                                  int tasks, Sink&& sink) {
  constexpr int S = gamma_red_lanes(W), T = 32 / S;
  const int lane = threadIdx.x & 31;
  // The received symbols of the warp's lattices as a 96-bit window built with three ballots:
  // bit u = y[first + u], first = n i + m_tau^- + m_n^- + mp0, 0 outside the frame's staged
  // symbols. State mp0 + t reads bits t ... t + 63 (n + W <= 64). Bits at positions the CPU's
  // segment leaves out (before its start, at or past its end mu) only meet nodes that are zero
  // or that feed no R read out (every edge goes to a column >= its source's), so they may hold
  // any symbol.
  const std::uint8_t* y = b.y + b.offsets[f];
  const long long staged = b.offsets[f + 1] - b.offsets[f];
  const long long first = static_cast<long long>(g.n) * i + g.m_tau_min + g.m_n_min + mp0;
  unsigned window[3];
#pragma unroll
  for (int w = 0; w < 3; ++w) {
    const long long p = first + 32 * w + lane;
    window[w] = __ballot_sync(0xffffffffu, p >= 0 && p < staged && y[p] != 0);
  }
  // The segment of state m' starts at n i + m_tau^- + m' and reaches the frame end rest = rho -
  // start symbols later; it exists for start in [0, rho] (tasks [t_begin, t_end)), as in
  // segment_of(), with the segment's 64-bit arithmetic done once per warp.
  const long long start0 = static_cast<long long>(g.n) * i + g.m_tau_min + mp0;
  const long long rest0 = b.rho[f] - start0;
  const int t_begin = static_cast<int>(min(max(-start0, 0LL), static_cast<long long>(tasks)));
  const int t_end = static_cast<int>(min(max(rest0 + 1, 0LL), static_cast<long long>(tasks)));
  const int rest0c = clamp_rest(rest0);
  const float ins = g.ins_f, del = g.del_f, match = g.match_f, mismatch = g.mismatch_f;
  const bool uniform = b.priors == nullptr;
  const std::uint32_t* x_row = codewords + static_cast<std::size_t>(i) * g.q;
  // D = lane's codeword and prior, kept for every state when q is one warp's D.
  const std::uint32_t x_lane = x_row[lane];
  const double prior_lane = uniform ? 1.0 : prior_of(b, g, f, i, lane);
  double* gsum_fi = gsum + gsum_block(g, f, i);
  // Row gamma_prefix_rows of states t & ~1 (entries [k][prefix]) and t | 1 ([k][16 + prefix]).
  float* prefix_rows = reinterpret_cast<float*>(red + W * gamma_red_stride);

  for (int t = 0; t < tasks; ++t) {
    if ((t & 1) == 0) {
      // State t + 1 may not exist (t + 1 == tasks <= 32): that half then computes unused rows.
      const int u = t + (lane >> 4);
      const unsigned plo = __funnelshift_r(window[0], window[1], u),
                     phi = __funnelshift_r(window[1], window[2], u), bits = lane & 15u;
      auto match_bits = [&](int r) {
        return __funnelshift_r(plo, phi, r - 1) ^ (((bits >> (r - 1)) & 1u) - 1u);
      };
      float P[W];
      lattice_row<W, true, NoSub>(P, g.row0, match_bits(1), ins, del, match, mismatch);
#pragma unroll
      for (int r = 2; r <= gamma_prefix_rows; ++r) {
        lattice_row<W, true, NoSub>(P, P, match_bits(r), ins, del, match, mismatch);
      }
      // The previous states' reads are done: every lane has passed the __syncwarp after them.
#pragma unroll
      for (int k = 0; k < W; ++k) prefix_rows[k * 32 + lane] = P[k];
      __syncwarp();
    }
    const int mp = mp0 + t;
    const auto [d0, d1] = drift_changes(g, mp, rest0c - t);
    const bool valid = t >= t_begin && t < t_end && d0 <= d1;
    const unsigned ylo = __funnelshift_r(window[0], window[1], t),
                   yhi = __funnelshift_r(window[1], window[2], t);
    double acc = 0;  // this lane's share of sum_D Pr{D} R (lanes below S W)
    for (int D0 = 0; D0 < g.q; D0 += 32) {
      const int D = D0 + lane;
      const bool lane_on = D < g.q;
      // A lane past q (a last chunk of D when 32 does not divide q) runs no lattice, zero R.
      const bool live = valid && lane_on;
      const std::uint32_t x = D0 == 0 ? x_lane : x_row[lane_on ? D : 0];
      const double prior = !lane_on             ? 0.0
                           : D0 == 0 || uniform ? prior_lane
                                                : prior_of(b, g, f, i, D);
      float F[W];
      // Row r's match bits: the mask window, inverted where the codeword bit is 0.
      auto match_bits = [&](int r) {
        return __funnelshift_r(ylo, yhi, r - 1) ^ (((x >> (r - 1)) & 1u) - 1u);
      };
      if (live) {
        const float* from = prefix_rows + (((t & 1) << 4) | static_cast<int>(x & 15u));
#pragma unroll
        for (int k = 0; k < W; ++k) F[k] = from[k * 32];
        for (int r = gamma_prefix_rows + 1; r < g.n; ++r)
          lattice_row<W, true, NoSub>(F, F, match_bits(r), ins, del, match, mismatch);
        lattice_row<W, false, NoSub>(F, F, match_bits(g.n), ins, del, match, mismatch);
      }
      // R for the valid drift changes, zero elsewhere (only segments at an edge have such entries).
      if (!live || d0 > g.m_n_min || d1 < g.m_n_min + W - 1) {
#pragma unroll
        for (int k = 0; k < W; ++k) {
          const int delta = g.m_n_min + k;
          if (!(live && delta >= d0 && delta <= d1)) F[k] = 0.0f;
        }
      }
      sink(t, D, lane_on, F);
      // Uniform priors are applied once to the sum (below), not to each product.
      if (uniform) {
#pragma unroll
        for (int k = 0; k < W; ++k) red[k * gamma_red_stride + lane] = static_cast<double>(F[k]);
      } else {
#pragma unroll
        for (int k = 0; k < W; ++k)
          red[k * gamma_red_stride + lane] = prior * static_cast<double>(F[k]);
      }
      __syncwarp();
      if (lane < S * W) {
        // Two accumulators halve the dependent chain; the order is fixed, so results are too.
        const double* col = red + (lane / S) * gamma_red_stride + (lane % S) * T;
        double s0 = 0, s1 = 0;
#pragma unroll
        for (int u = 0; u < T; u += 2) {
          s0 += col[u];
          s1 += col[u + 1];
        }
        acc += s0 + s1;
      }
      __syncwarp();  // the next D0 or state overwrites red
    }
#pragma unroll
    for (int o = S / 2; o >= 1; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane < S * W && lane % S == 0) {
      const double v = uniform ? acc * g.uniform_prior : acc;
      store_gsum(g, gsum_fi, lane / S, mp, v);
      if (back) back[mp * g.Kp + lane / S] = v;
    }
  }
}

// V(m', D) = sum_k beta_{i+1}(m' + m_n^- + k) R(m', k, D), k ascending in one chain of FMAs: the
// order of every L kernel's inner sum (app_kernel), so that L has the same digits whether R was
// stored or folded into V. `beta_window[k]` = beta_{i+1}(m' + m_n^- + k), zero outside the states
// (those terms add exact zeros).
template <int W>
__device__ __forceinline__ double fold_beta(const double* beta_window, const float (&F)[W]) {
  double v = 0;
#pragma unroll
  for (int k = 0; k < W; ++k) v = __fma_rn(beta_window[k], static_cast<double>(F[k]), v);
  return v;
}

// gamma_warp_kernel<W, NoSub>: grid (warp blocks over m', N, frames); warp w of the (frame, i)
// takes the `per_warp` states m' from w * per_warp (gamma_warp_states). Writes gsum and, when
// `gamma` is non-null, R at gamma[f][i][m'][k][D]. Shared: gamma_warp_shared(W, blockDim.x)
// bytes. At most policy::gamma_max_threads threads (the planner's largest block); rows up to
// policy::gamma_two_blocks_max_width also ask for two blocks per SM (see policy.hpp).
template <int W, bool NoSub>
__global__ void __launch_bounds__(policy::gamma_max_threads,
                                  W <= policy::gamma_two_blocks_max_width ? 2 : 1)
    gamma_warp_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                      float* gamma, double* gsum, int per_warp) {
  extern __shared__ double gamma_red[];
  const int mp0 = (blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)) * per_warp;
  const int i = g.index0 + blockIdx.y, f = blockIdx.z;
  if (mp0 >= g.M) return;                  // whole warp
  if (b.status[f] == status_skip) return;  // as gamma_kernel
  const int tasks = min(per_warp, g.M - mp0);
  double* red = gamma_red + (threadIdx.x >> 5) * gamma_warp_doubles(W);
  // R of state mp0 + t at gamma[f][i][mp0 + t] (k-major, then D).
  const std::size_t out_at = (stored_index(g, f, i) * g.M + mp0) * W * g.q;
  gamma_warp_states<W, NoSub>(g, b, codewords, red, gsum, nullptr, f, i, mp0, tasks,
                              [&](int t, int D, bool lane_on, const float(&F)[W]) {
                                if (!gamma || !lane_on) return;
                                float* o =
                                    gamma + out_at + static_cast<std::size_t>(t) * W * g.q + D;
#pragma unroll
                                for (int k = 0; k < W; ++k, o += g.q) *o = F[k];
                              });
}

}  // namespace gpufec::sync::cuda_detail
