// The three decode kernels (see cuda_kernels.cuh for the plan of work). All blocks are 1-D; the
// comment above each kernel gives the meaning of its indices and its shared memory.
#pragma once

#include <cuda_pipeline.h>

#include "sync/cuda_kernels.cuh"

namespace gpufec::sync::cuda_detail {

// gamma_kernel: grid (N * m_tiles, frames [, 1]); block Bx * By threads, thread t -> D lane
// tx = t % Bx (D = tx, tx + Bx, ...), state ty = t / Bx (m' = tile * By + ty).
// Shared: lattice rows real[row_len][T], then partial sums double[Mn][T].
// Writes gsum[f][i][k][m'] (k = delta - m_n^-) for every (m', delta) of the tile (0 where invalid;
// k-major so that alpha and beta read it without bank conflicts) and, when `gamma` is non-null,
// R at gamma[f][i][m'][delta][D].
template <class real>
__global__ void gamma_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                             int Bx, int By, int m_tiles, real* gamma, double* gsum) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int T = blockDim.x, t = threadIdx.x, tx = t % Bx, ty = t / Bx;
  const int f = blockIdx.y, i = blockIdx.x / m_tiles, mp = (blockIdx.x % m_tiles) * By + ty;
  if (b.status[f] != status_ok) return;  // whole block: uniform
  real* row = reinterpret_cast<real*>(smem) + t;
  const std::size_t rows_bytes = align16(sizeof(real) * g.row_len * T);
  double* partial = reinterpret_cast<double*>(smem + rows_bytes) + t;
  for (int k = 0; k < g.Mn; ++k) partial[k * T] = 0.0;

  const long long rho = b.rho[f];
  const std::size_t block_ofs = ((static_cast<std::size_t>(f) * g.N + i) * g.M + mp) * g.Mn;
  if (ty < By && mp < g.M) {
    const device_segment s = segment_of(g, i, mp, rho);
    const std::uint8_t* y = b.y + b.offsets[f] + s.start;
    for (int D = tx; D < g.q; D += Bx) {
      const bool valid = s.d0 <= s.d1;
      if (valid)
        run_lattice<real>(g, codewords[static_cast<std::size_t>(i) * g.q + D], y, s.mu, row, T);
      const double p = prior_of(b, g, f, i, D);
      for (int k = 0; k < g.Mn; ++k) {
        const int delta = g.clo + k;
        const real r =
            valid && delta >= s.d0 && delta <= s.d1 ? row[(delta - g.row_min) * T] : real(0);
        if (gamma) gamma[(block_ofs + k) * g.q + D] = r;
        partial[k * T] += p * static_cast<double>(r);
      }
    }
  }
  __syncthreads();
  // Reduce over the D lanes of each (m', delta), lanes in order: deterministic.
  double* all = partial - t;
  for (int pair = t; pair < By * g.Mn; pair += T) {
    const int py = pair / g.Mn, k = pair % g.Mn;
    const int pmp = (blockIdx.x % m_tiles) * By + py;
    if (pmp >= g.M) continue;
    double s = 0;
    for (int lane = 0; lane < Bx; ++lane) s += all[k * T + py * Bx + lane];
    gsum[gsum_block(g, f, i) + k * g.M + pmp] = s;
  }
}

// Biased exponent of a non-negative double (0 for subnormals, 0x7ff for inf and NaN), or -1 for
// zero: the magnitude a row's scale is chosen from.
__device__ __forceinline__ int magnitude_of(double v) {
  return v == 0 ? -1 : static_cast<int>((__double_as_longlong(v) >> 52) & 0x7ff);
}

__device__ __forceinline__ int warp_max(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
#endif
}

// The power of two that brings a row whose largest magnitude is `e` into [1, 2); 0 when the row is
// all zero (e = -1) or not finite (e = 0x7ff): no probability left. Scaling by it is exact, and
// alpha and beta are only ever used up to a constant factor per row (L and lambda are
// normalized), so it replaces the division by the row sum without a reduction of sums.
__device__ __forceinline__ double pow2_scale(int e) {
  if (e < 0 || e == 0x7ff) return 0.0;
  e = min(max(e, 1), 2045);  // only subnormals: 2^1022 brings them up exactly
  return __longlong_as_double(static_cast<long long>(2046 - e) << 52);
}

constexpr int fb_ring = 4;  // gsum rows in flight in fb_kernel<K > 0>: prefetch distance 3

// The gsum row ring of fb_kernel<K > 0>: row `step` goes to slot step % fb_ring. On sm_90 one
// thread copies a whole row with a bulk (TMA) copy that completes a shared-memory barrier, which
// every thread then waits on: no per-thread copy instructions in the sequential loop. Before
// sm_90 every thread copies its share with cp.async and waits for it before the block barrier.
struct gsum_ring {
  double* slots;  // fb_ring slots of `stride` doubles
  int stride;
  std::uint64_t* full;  // fb_ring barriers (sm_90)

  __device__ static unsigned smem_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
  }
  __device__ double* slot(int step) const { return slots + (step % fb_ring) * stride; }
  // Called by every thread before the barriers are used (then __syncthreads).
  __device__ void init(bool producer) const {
#if __CUDA_ARCH__ >= 900
    if (producer) {
      for (int s = 0; s < fb_ring; ++s)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(full + s)));
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
#endif
  }
  // Starts the copy of `values` doubles (16-byte aligned, a multiple of 2) into slot `step`; on
  // sm_90 the `producer` thread issues it, before sm_90 every thread copies a share.
  __device__ void fetch(int step, const double* src, int values, bool producer) const {
    double* dst = slot(step);
#if __CUDA_ARCH__ >= 900
    if (producer) {
      const unsigned bar = smem_address(full + step % fb_ring), bytes = values * 8u;
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                   : "memory");
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
          "[%3];" ::"r"(smem_address(dst)),
          "l"(src), "r"(bytes), "r"(bar)
          : "memory");
    }
#else
    for (int e = threadIdx.x; e < values; e += blockDim.x)
      __pipeline_memcpy_async(dst + e, src + e, sizeof(double));
#endif
  }
  // Closes the copies of one step (cp.async: one group per step, possibly empty, for all rings).
  __device__ static void commit() {
#if __CUDA_ARCH__ < 900
    __pipeline_commit();
#endif
  }
  // This thread's part of every ring's next row has landed (before the barrier that publishes it).
  __device__ static void landed_before_barrier() {
#if __CUDA_ARCH__ < 900
    __pipeline_wait_prior(fb_ring - 2);
#endif
  }
  // Row `step` is visible to this thread (after that barrier).
  __device__ void landed_after_barrier(int step) const {
#if __CUDA_ARCH__ >= 900
    const unsigned bar = smem_address(full + step % fb_ring), parity = (step / fb_ring) & 1;
    asm volatile(
        "{\n .reg .pred done;\n wait_%=:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        " @!done bra wait_%=;\n}" ::"r"(bar),
        "r"(parity)
        : "memory");
#endif
  }
  // Before an early exit: no copy may still be writing into the block's shared memory.
  __device__ void drain(int first, int last) const {
#if __CUDA_ARCH__ >= 900
    for (int s = first; s <= last; ++s) landed_after_barrier(s);
#else
    __pipeline_wait_prior(0);
#endif
  }
};

// fb_kernel: grid (frames, 2), one block per (frame, direction): blockIdx.y 0 runs alpha forward
// (4), (11)-(12), 1 runs beta backward (5), looping over i with one barrier per step; thread t
// handles states t, t + Tc, ... where Tc = T, or T - 32 with prefetching: then the last warp is
// the producer that issues the copies, off the critical path of the others.
// alpha, beta: [f][i = 0..N][m], each row up to a power of two.
// The scale is lagged so that it costs no extra barrier: step i multiplies its sums by the power
// of two that brings row i (as stored) into [1, 2), from per-warp maxima of the exponents that
// step i - 1 left in shared memory; stored rows thus stay within about [2^-1022, 2K]. A row with
// no probability left is detected one step later, off the critical path.
// gsum is read as [i][k][m'] (k >= M_n zero). K = 0: from global memory, bounds checked.
// K = Kg: from shared memory, with no bounds checks over a compile-time K: two rows of M doubles
// with K zeros on each side, then a ring of fb_ring gsum blocks (K rows of M, K zeros on each
// side; see gsum_ring): blocks i + 1 .. i + 3 are copied while block i is used. An m' out of
// range reads a zero in the row (and a finite neighbour in the block): every extra term is zero.
template <int K>
__global__ void fb_kernel(device_geometry g, device_frames b, const double* gsum, double* alpha,
                          double* beta, const double* end_prior) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int magnitude[2][32];  // [parity][warp]: largest magnitude_of() of a row
  __shared__ std::uint64_t ring_full[fb_ring];
  const int f = blockIdx.x, t = threadIdx.x, T = blockDim.x, warp = t >> 5;
  if (b.status[f] != status_ok) return;
  const bool forward = blockIdx.y == 0;
  constexpr bool prefetch = K > 0;
  const int Tc = prefetch ? T - 32 : T;  // threads with states
  const bool producer = t == Tc;
  const int pad = prefetch ? K : g.Mn, stride = g.M + 2 * pad;
  const double* gs = gsum + gsum_block(g, f, 0);
  double* out = (forward ? alpha : beta) + static_cast<std::size_t>(f) * (g.N + 1) * g.M;
  double* rows = reinterpret_cast<double*>(smem) + pad;  // rows[parity][-pad .. M + pad)
  const int slot_size = g.gsum_stride + 2 * pad;
  const gsum_ring ring{rows - pad + 2 * stride + pad, slot_size, ring_full};
  for (int k = t; k < 2 * stride; k += T) rows[k - pad] = 0.0;
  if (prefetch) {  // zeros around the part of each slot the copies write (no overlap)
    for (int k = t; k < fb_ring * slot_size; k += T) {
      const int at = k % slot_size - pad;
      if (at < 0 || at >= g.gsum_stride) ring.slots[k - pad] = 0.0;
    }
    ring.init(producer);
  }
  __syncthreads();
  // The gsum block used at `step` (alpha: i = step, beta: i = N - 1 - step), into its slot.
  auto fetch = [&](int step) {
    if (step < g.N)
      ring.fetch(step,
                 gs + static_cast<std::size_t>(forward ? step : g.N - 1 - step) * g.gsum_stride,
                 g.gsum_stride, producer);
    gsum_ring::commit();
  };
  auto publish = [&](int parity, int e) {
    e = warp_max(e);
    if ((t & 31) == 0) magnitude[parity][warp] = e;
  };
  // The scale of a row from its warps' magnitudes (the same in every thread: uniform exits).
  auto scale_of = [&](int parity) {
    const int lane = t & 31;
    return pow2_scale(warp_max(lane < (T + 31) / 32 ? magnitude[parity][lane] : -1));
  };
  auto fail = [&](int why, int first_pending) {
    if (prefetch) ring.drain(first_pending, min(first_pending + fb_ring - 2, g.N - 1));
    if (t == 0) atomicCAS(&b.status[f], status_ok, why);
  };
  if (prefetch)
    for (int s = 0; s < fb_ring - 1; ++s) fetch(s);

  // alpha_0: drift 0; beta_N: the known end or the drift pmf prior.
  const long long rho = b.rho[f];
  int e = -1;
  for (int m = t; t < Tc && m < g.M; m += Tc) {
    const long long drift = g.lo + m;
    double v;
    if (forward)
      v = m == -g.lo ? 1.0 : 0.0;
    else if (g.end_known)
      v = drift == rho - g.tau ? 1.0 : 0.0;
    else
      v = g.tau + drift <= rho ? end_prior[m] : 0.0;
    rows[m] = v;
    out[static_cast<std::size_t>(forward ? 0 : g.N) * g.M + m] = v;
    e = max(e, magnitude_of(v));
  }
  publish(0, e);
  if (prefetch) gsum_ring::landed_before_barrier();

  // alpha_{i+1}(m) = sum over m' = m - delta of alpha_i(m') gsum(delta, m'), m' = m - clo - k;
  // beta_i(m) = sum over m + delta of gsum(delta, m) beta_{i+1}(m + delta), m + clo + k. The
  // offsets of gsum(k, .) in a block, fixed over the steps, are kept (no address chains per step).
  int off[prefetch ? K : 1];
  if constexpr (prefetch)
#pragma unroll
    for (int k = 0; k < K; ++k) off[k] = k * (forward ? g.M - 1 : g.M);
  const int zero_status = forward ? status_zero_forward : status_zero_backward;
  double* out_row = out + static_cast<std::size_t>(forward ? 1 : g.N - 1) * g.M;
  const std::ptrdiff_t out_step = forward ? g.M : -g.M;
  for (int step = 0; step < g.N; ++step, out_row += out_step) {
    __syncthreads();  // row `step`, its magnitudes and this thread's ring copies are published
    const double scale = scale_of(step & 1);
    if (prefetch) {
      fetch(step + fb_ring - 1);  // into the slot step - 1 used
      ring.landed_after_barrier(step);
    }
    const double* prev = rows + (step & 1) * stride;
    double* next = rows + ((step + 1) & 1) * stride;
    e = -1;
    for (int m = t; t < Tc && m < g.M; m += Tc) {
      double v0 = 0, v1 = 0, v2 = 0, v3 = 0;  // four chains: a quarter of the latency of one
      if constexpr (prefetch) {
        const double* gi = ring.slot(step);
        if (forward) {
          const double* pr = prev + (m - g.clo);
          const double* gr = gi + (m - g.clo);  // gsum(k, m') at gr[k (M - 1)]
#pragma unroll
          for (int k = 0; k < K; k += 4) {
            v0 += pr[-k] * gr[off[k]];
            v1 += pr[-k - 1] * gr[off[k + 1]];
            v2 += pr[-k - 2] * gr[off[k + 2]];
            v3 += pr[-k - 3] * gr[off[k + 3]];
          }
        } else {
          const double* pr = prev + (m + g.clo);
          const double* gr = gi + m;
#pragma unroll
          for (int k = 0; k < K; k += 4) {
            v0 += gr[off[k]] * pr[k];
            v1 += gr[off[k + 1]] * pr[k + 1];
            v2 += gr[off[k + 2]] * pr[k + 2];
            v3 += gr[off[k + 3]] * pr[k + 3];
          }
        }
      } else {
        const int i = forward ? step : g.N - 1 - step;
        const double* gi = gs + static_cast<std::size_t>(i) * g.gsum_stride;
        for (int k = 0; k < g.Mn; ++k) {
          if (forward) {
            const int mp = m - (g.clo + k);
            if (mp >= 0 && mp < g.M) v0 += prev[mp] * gi[k * g.M + mp];
          } else {
            const int mm = m + g.clo + k;
            if (mm >= 0 && mm < g.M) v0 += gi[k * g.M + m] * prev[mm];
          }
        }
      }
      const double v = ((v0 + v1) + (v2 + v3)) * scale;
      next[m] = out_row[m] = v;
      e = max(e, magnitude_of(v));
    }
    publish((step + 1) & 1, e);
    if (scale == 0)  // row `step` had no probability left: this step's row is void
      return fail(step == 0 && !forward ? status_no_end : zero_status, step + 1);
    if (prefetch) gsum_ring::landed_before_barrier();
  }
  __syncthreads();
  if (scale_of(g.N & 1) == 0) fail(zero_status, g.N);
}

// app_kernel: grid (N, frames); block Bx * Bz threads: D lane tx = t % Bx (D = tx, tx + Bx, ...),
// thread row tz = t / Bx. The states are split into G groups (m' = z, z + G, ...; G fixed by the
// geometry, Bz <= G), thread row tz sums groups tz, tz + Bz, ..., and the groups are added in
// order z = 0..G-1: the summation order, and so every digit, is the same for any block shape.
// Shared: acc double[G][q], the rows alpha_i and beta_{i+1} (double[M] each), then (local storage)
// lattice rows real[row_len][T]. `stored`: R is read from `gamma` (real values, global
// storage); else the lattices are run again (local storage), which costs registers the stored
// variant does not need. VW: symbols per thread and load (4: stored float R with q % 4 == 0, one
// 16-byte load per (m', delta); else 1). Writes app[f][i][D] (normalized), decisions[f][i],
// lambda[f][i][m] (and lambda[f][N] from the last block).
template <class real, bool stored, int VW>
__global__ void app_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                           int Bx, int Bz, int G, const void* gamma, const double* alpha,
                           const double* beta, double* app, std::uint32_t* decisions,
                           double* lambda) {
  static_assert(VW == 1 || (VW == 4 && stored && sizeof(real) == 4), "16-byte loads of float R");
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ double scratch[32];
  const int T = blockDim.x, t = threadIdx.x, tx = t % Bx, tz = t / Bx;
  const int i = blockIdx.x, f = blockIdx.y;
  if (b.status[f] != status_ok) return;
  double* acc = reinterpret_cast<double*>(smem);
  double* sa = acc + G * g.q;  // alpha_i
  double* sb = sa + g.M;       // beta_{i+1}
  real* row = reinterpret_cast<real*>(sb + g.M) + t;
  const std::size_t rows = static_cast<std::size_t>(g.N + 1) * g.M;
  const double* a = alpha + f * rows + static_cast<std::size_t>(i) * g.M;
  const double* b1 = beta + f * rows + static_cast<std::size_t>(i + 1) * g.M;
  const long long rho = b.rho[f];
  for (int m = t; m < g.M; m += T) {
    sa[m] = a[m];
    sb[m] = b1[m];
  }
  __syncthreads();

  // Thread column tx takes VW consecutive symbols D at a time (one 16-byte load of R for VW = 4);
  // each D's sum runs over the same terms in the same order for any VW and shape.
  for (int D = tx * VW; D < g.q; D += Bx * VW) {  // the block has exactly Bx * Bz threads
    const std::uint32_t x = stored ? 0u : codewords[static_cast<std::size_t>(i) * g.q + D];
    for (int z = tz; z < G; z += Bz) {
      double sum[VW] = {};
      for (int mp = z; mp < g.M; mp += G) {
        const double am = sa[mp];
        if (am == 0) continue;
        if constexpr (stored) {  // R is 0 outside each segment's drift changes: no segment needed
          const real* R = static_cast<const real*>(gamma) +
                          (((static_cast<std::size_t>(f) * g.N + i) * g.M + mp) * g.Mn) * g.q + D;
          const int k0 = max(0, -(mp + g.clo)), k1 = min(g.Mn, g.M - mp - g.clo);
          for (int k = k0; k < k1; ++k) {
            const double w = am * sb[mp + g.clo + k];
            alignas(16) real r[VW];
            if constexpr (VW == 4)
              *reinterpret_cast<float4*>(r) =
                  *reinterpret_cast<const float4*>(R + static_cast<std::size_t>(k) * g.q);
            else
              r[0] = R[static_cast<std::size_t>(k) * g.q];
#pragma unroll
            for (int j = 0; j < VW; ++j) sum[j] += w * static_cast<double>(r[j]);
          }
        } else {
          const device_segment s = segment_of(g, i, mp, rho);
          if (s.d0 > s.d1) continue;
          run_lattice<real>(g, x, b.y + b.offsets[f] + s.start, s.mu, row, T);
          for (int delta = s.d0; delta <= s.d1; ++delta)
            sum[0] += am * sb[mp + delta] * static_cast<double>(row[(delta - g.row_min) * T]);
        }
      }
#pragma unroll
      for (int j = 0; j < VW; ++j) acc[z * g.q + D + j] = sum[j];
    }
  }
  __syncthreads();
  // L(D) = Pr{D} sum over groups (in group order), then normalize over D and take the argmax.
  double local = 0;
  for (int D = t; D < g.q; D += T) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // four chains, added in a fixed order
    int z = 0;
    for (; z + 4 <= G; z += 4) {
      s0 += acc[z * g.q + D];
      s1 += acc[(z + 1) * g.q + D];
      s2 += acc[(z + 2) * g.q + D];
      s3 += acc[(z + 3) * g.q + D];
    }
    for (; z < G; ++z) s0 += acc[z * g.q + D];
    const double s = (s0 + s1) + (s2 + s3);
    acc[D] = s * prior_of(b, g, f, i, D);
    local += acc[D];
  }
  const double total = block_sum(local, scratch);
  if (!(total > 0) || !isfinite(total)) {
    if (t == 0) atomicCAS(&b.status[f], status_ok, status_zero_app);
    return;
  }
  double* out = app + (static_cast<std::size_t>(f) * g.N + i) * g.q;
  double best = -1;  // this thread's argmax over its D (ascending: the lowest D on ties)
  int best_D = 0;
  for (int D = t; D < g.q; D += T) {
    const double v = acc[D] / total;
    out[D] = v;
    if (v > best) {
      best = v;
      best_D = D;
    }
  }
  best_D = block_argmax(best, best_D, scratch);
  if (t == 0) decisions[static_cast<std::size_t>(f) * g.N + i] = static_cast<std::uint32_t>(best_D);
  // Drift posterior at this boundary (and at N from the last block), when asked for.
  if (!lambda) return;
  for (int which = i; which <= (i == g.N - 1 ? g.N : i); ++which) {
    const double* av = alpha + f * rows + static_cast<std::size_t>(which) * g.M;
    const double* bv = beta + f * rows + static_cast<std::size_t>(which) * g.M;
    double* lv = lambda + f * rows + static_cast<std::size_t>(which) * g.M;
    double s = 0;
    for (int m = t; m < g.M; m += T) s += av[m] * bv[m];
    const double tot = block_sum(s, scratch);
    for (int m = t; m < g.M; m += T) lv[m] = tot > 0 ? av[m] * bv[m] / tot : 0.0;
  }
}

}  // namespace gpufec::sync::cuda_detail
