// The three decode kernels (see cuda_kernels.cuh for the plan of work). All blocks are 1-D; the
// comment above each kernel gives the meaning of its indices and its shared memory.
#pragma once

#include <cuda_pipeline.h>

#include "sync/cuda_kernels.cuh"

namespace gpufec::sync::cuda_detail {

__device__ __forceinline__ double prior_of(const device_frames& b, const device_geometry& g, int f,
                                           int i, int D) {
  return b.priors ? b.priors[(static_cast<long long>(f) * g.N + i) * g.q + D] : 1.0 / g.q;
}

// gamma_kernel: grid (N * m_tiles, frames [, 1]); block Bx * By threads, thread t -> D lane
// tx = t % Bx (D = tx, tx + Bx, ...), state ty = t / Bx (m' = tile * By + ty).
// Shared: lattice rows real[row_len][T], then partial sums double[Mn][T].
// Writes gsum[f][i][k][m'] (k = delta - m_n^-) for every (m', delta) of the tile (0 where invalid;
// k-major so that alpha and beta read it coalesced) and, when
// `gamma` is non-null, R at gamma[f][i][m'][delta][D].
template <class real>
__global__ void gamma_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                             int Bx, int By, int m_tiles, real* gamma, double* gsum) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int T = blockDim.x, t = threadIdx.x, tx = t % Bx, ty = t / Bx;
  const int f = blockIdx.y, i = blockIdx.x / m_tiles, mp = (blockIdx.x % m_tiles) * By + ty;
  if (b.status[f] != status_ok) return;  // whole block: uniform
  real* row = reinterpret_cast<real*>(smem) + t;
  const std::size_t rows_bytes = (sizeof(real) * g.row_len * T + 15) & ~std::size_t(15);
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
    gsum[((static_cast<std::size_t>(f) * g.N + i) * g.Mn + k) * g.M + pmp] = s;
  }
}

// Biased exponent of a non-negative double (0 for zero and subnormals, 0x7ff for inf and NaN).
__device__ __forceinline__ int exponent_of(double v) {
  return static_cast<int>((__double_as_longlong(v) >> 52) & 0x7ff);
}

__device__ __forceinline__ int warp_max(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
#endif
}

// The power of two that brings the warp's largest value into [1, 2), from each lane's largest
// exponent; 0 when every value is zero or one is not finite (no probability left). Scaling by it
// is exact, and alpha and beta are only ever used up to a constant factor per row (L and lambda
// are normalized), so this replaces the division by the row sum without a reduction of sums.
__device__ __forceinline__ double warp_pow2_scale(int lane_exponent, bool lane_nonzero) {
  int e = warp_max(lane_exponent);
  if (e == 0x7ff) return 0.0;
  if (e == 0) {
    if (!__any_sync(0xffffffffu, lane_nonzero)) return 0.0;
    e = 1;  // only subnormals: 2^1022 brings them up exactly
  }
  e = min(e, 2045);
  return __longlong_as_double(static_cast<long long>(2046 - e) << 52);
}

constexpr int fb_ring = 4;  // gsum rows in flight in fb_kernel<K > 0>: prefetch distance 3

// fb_kernel: grid (frames, 2), one warp per block: blockIdx.y 0 runs alpha forward (4), (11)-(12),
// 1 runs beta backward (5), each looping over i with warp synchronization only; lane l handles
// states l, l + 32, ... alpha, beta: [f][i = 0..N][m], each row scaled by a power of two.
// K = 0: gsum read from global memory, bounds checked. K >= M_n (a multiple of 4): the sums run
// over a compile-time K drift changes with no bounds checks, from shared memory: two rows of M
// doubles with K zeros on each side, then a ring of fb_ring gsum rows (K * M doubles, the rows
// k >= M_n and K values on each side zero); rows i + 1 .. i + 3 are copied asynchronously
// (cp.async) while row i is used. The extra terms are exact zeros.
template <int K>
__global__ void fb_kernel(device_geometry g, device_frames b, const double* gsum, double* alpha,
                          double* beta, const double* end_prior) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int f = blockIdx.x, lane = threadIdx.x;
  if (b.status[f] != status_ok) return;
  const bool forward = blockIdx.y == 0;
  constexpr bool prefetch = K > 0;
  const int pad = prefetch ? K : g.Mn, stride = g.M + 2 * pad;
  const int row_values = g.Mn * g.M;  // drift ranges: far below 2^31
  const int ring_stride = K * g.M + 2 * pad;
  const double* gs = gsum + static_cast<std::size_t>(f) * g.N * row_values;
  double* out = (forward ? alpha : beta) + static_cast<std::size_t>(f) * (g.N + 1) * g.M;
  double* rows = reinterpret_cast<double*>(smem) + pad;  // rows[0][-pad .. M + pad)
  double* ring = rows - pad + 2 * stride + pad;          // ring[slot][-pad .. K * M + pad)
  for (int k = lane; k < 2 * stride; k += 32) rows[k - pad] = 0.0;
  if (prefetch)
    for (int k = lane; k < fb_ring * ring_stride; k += 32) ring[k - pad] = 0.0;
  __syncwarp();
  // The gsum row used at `step` (alpha: i = step, beta: i = N - 1 - step), into its ring slot.
  auto fetch = [&](int step) {
    if (step < g.N) {
      double* dst = ring + (step % fb_ring) * ring_stride;
      const double* src =
          gs + static_cast<std::size_t>(forward ? step : g.N - 1 - step) * row_values;
      for (int e = lane; e < row_values; e += 32)
        __pipeline_memcpy_async(dst + e, src + e, sizeof(double));
    }
    __pipeline_commit();  // possibly empty: keeps the group count uniform
  };
  auto fail = [&](int why) {
    if (lane == 0) atomicCAS(&b.status[f], status_ok, why);
  };
  // Scales a row (each lane's entries written by that lane) by the warp's power of two and stores
  // it as output row `index`; false when no probability is left.
  auto publish = [&](double* row, int index) {
    int e = 0;
    bool nonzero = false;
    for (int m = lane; m < g.M; m += 32) {
      e = max(e, exponent_of(row[m]));
      nonzero |= row[m] != 0;
    }
    const double scale = warp_pow2_scale(e, nonzero);
    if (scale == 0) return false;
    for (int m = lane; m < g.M; m += 32)
      out[static_cast<std::size_t>(index) * g.M + m] = row[m] *= scale;
    return true;
  };
  if (prefetch)
    for (int s = 0; s < fb_ring - 1; ++s) fetch(s);

  // alpha_0: drift 0; beta_N: the known end or the drift pmf prior.
  const long long rho = b.rho[f];
  for (int m = lane; m < g.M; m += 32) {
    const long long drift = g.lo + m;
    double v;
    if (forward)
      v = m == -g.lo ? 1.0 : 0.0;
    else if (g.end_known)
      v = drift == rho - g.tau ? 1.0 : 0.0;
    else
      v = g.tau + drift <= rho ? end_prior[m] : 0.0;
    rows[m] = v;
  }
  if (!publish(rows, forward ? 0 : g.N)) return fail(forward ? status_zero_forward : status_no_end);

  for (int step = 0; step < g.N; ++step) {
    const int i = forward ? step : g.N - 1 - step;  // the gsum row this step uses
    __syncwarp();  // the previous step is done with the row and ring slot refilled below
    if (prefetch) {
      fetch(step + fb_ring - 1);
      __pipeline_wait_prior(fb_ring - 1);
      __syncwarp();
    }
    const double* prev = rows + (step & 1) * stride;
    double* next = rows + ((step + 1) & 1) * stride;
    for (int m = lane; m < g.M; m += 32) {
      double v0 = 0, v1 = 0;  // two chains: half the latency of one
      if constexpr (prefetch) {
        const double* gi = ring + (step % fb_ring) * ring_stride;
        if (forward) {  // alpha_{i+1}(m) = sum over m' = m - delta of alpha_i(m') gsum(m', delta)
          const int base = m - g.clo;  // m' for k = 0; out-of-range m' meet a zero in prev
#pragma unroll
          for (int k = 0; k < K; k += 2) {
            v0 += prev[base - k] * gi[k * g.M + base - k];
            v1 += prev[base - k - 1] * gi[(k + 1) * g.M + base - k - 1];
          }
        } else {  // beta_i(m') = sum over m = m' + delta of gsum(m', delta) beta_{i+1}(m)
          const int base = m + g.clo;
#pragma unroll
          for (int k = 0; k < K; k += 2) {
            v0 += gi[k * g.M + m] * prev[base + k];
            v1 += gi[(k + 1) * g.M + m] * prev[base + k + 1];
          }
        }
      } else {
        const double* gi = gs + static_cast<std::size_t>(i) * row_values;
        for (int k = 0; k < g.Mn; ++k) {
          if (forward) {
            const int mp = m - (g.clo + k);
            if (mp >= 0 && mp < g.M) v0 += prev[mp] * gi[static_cast<std::size_t>(k) * g.M + mp];
          } else {
            const int mm = m + g.clo + k;
            if (mm >= 0 && mm < g.M) v0 += gi[static_cast<std::size_t>(k) * g.M + m] * prev[mm];
          }
        }
      }
      next[m] = v0 + v1;
    }
    if (!publish(next, forward ? i + 1 : i))
      return fail(forward ? status_zero_forward : status_zero_backward);
  }
}

// app_kernel: grid (N, frames); block Bx * Bz threads: D lane tx = t % Bx (D = tx, tx + Bx, ...),
// state group tz = t / Bx (m' = tz, tz + Bz, ...). Shared: acc double[Bz][q], the rows alpha_i and
// beta_{i+1} (double[M] each), then (local storage) lattice rows real[row_len][T]. With `gamma`
// null the lattices are run again (local storage). Writes app[f][i][D] (normalized),
// decisions[f][i], lambda[f][i][m] (and lambda[f][N] from the last block).
template <class real>
__global__ void app_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                           int Bx, int Bz, const real* gamma, const double* alpha,
                           const double* beta, double* app, std::uint32_t* decisions,
                           double* lambda) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ double scratch[32];
  const int T = blockDim.x, t = threadIdx.x, tx = t % Bx, tz = t / Bx;
  const int i = blockIdx.x, f = blockIdx.y;
  if (b.status[f] != status_ok) return;
  double* acc = reinterpret_cast<double*>(smem);
  double* sa = acc + Bz * g.q;  // alpha_i
  double* sb = sa + g.M;        // beta_{i+1}
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

  for (int D = tx; D < g.q; D += Bx) {
    double sum = 0;
    if (tz < Bz) {
      const std::uint32_t x = gamma ? 0u : codewords[static_cast<std::size_t>(i) * g.q + D];
      for (int mp = tz; mp < g.M; mp += Bz) {
        const double am = sa[mp];
        if (am == 0) continue;
        if (gamma) {  // stored R is 0 outside each segment's drift changes: no segment needed
          const real* R =
              gamma + (((static_cast<std::size_t>(f) * g.N + i) * g.M + mp) * g.Mn) * g.q + D;
          const int k0 = max(0, -(mp + g.clo)), k1 = min(g.Mn, g.M - mp - g.clo);
          for (int k = k0; k < k1; ++k)
            sum +=
                am * sb[mp + g.clo + k] * static_cast<double>(R[static_cast<std::size_t>(k) * g.q]);
          continue;
        }
        const device_segment s = segment_of(g, i, mp, rho);
        if (s.d0 > s.d1) continue;
        run_lattice<real>(g, x, b.y + b.offsets[f] + s.start, s.mu, row, T);
        for (int delta = s.d0; delta <= s.d1; ++delta)
          sum += am * sb[mp + delta] * static_cast<double>(row[(delta - g.row_min) * T]);
      }
      acc[tz * g.q + D] = sum;
    }
  }
  __syncthreads();
  // L(D) = Pr{D} sum over groups (in group order), then normalize over D and take the argmax.
  double local = 0;
  for (int D = t; D < g.q; D += T) {
    double s = 0;
    for (int z = 0; z < Bz; ++z) s += acc[z * g.q + D];
    acc[D] = s * prior_of(b, g, f, i, D);
    local += acc[D];
  }
  const double total = block_sum(local, scratch);
  if (!(total > 0) || !isfinite(total)) {
    if (t == 0) atomicCAS(&b.status[f], status_ok, status_zero_app);
    return;
  }
  double* out = app + (static_cast<std::size_t>(f) * g.N + i) * g.q;
  for (int D = t; D < g.q; D += T) out[D] = acc[D] / total;
  __syncthreads();
  if (t == 0) {  // argmax, lowest D on ties (as the CPU); q reads from global, once per block
    int best = 0;
    for (int D = 1; D < g.q; ++D)
      if (out[D] > out[best]) best = D;
    decisions[static_cast<std::size_t>(f) * g.N + i] = static_cast<std::uint32_t>(best);
  }
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
