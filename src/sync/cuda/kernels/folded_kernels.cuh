// The folded gamma/beta kernels of a large chunk (see device_geometry.cuh for the plan of work):
// gamma_beta_kernel (items across the device) and gamma_beta_frame_kernel (a block per frame).
//
// Why: in a batch, storing R and reading it back for L is HBM-bound (2 x 38 MB per frame at
// q = 32, N = 210, p = 1e-2), and L cannot run beside the next part's gamma because the writes and
// reads of R share HBM (bench/RESULTS.md, 2026-11-21, a kernel timeline, 5a36763). L only needs
//   V_i(m', D) = sum_k beta_{i+1}(m' + m_n^- + k) R_i(m', k, D),
// M_n times fewer values than R. gamma_beta_kernel runs each lattice once, when beta_{i+1} of its
// frame is known, and stores V instead of R: gamma of index i and beta of index i interleave.
//
// Work: an item is up to `per_warp` states m' of one (frame, i), one warp each, handed out in the
// order i = N-1 down to 0, then frame, then states, by a counter. An item of (f, i < N-1) waits
// until beta_{i+1} of frame f is published. The last item of (f, i) to finish (a per-frame
// ticket) computes the row beta_i from the gsum blocks all items of (f, i) wrote, publishes it,
// and so releases the items of (f, i - 1). No deadlock: a warp takes an item only while it runs,
// and every item an item waits for came earlier from the counter, so the earliest unfinished item
// never waits. A part's frames interleave, so a wait is rare once a round of items (one index of
// every frame) is longer than one item plus one beta row.
//
// Exactness: beta_i is band_sum's four chains times the power of two fb_ring_kernel would choose
// (the scale of row beta_{i+1}), so the rows equal fb_ring_kernel's bit for bit, and V is summed
// in app_kernel's order (fold_beta): a frame has the same digits in the folded path as in the
// three-kernel path (tests/sync/cuda: DeterministicAcrossRunsAndChunks).
#pragma once

#include <cuda/atomic>

#include "sync/cuda/kernels/alpha_beta_kernels.cuh"
#include "sync/cuda/kernels/gamma_warp_kernel.cuh"

namespace gpufec::sync::cuda_detail {

// A part's counters, zeroed before each launch: the next item, then per frame the items done and
// the beta rows published below beta_N.
__host__ __device__ constexpr std::size_t fold_counters(int frames) {
  return 1 + 2 * static_cast<std::size_t>(frames);
}
using device_counter = ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>;

// beta_{i1} of state m (0 outside the states): beta_N from the frame end, else a row the kernel
// published (read through L2: it was written on another SM during this launch).
__device__ __forceinline__ double beta_at(const device_geometry& g, const double* beta_f,
                                          const double* end_prior, long long rho, int i1, int m) {
  if (m < 0 || m >= g.M) return 0.0;
  if (i1 == g.N) return fb_start(g, false, m, rho, end_prior);
  return __ldcg(beta_f + static_cast<std::size_t>(i1) * g.M + m);
}

// One warp: beta_i of frame f from beta_{i+1} (`prev(m)`, 0 outside the states) and the backward
// gsum rows of (f, i) (`row(m, j)`: entries 2j and 2j + 1 of state m's row), as fb_ring_kernel<K>
// computes it; `store(m, v)` takes the row. After the last step (i = 0) the frame's backward
// failure, if any, is recorded.
template <int K, class Prev, class Row, class Store>
__device__ __forceinline__ void beta_row(const device_geometry& g, const device_frames& b, int f,
                                         int i, const double* end_prior, const Prev& prev,
                                         const Row& row, const Store& store) {
  const int lane = threadIdx.x & 31;
  unsigned key = 0;
  for (int m = lane; m < g.M; m += 32) key = max(key, row_scale::key_of(prev(m)));
  const double scale = row_scale::of_key(row_scale::warp_max(key));
  unsigned key_out = 0;
  for (int m = lane; m < g.M; m += 32) {
    double v0 = 0, v1 = 0, v2 = 0, v3 = 0;  // band_sum's chains
#pragma unroll 1
    for (int k = 0; k < K; k += 4) {
      const double2 a = row(m, k / 2), c = row(m, k / 2 + 1);
      const int mm = m + g.m_n_min + k;
      v0 = __fma_rn(a.x, prev(mm), v0);
      v1 = __fma_rn(a.y, prev(mm + 1), v1);
      v2 = __fma_rn(c.x, prev(mm + 2), v2);
      v3 = __fma_rn(c.y, prev(mm + 3), v3);
    }
    const double v = ((v0 + v1) + (v2 + v3)) * scale;
    store(m, v);
    key_out = max(key_out, row_scale::key_of(v));
  }
  key_out = row_scale::warp_max(key_out);
  if (i != 0) return;
  const long long rho = b.rho[f];
  unsigned key_end = 0;  // fb_ring_kernel's first scale: that of beta_N
  for (int m = lane; m < g.M; m += 32)
    key_end = max(key_end, row_scale::key_of(fb_start(g, false, m, rho, end_prior)));
  key_end = row_scale::warp_max(key_end);
  const int why = beta_failure(row_scale::of_key(key_end), row_scale::of_key(key_out));
  if (lane == 0 && why != status_ok) record_failure(b, f, why);
}

// beta_{i+1} values a warp keeps for V: its states' windows, at most 32 + 32 - 1.
constexpr int gamma_fold_window = 64;
// Dynamic shared memory of a gamma_beta_kernel<W> block of `threads` threads.
__host__ __device__ constexpr std::size_t gamma_beta_shared(int W, int threads) {
  return gamma_warp_shared(W, threads) +
         static_cast<std::size_t>(threads / 32) * gamma_fold_window * sizeof(double);
}

// gamma_beta_kernel<W, NoSub>: 1-D grid of warps, one item each (see above); `counters` holds
// fold_counters(b.frames) zeros. Writes gsum, V[f][i][m'][D] (doubles) and every row of beta
// (alpha comes after, from gsum). Shared: gamma_beta_shared(W, blockDim.x) bytes. Registers are
// capped (no spills at any width, ptxas -v): left alone, V's sums take 114 at W = 16 and the
// kernel keeps 16 warps per SM instead of gamma_warp_kernel's 20, 8% slower issue (ncu).
template <int W, bool NoSub>
__global__ void __launch_bounds__(policy::gamma_max_threads)
    __maxnreg__(policy::fold_items_max_registers(W))
        gamma_beta_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                          double* V, double* gsum, double* beta, const double* end_prior,
                          unsigned long long* counters, int per_warp) {
  constexpr int K = (W + 3) / 4 * 4;  // == g.Kg
  extern __shared__ double fold_shared[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double* red = fold_shared + warp * gamma_warp_doubles(W);
  double* window =
      fold_shared + (blockDim.x >> 5) * gamma_warp_doubles(W) + warp * gamma_fold_window;
  unsigned long long* done = counters + 1;
  unsigned long long* ready = done + b.frames;
  const int chunks = (g.M + per_warp - 1) / per_warp;
  const unsigned long long round = static_cast<unsigned long long>(b.frames) * chunks;
  unsigned long long item = 0;
  if (lane == 0) item = device_counter(counters[0]).fetch_add(1, ::cuda::memory_order_relaxed);
  item = __shfl_sync(0xffffffffu, item, 0);
  if (item >= round * g.N) return;  // whole warp
  const int i = g.N - 1 - static_cast<int>(item / round);
  const int f = static_cast<int>(item % round / chunks);
  const int mp0 = static_cast<int>(item % chunks) * per_warp;
  if (b.status[f] != status_ok) return;  // no item of the frame runs, none waits for one
  const int tasks = min(per_warp, g.M - mp0);
  double* beta_f = beta + static_cast<std::size_t>(f) * (g.N + 1) * g.M;
  if (i + 1 < g.N) {  // beta_{i+1} published
    const unsigned long long rows = g.N - 1 - i;
    while (device_counter(ready[f]).load(::cuda::memory_order_acquire) < rows) __nanosleep(64);
  }
  const long long rho = b.rho[f];
  for (int x = lane; x < tasks + W - 1; x += 32)
    window[x] = beta_at(g, beta_f, end_prior, rho, i + 1, mp0 + g.m_n_min + x);
  __syncwarp();
  const std::size_t v_at = (stored_index(g, f, i) * g.M + mp0) * g.q;
  gamma_warp_states<W, NoSub>(g, b, codewords, red, gsum, nullptr, f, i, mp0, tasks,
                              [&](int t, int D, bool lane_on, const float(&F)[W]) {
                                const double v = fold_beta<W>(window + t, F);
                                if (lane_on) V[v_at + static_cast<std::size_t>(t) * g.q + D] = v;
                              });
  // This item's gsum is out; the last item of (f, i) to finish computes beta_i.
  __threadfence();
  __syncwarp();
  unsigned long long before = 0;
  if (lane == 0) before = device_counter(done[f]).fetch_add(1, ::cuda::memory_order_acq_rel);
  before = __shfl_sync(0xffffffffu, before, 0);
  if (before + 1 != static_cast<unsigned long long>(chunks) * (g.N - i)) return;
  __threadfence();
  auto prev = [&](int m) { return beta_at(g, beta_f, end_prior, rho, i + 1, m); };
  if (i + 1 == g.N)
    for (int m = lane; m < g.M; m += 32) beta_f[static_cast<std::size_t>(g.N) * g.M + m] = prev(m);
  const double2* rows = reinterpret_cast<const double2*>(gsum + gsum_block(g, f, i) +
                                                         static_cast<std::size_t>(g.M) * g.Kp);
  beta_row<K>(
      g, b, f, i, end_prior, prev,
      [&](int m, int j) { return __ldcg(rows + static_cast<std::size_t>(m) * (g.Kp / 2) + j); },
      [&](int m, double v) { beta_f[static_cast<std::size_t>(i) * g.M + m] = v; });
  __threadfence();
  __syncwarp();
  if (lane == 0) device_counter(ready[f]).store(g.N - i, ::cuda::memory_order_release);
}

// The padding on either side of a beta row in gamma_beta_frame_kernel's shared memory: fold_beta
// reads up to m_n^+ <= W - 1 states past the row's end and -m_n^- <= W - 1 before it, beta_row up
// to m_n^+ + 3 past it (its K rounds W up to a multiple of 4). The padding stays zero.
__host__ __device__ constexpr int frame_row_pad(int W) {
  return W + 4;
}
// Dynamic shared memory of a gamma_beta_frame_kernel<W> block of `threads` threads: the backward
// gsum rows of one index (16-byte aligned, first), two rows of beta, the warps' sums over D.
__host__ __device__ constexpr std::size_t gamma_beta_frame_shared(int W, int threads, int M,
                                                                  int Kp) {
  return (static_cast<std::size_t>(M) * Kp +
          2 * (static_cast<std::size_t>(M) + 2 * frame_row_pad(W))) *
             sizeof(double) +
         gamma_warp_shared(W, threads);
}

// gamma_beta_frame_kernel<W, NoSub>: the same results as gamma_beta_kernel (gsum, V and every row
// of beta), with a block per frame (grid: frames) that runs the frame's indices i = N-1 down to 0
// on its own: warp w takes the `per_warp` states from w * per_warp, the block meets at a barrier,
// one warp computes beta_i in shared memory, and a second barrier releases index i - 1.
// Why: gamma_beta_kernel's items wait for their frame's beta row unless a round of items (one
// index of every frame) is long, which M_tau = 33 and a few thousand frames are not (measured
// 2-10% slower than the three kernels). Here nothing waits on another block, so the parts of a
// chunk pipeline as in the three-kernel path; but a frame's block runs for milliseconds, so a
// chunk needs several waves of blocks (fold_min_frames). The beta step reads shared memory only.
// Registers are capped so that 24 warps stay resident at W <= 11 (no spills, ptxas -v).
// Shared: gamma_beta_frame_shared(W, blockDim.x, M, Kp).
template <int W, bool NoSub>
__global__ void __launch_bounds__(policy::frame_max_threads)
    __maxnreg__(policy::fold_frames_max_registers(W))
        gamma_beta_frame_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                                double* V, double* gsum, double* beta, const double* end_prior,
                                int per_warp) {
  constexpr int K = (W + 3) / 4 * 4, P = frame_row_pad(W);
  extern __shared__ double frame_shared[];
  const int f = blockIdx.x;
  if (b.status[f] != status_ok) return;  // whole block
  const int warp = threadIdx.x >> 5;
  const int row_size = g.M + 2 * P;
  double* back = frame_shared;                                 // [M][Kp], entries k >= M_n zero
  double* rows = back + static_cast<std::size_t>(g.M) * g.Kp;  // two rows of beta, zero padded
  double* red = rows + 2 * row_size + warp * gamma_warp_doubles(W);
  for (int x = threadIdx.x; x < g.M * g.Kp + 2 * row_size; x += blockDim.x) back[x] = 0;
  __syncthreads();
  const long long rho = b.rho[f];
  double* beta_f = beta + static_cast<std::size_t>(f) * (g.N + 1) * g.M;
  for (int m = threadIdx.x; m < g.M; m += blockDim.x) {
    const double v = fb_start(g, false, m, rho, end_prior);
    rows[(g.N & 1) * row_size + P + m] = v;
    beta_f[static_cast<std::size_t>(g.N) * g.M + m] = v;
  }
  __syncthreads();
  const int mp0 = warp * per_warp, tasks = min(per_warp, g.M - mp0);
  for (int i = g.N - 1; i >= 0; --i) {
    const double* next = rows + ((i + 1) & 1) * row_size + P;  // beta_{i+1}
    double* cur = rows + (i & 1) * row_size + P;
    if (tasks > 0) {
      const std::size_t v_at = (stored_index(g, f, i) * g.M + mp0) * g.q;
      const double* window = next + mp0 + g.m_n_min;
      gamma_warp_states<W, NoSub>(g, b, codewords, red, gsum, back, f, i, mp0, tasks,
                                  [&](int t, int D, bool lane_on, const float(&F)[W]) {
                                    const double v = fold_beta<W>(window + t, F);
                                    if (lane_on)
                                      V[v_at + static_cast<std::size_t>(t) * g.q + D] = v;
                                  });
    }
    __syncthreads();  // the backward rows of index i are complete
    if (warp == 0) {
      const double2* rows2 = reinterpret_cast<const double2*>(back);
      beta_row<K>(
          g, b, f, i, end_prior, [&](int m) { return next[m]; },
          [&](int m, int j) { return rows2[m * (g.Kp / 2) + j]; },
          [&](int m, double v) {
            cur[m] = v;
            beta_f[static_cast<std::size_t>(i) * g.M + m] = v;
          });
    }
    __syncthreads();  // beta_i is out, and the backward rows may be overwritten
  }
}

}  // namespace gpufec::sync::cuda_detail
