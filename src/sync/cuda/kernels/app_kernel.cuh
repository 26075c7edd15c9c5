// app_kernel: the APPs L_i(D) (1)-(3), the hard decisions and the drift posterior lambda_i, one
// block per (frame, i), from stored R, from the lattices run again, or from V of the folded path
// (the plan of work is in device_geometry.cuh).
#pragma once

#include "sync/cuda/kernels/device_geometry.cuh"

namespace gpufec::sync::cuda_detail {

// When L writes its results straight into the host's staging (status_out non-null), the last of
// its blocks to finish (a ticket taken after each block's writes) copies every frame's final status
// there too, so that the host needs no copy at all: alpha/beta finished before L started, and L's
// own failures are visible to the last block through the ticket's fences.
struct status_hand_off {
  const device_frames& b;
  int* out;
  unsigned* blocks_done;
  __device__ ~status_hand_off() {
    if (!out) return;
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      const unsigned blocks = gridDim.x * gridDim.y;
      last = atomicAdd(blocks_done, 1u) == blocks - 1;
      if (last) {
        __threadfence();
        *blocks_done = 0;  // ready for the next launch
      }
    }
    __syncthreads();
    if (last)
      for (int f = threadIdx.x; f < b.frames; f += blockDim.x)
        out[f] = *static_cast<volatile const int*>(b.status + f);
  }
};

// Where app_kernel takes V(m', D) = sum_k beta_{i+1}(m' + m_n^- + k) R(m', k, D) from: stored R
// (global storage and the ring of local storage), the lattices run again (compact storage), or V
// stored by gamma_beta_kernel.
// Each sums V in fold_beta's order, so the three give the same digits.
enum app_source : int { app_from_gamma, app_from_lattice, app_from_v };

// app_kernel: grid (N, frames); block Bx * Bz threads: D lane tx = t % Bx (D = tx, tx + Bx, ...),
// thread row tz = t / Bx. The states are split into G groups (m' = z, z + G, ...; G fixed by the
// geometry, Bz <= G), thread row tz sums alpha_i(m') V(m', D) over groups tz, tz + Bz, ..., and
// the groups are added in order z = 0..G-1: the summation order, and so every digit, is the same
// for any block shape. Shared: acc double[G][q], the rows alpha_i and beta_{i+1} (double[M] each),
// then (lattices run again) lattice rows real[row_len][T]. `gamma`: R as `real` values
// (app_from_gamma) or V as doubles (app_from_v). Running the lattices again costs registers the
// other sources do not need, hence a separate instantiation. VW: symbols per thread and load (4:
// stored float R with q % 4 == 0, one 16-byte load per (m', delta); else 1). Writes app[f][i][D]
// (normalized; none when app is null), decisions[f][i], lambda[f][i][m] (and lambda[f][N] from the
// last block; none when null), and the status hand-off above.
template <class real, int source, int VW>
__global__ void app_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                           int Bx, int Bz, int G, const void* gamma, const double* alpha,
                           const double* beta, double* app, std::uint32_t* decisions,
                           double* lambda, int* status_out, unsigned* blocks_done) {
  static_assert(VW == 1 || (VW == 4 && source == app_from_gamma && sizeof(real) == 4),
                "16-byte loads of float R");
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ double scratch[32];
  const int T = blockDim.x, t = threadIdx.x, tx = t % Bx, tz = t / Bx;
  const int i = g.index0 + blockIdx.x, f = blockIdx.y;
  // Every path out of the block is uniform, so the hand-off below may synchronize the block.
  const status_hand_off hand_off{b, status_out, blocks_done};
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
    if (source != app_from_v) sb[m] = b1[m];
  }
  __syncthreads();

  // Thread column tx takes VW consecutive symbols D at a time (one 16-byte load of R for VW = 4);
  // each D's sum runs over the same terms in the same order for any VW and shape.
  const std::size_t fi = stored_index(g, f, i);   // of R or V
  for (int D = tx * VW; D < g.q; D += Bx * VW) {  // the block has exactly Bx * Bz threads
    const std::uint32_t x =
        source == app_from_lattice ? codewords[static_cast<std::size_t>(i) * g.q + D] : 0u;
    for (int z = tz; z < G; z += Bz) {
      double sum[VW] = {};
      for (int mp = z; mp < g.M; mp += G) {
        const double am = sa[mp];
        if (am == 0) continue;
        double v[VW] = {};  // V(m', D + j), as fold_beta sums it
        if constexpr (source == app_from_v) {
          v[0] = static_cast<const double*>(gamma)[(fi * g.M + mp) * g.q + D];
        } else if constexpr (source == app_from_gamma) {
          // R is 0 outside each segment's drift changes (no segment needed), and beta outside
          // the states adds exact zeros in fold_beta: both are left out here.
          const real* R = static_cast<const real*>(gamma) + (fi * g.M + mp) * g.Mn * g.q + D;
          const int k0 = max(0, -(mp + g.m_n_min)), k1 = min(g.Mn, g.M - mp - g.m_n_min);
          for (int k = k0; k < k1; ++k) {
            const double w = sb[mp + g.m_n_min + k];
            alignas(16) real r[VW];
            if constexpr (VW == 4)
              *reinterpret_cast<float4*>(r) =
                  *reinterpret_cast<const float4*>(R + static_cast<std::size_t>(k) * g.q);
            else
              r[0] = R[static_cast<std::size_t>(k) * g.q];
#pragma unroll
            for (int j = 0; j < VW; ++j) v[j] = __fma_rn(w, static_cast<double>(r[j]), v[j]);
          }
        } else {
          const device_segment s = segment_of(g, i, mp, rho);
          if (s.d0 > s.d1) continue;
          run_lattice<real>(g, x, b.y + b.offsets[f] + s.start, s.mu, row, T);
          for (int delta = s.d0; delta <= s.d1; ++delta)
            v[0] =
                __fma_rn(sb[mp + delta], static_cast<double>(row[(delta - g.row_min) * T]), v[0]);
        }
#pragma unroll
        for (int j = 0; j < VW; ++j) sum[j] = __fma_rn(am, v[j], sum[j]);
      }
#pragma unroll
      for (int j = 0; j < VW; ++j) acc[z * g.q + D + j] = sum[j];
    }
  }
  __syncthreads();
  // L(D) = Pr{D} sum over groups (in group order), then normalize over D and take the argmax.
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
  }
  const double total = ordered_sum(
      g.q, [&](int D) { return acc[D]; }, scratch);
  if (!(total > 0) || !isfinite(total)) {
    if (t == 0) atomicCAS(&b.status[f], status_ok, status_zero_app);
    return;
  }
  // No APPs when only decisions are wanted (the simulator): then no place was reserved for them.
  double* out = app ? app + (static_cast<std::size_t>(f) * g.N + i) * g.q : nullptr;
  double best = -1;  // this thread's argmax over its D (ascending: the lowest D on ties)
  int best_D = 0;
  for (int D = t; D < g.q; D += T) {
    const double v = acc[D] / total;
    if (out) out[D] = v;
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
    const double tot = ordered_sum(
        g.M, [&](int m) { return av[m] * bv[m]; }, scratch);
    for (int m = t; m < g.M; m += T) lv[m] = tot > 0 ? av[m] * bv[m] / tot : 0.0;
  }
}

}  // namespace gpufec::sync::cuda_detail
