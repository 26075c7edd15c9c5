// The three decode kernels (see cuda_kernels.cuh for the plan of work). All blocks are 1-D; the
// comment above each kernel gives the meaning of its indices and its shared memory.
#pragma once

#include "sync/cuda_kernels.cuh"

namespace gpufec::sync::cuda_detail {

__device__ __forceinline__ double prior_of(const device_frames& b, const device_geometry& g, int f,
                                           int i, int D) {
  return b.priors ? b.priors[(static_cast<long long>(f) * g.N + i) * g.q + D] : 1.0 / g.q;
}

// gamma_kernel: grid (N * m_tiles, frames [, 1]); block Bx * By threads, thread t -> D lane
// tx = t % Bx (D = tx, tx + Bx, ...), state ty = t / Bx (m' = tile * By + ty).
// Shared: lattice rows real[row_len][T], then partial sums double[Mn][T].
// Writes gsum[f][i][m'][delta] for every (m', delta) of the tile (0 where invalid) and, when
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
    gsum[((static_cast<std::size_t>(f) * g.N + i) * g.M + pmp) * g.Mn + k] = s;
  }
}

// fb_kernel: grid (frames, 2); blockIdx.y 0 runs alpha forward, 1 runs beta backward, each a
// persistent block looping over i; thread t handles states m = t, t + T, ...
// Shared: 32 doubles of reduction scratch. alpha, beta: [f][i = 0..N][m].
__global__ void fb_kernel(device_geometry g, device_frames b, const double* gsum, double* alpha,
                          double* beta, const double* end_prior) {
  __shared__ double scratch[32];
  const int f = blockIdx.x, T = blockDim.x, t = threadIdx.x;
  if (b.status[f] != status_ok) return;
  const std::size_t rows = static_cast<std::size_t>(g.N + 1) * g.M;
  const double* gs = gsum + static_cast<std::size_t>(f) * g.N * g.M * g.Mn;
  const long long rho = b.rho[f];
  auto normalize = [&](double* v, double partial_sum, int failure) {
    const double total = block_sum(partial_sum, scratch);
    if (!(total > 0) || !isfinite(total)) {
      if (t == 0) atomicCAS(&b.status[f], status_ok, failure);
      return false;
    }
    const double inv = 1.0 / total;
    for (int m = t; m < g.M; m += T) v[m] *= inv;
    return true;
  };
  if (blockIdx.y == 0) {
    double* a = alpha + f * rows;
    for (int m = t; m < g.M; m += T) a[m] = (m == -g.lo) ? 1.0 : 0.0;
    __syncthreads();
    for (int i = 0; i < g.N; ++i) {
      const double* prev = a + static_cast<std::size_t>(i) * g.M;
      double* next = a + static_cast<std::size_t>(i + 1) * g.M;
      const double* gi = gs + static_cast<std::size_t>(i) * g.M * g.Mn;
      double local = 0;
      for (int m = t; m < g.M; m += T) {
        double v = 0;
        for (int k = 0; k < g.Mn; ++k) {  // m = m' + delta
          const int mp = m - (g.clo + k);
          if (mp >= 0 && mp < g.M) v += prev[mp] * gi[static_cast<std::size_t>(mp) * g.Mn + k];
        }
        next[m] = v;
        local += v;
      }
      if (!normalize(next, local, status_zero_forward)) return;
      __syncthreads();
    }
  } else {
    double* bt = beta + f * rows;
    double* bN = bt + static_cast<std::size_t>(g.N) * g.M;
    double s = 0;
    for (int m = t; m < g.M; m += T) {
      const long long drift = g.lo + m;
      double v;
      if (g.end_known)
        v = drift == rho - g.tau ? 1.0 : 0.0;
      else
        v = g.tau + drift <= rho ? end_prior[m] : 0.0;
      s += bN[m] = v;
    }
    if (!normalize(bN, s, status_no_end)) return;
    __syncthreads();
    for (int i = g.N - 1; i >= 0; --i) {
      const double* next = bt + static_cast<std::size_t>(i + 1) * g.M;
      double* cur = bt + static_cast<std::size_t>(i) * g.M;
      const double* gi = gs + static_cast<std::size_t>(i) * g.M * g.Mn;
      double local = 0;
      for (int mp = t; mp < g.M; mp += T) {
        double v = 0;
        for (int k = 0; k < g.Mn; ++k) {
          const int m = mp + g.clo + k;
          if (m >= 0 && m < g.M) v += gi[static_cast<std::size_t>(mp) * g.Mn + k] * next[m];
        }
        cur[mp] = v;
        local += v;
      }
      if (!normalize(cur, local, status_zero_backward)) return;
      __syncthreads();
    }
  }
}

// app_kernel: grid (N, frames); block Bx * Bz threads: D lane tx = t % Bx (D = tx, tx + Bx, ...),
// state group tz = t / Bx (m' = tz, tz + Bz, ...). Shared: acc double[Bz][q], then (local storage)
// lattice rows real[row_len][T]. With `gamma` null the lattices are run again (local storage).
// Writes app[f][i][D] (normalized), decisions[f][i], lambda[f][i][m] (and lambda[f][N] from the
// last block).
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
  real* row = reinterpret_cast<real*>(smem + sizeof(double) * Bz * g.q) + t;
  const std::size_t rows = static_cast<std::size_t>(g.N + 1) * g.M;
  const double* a = alpha + f * rows + static_cast<std::size_t>(i) * g.M;
  const double* b1 = beta + f * rows + static_cast<std::size_t>(i + 1) * g.M;
  const long long rho = b.rho[f];

  for (int D = tx; D < g.q; D += Bx) {
    double sum = 0;
    if (tz < Bz) {
      const std::uint32_t x = codewords[static_cast<std::size_t>(i) * g.q + D];
      for (int mp = tz; mp < g.M; mp += Bz) {
        if (a[mp] == 0) continue;
        const device_segment s = segment_of(g, i, mp, rho);
        if (s.d0 > s.d1) continue;
        if (!gamma) run_lattice<real>(g, x, b.y + b.offsets[f] + s.start, s.mu, row, T);
        for (int delta = s.d0; delta <= s.d1; ++delta) {
          const double w = a[mp] * b1[mp + delta];
          if (w == 0) continue;
          const real r =
              gamma ? gamma[((((static_cast<std::size_t>(f) * g.N + i) * g.M + mp) * g.Mn) +
                             (delta - g.clo)) *
                                g.q +
                            D]
                    : row[(delta - g.row_min) * T];
          sum += w * static_cast<double>(r);
        }
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
  // Drift posterior at this boundary (and at N from the last block).
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
