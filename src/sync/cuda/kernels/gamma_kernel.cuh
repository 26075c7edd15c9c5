// gamma_kernel, the general gamma kernel: any lattice (corridor or full), float or double, any q
// and M_n (gamma_warp_kernel.cuh holds the fast one for the common geometry). The plan of work of
// the whole decoder is in device_geometry.cuh.
#pragma once

#include "sync/cuda/kernels/device_geometry.cuh"

namespace gpufec::sync::cuda_detail {

// gamma_kernel: grid (N * m_tiles, frames [, 1]); block Bx * By threads, thread t -> D lane
// tx = t % Bx (D = tx, tx + Bx, ...), state ty = t / Bx (m' = tile * By + ty).
// Shared: lattice rows real[row_len][T], then partial sums double[Mn][T].
// Writes gsum(k, m') (k = delta - m_n^-; see gsum_block) for every (m', delta) of the tile (0
// where invalid) and, when `gamma_out` is non-null, R at gamma[f][i][m'][delta][D] (real-typed:
// both instantiations share one signature, so one table entry serves the plan and the launch).
template <class real>
__global__ void gamma_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                             int Bx, int By, int m_tiles, void* gamma_out, double* gsum) {
  extern __shared__ __align__(16) unsigned char smem[];
  real* const gamma = static_cast<real*>(gamma_out);
  const int T = blockDim.x, t = threadIdx.x, tx = t % Bx, ty = t / Bx;
  const int f = blockIdx.y, i = g.index0 + blockIdx.x / m_tiles;
  const int mp = (blockIdx.x % m_tiles) * By + ty;
  // Only skipped frames: in local storage a frame's L may fail before its backward pass has
  // reported why (a lower code), and that pass needs gamma to find it.
  if (b.status[f] == status_skip) return;  // whole block: uniform
  real* row = reinterpret_cast<real*>(smem) + t;
  const std::size_t rows_bytes = align16(sizeof(real) * g.row_len * T);
  double* partial = reinterpret_cast<double*>(smem + rows_bytes) + t;
  for (int k = 0; k < g.Mn; ++k) partial[k * T] = 0.0;

  const long long rho = b.rho[f];
  const std::size_t block_ofs = (stored_index(g, f, i) * g.M + mp) * g.Mn;
  if (ty < By && mp < g.M) {
    const device_segment s = segment_of(g, i, mp, rho);
    const std::uint8_t* y = b.y + b.offsets[f] + s.start;
    for (int D = tx; D < g.q; D += Bx) {
      const bool valid = s.d0 <= s.d1;
      if (valid)
        run_lattice<real>(g, codewords[static_cast<std::size_t>(i) * g.q + D], y, s.mu, row, T);
      const double p = prior_of(b, g, f, i, D);
      for (int k = 0; k < g.Mn; ++k) {
        const int delta = g.m_n_min + k;
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
    store_gsum(g, gsum + gsum_block(g, f, i), k, pmp, s);
  }
}

}  // namespace gpufec::sync::cuda_detail
