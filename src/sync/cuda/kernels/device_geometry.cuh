// CUDA kernels of the sync MAP decoder (seed paper sec. IV-V, with batches of frames).
//
// Three launches decode a part of a chunk of frames, never one per symbol:
//   gamma             R(y|C_i(D)) by the lattice: gamma_warp_kernel (gamma_warp_kernel.cuh), a
//                     warp per states m' of (frame, i) with the row in registers, or gamma_kernel,
//                     one thread per (frame, i, m', D) with the row in shared memory. Stores R
//                     (global storage) and always gsum(i, delta, m') = sum_D Pr{D} R.
//   alpha/beta        (4),(11)-(12) and (5) as persistent blocks, one per (frame, direction),
//                     one barrier per index i (alpha_beta_kernels.cuh): fb_ring_kernel, a thread
//                     per state with the gsum blocks prefetched into shared memory (TMA, sm_90) by
//                     warps of their own, or fb_kernel, the general one.
//   app_kernel        L_i(D) (1)-(3), one block per (frame, i); reads R (global storage) or runs
//                     the lattices again (compact storage), plus the drift posterior lambda_i.
// A chunk of many frames (decoder_options::fold_min_frames) folds beta into gamma instead
// (folded_kernels.cuh): the lattices of index i run once beta_{i+1} of their frame is known,
// the kernel computes the beta rows itself and stores V = sum_k beta R, M_n times fewer values
// than R; then alpha alone (fb_ring_kernel) and app_kernel from V. gamma_beta_kernel hands out
// items of states of one (frame, i) across the device; gamma_beta_frame_kernel gives each frame
// a block of its own. The same digits either way.
// Local storage (../local_storage.cu) keeps gamma of a ring of four indices and launches per
// index instead: gamma, one step of alpha or beta (fb_step_kernel), and L, on rotating streams.
//
// The lattice evaluates each node as (ins*left + del*up) + Q*diag with explicit round-to-nearest
// intrinsics (no FMA contraction), the same order as the CPU reference, so gamma is bit-identical
// to the CPU's; sums over D and over states differ from the CPU's only by summation order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/cuda/block_primitives.cuh"
#include "gpufec/common/align.hpp"
#include "sync/plan/geometry.hpp"

namespace gpufec::sync::cuda_detail {

using cuda::add_rn;
using cuda::block_argmax;
using cuda::mul_rn;
using cuda::ordered_sum;

// Everything a kernel needs about the decode, passed by value.
struct device_geometry {
  int q, n, N;
  long long tau;
  int m_tau_min, m_tau_max;  // frame drift limits [m_tau^-, m_tau^+]
  int m_n_min, m_n_max;      // codeword drift limits [m_n^-, m_n^+]
  int M, Mn;
  int Kg;           // drift changes alpha/beta sum over: Mn rounded up to a multiple of 4
  int Kp;           // doubles per gsum row: Kg + 2 (entries k >= Mn zero), see gsum_block()
  int gsum_stride;  // doubles per (frame, i) block of gsum: 2 * M * Kp
  int corridor;     // 1: corridor-constrained lattice, 0: full lattice
  int end_known;    // 1: beta_N at rho - tau; 0: drift pmf prior
  double ins, del, match, mismatch;
  double uniform_prior;  // 1/q, once on the host (a double division per task is ~20 instructions)
  // The same weights rounded to float once on the host: a kernel that converted them itself could
  // have the conversion sunk into its node loop (a select of doubles, then F2F, per node).
  float ins_f, del_f, match_f, mismatch_f;
  // Row 0 of gamma_warp_kernel's lattice, entry k = drift m_n^- + k: ins^d in float for d >= 0
  // (the CPU's order of products), 0 below; the same for every lattice, so computed once.
  float row0[32];
  int row_min;  // drift of the first entry of a thread's lattice row
  int row_len;  // entries of a thread's lattice row
  // Indices of gamma (R, gsum) stored per frame: N, or the ring of local storage, where index i
  // lives in row i % rows (see stored_index). A launch covers indices index0, index0 + 1, ...
  // (its grid's index coordinate is added to index0; local storage launches one index at a time).
  int rows;
  int index0;
};

// The kernels' view of a geometry; `rows` as the storage keeps them (every index, or the ring of
// local storage). Host code (device_geometry.cu).
device_geometry make_device_geometry(const detail::geometry& g, int rows);

struct device_frames {
  const std::uint8_t* y;     // received symbols of the chunk, concatenated
  const long long* offsets;  // frames + 1
  const long long* rho;      // true received length per frame (may exceed the stored part)
  const double* priors;      // null (uniform) or [frame][i][D]
  int* status;               // per frame: 0 decodable; set non-zero to skip / report
  int frames;
};

// Status codes a kernel may leave (host turns them into messages). The failures of alpha/beta are
// ordered as the CPU reference meets them (forward pass, then the frame end, then the backward
// pass), and the lowest code wins whichever block of the frame reports first (see report_failure).
// So alpha runs on a frame whose beta has failed already (the folded path runs beta first): only
// status_skip stops it.
enum : int {
  status_ok = 0,
  status_skip = 1,           // undecodable before decoding (length check on the host)
  status_zero_forward = 2,   // alpha normalization found no probability
  status_no_end = 3,         // no frame end within the limits
  status_zero_backward = 4,  // beta normalization found no probability
  status_zero_app = 5,       // L normalization found no probability
};

// Pr{D} of frame f's symbol i: the given priors, or uniform.
__device__ __forceinline__ double prior_of(const device_frames& b, const device_geometry& g, int f,
                                           int i, int D) {
  return b.priors ? b.priors[(static_cast<long long>(f) * g.N + i) * g.q + D] : g.uniform_prior;
}

// Where (frame, i) of gamma lies among the stored (frame, index row) blocks of R and gsum.
__host__ __device__ __forceinline__ std::size_t stored_index(const device_geometry& g, int f,
                                                             int i) {
  return static_cast<std::size_t>(f) * g.rows + (g.rows == g.N ? i : i % g.rows);
}

// Offset of gsum block (frame, i). A block holds gsum(k, m') twice, each laid out for the
// thread of alpha or beta that reads it, as a row of Kp doubles per state: first forward rows
// [m][k] = gsum(k, m - m_n^- - k) (alpha's destination state m), then backward rows
// [m'][k] = gsum(k, m') (beta's state m'). A thread then reads its K values with 16-byte loads
// at fixed offsets, and Kp = 2 mod 4 doubles keeps eight threads' 16-byte loads on distinct banks.
// Entries no gamma kernel writes (k >= Mn, sources outside the states) stay zero.
__host__ __device__ __forceinline__ std::size_t gsum_block(const device_geometry& g, int f, int i) {
  return stored_index(g, f, i) * g.gsum_stride;
}

// Stores gsum(k, m') of one (frame, i) block in both layouts.
__device__ __forceinline__ void store_gsum(const device_geometry& g, double* block, int k, int mp,
                                           double value) {
  // int offsets: a block holds gsum_stride (an int) doubles.
  block[(g.M + mp) * g.Kp + k] = value;
  const int m = mp + g.m_n_min + k;  // the state index moves by the drift change m_n^- + k
  if (m >= 0 && m < g.M) block[m * g.Kp + k] = value;
}

// The drift changes [d0, d1] of state m' whose received segment starts `rest` symbols before the
// frame end (rest = rho - start >= 0, clamped to an int by the caller: d1 <= m_n^+ anyway).
struct drift_range {
  int d0, d1;
};
__device__ __forceinline__ drift_range drift_changes(const device_geometry& g, int mp, int rest) {
  return {max(g.m_n_min, -mp),  // the drift after, m_tau^- + m' + delta, stays >= m_tau^-
          min(min(g.m_n_max, g.m_tau_max - g.m_tau_min - mp), rest - g.n)};
}
// `rest` for drift_changes(): symbols from a segment's start to the frame end, as an int.
__device__ __forceinline__ int clamp_rest(long long rest) {
  return static_cast<int>(min(max(rest, -(1LL << 30)), 1LL << 30));
}

// The received segment of (frame, i, m') and its drift changes: as segment_for() on the CPU.
struct device_segment {
  long long start;
  int mu, d0, d1;
};
__device__ __forceinline__ device_segment segment_of(const device_geometry& g, int i, int mp,
                                                     long long rho) {
  device_segment s;
  s.start = static_cast<long long>(g.n) * i + g.m_tau_min + mp;
  s.d0 = 0;
  s.d1 = -1;
  s.mu = 0;
  if (s.start < 0 || s.start > rho) return s;
  const drift_range r = drift_changes(g, mp, clamp_rest(rho - s.start));
  s.d0 = r.d0;
  s.d1 = r.d1;
  s.mu = g.n + s.d1;
  return s;
}

// One lattice in drift coordinates: row[(d - row_min) * stride] holds F[r][r + d]. Ascending d
// updates in place: left = F[r][d-1] (new), up = F[r-1][d+1] (old), diag = F[r-1][d] (old).
// Afterwards row[(delta - row_min) * stride] = R for drift change delta in [s.d0, s.d1].
template <class real>
__device__ void run_lattice(const device_geometry& g, std::uint32_t x, const std::uint8_t* y,
                            int mu, real* row, int stride) {
  const real ins = static_cast<real>(g.ins), del = static_cast<real>(g.del);
  const real match = static_cast<real>(g.match), mismatch = static_cast<real>(g.mismatch);
  for (int k = 0; k < g.row_len; ++k) row[k * stride] = real(0);
  auto at = [&](int d) -> real& { return row[(d - g.row_min) * stride]; };
  int dhi = g.corridor ? min(mu, g.m_n_max) : mu;
  at(0) = real(1);
  for (int d = 1; d <= dhi; ++d) at(d) = mul_rn(ins, at(d - 1));
  for (int r = 1; r <= g.n; ++r) {
    const int dlo = g.corridor ? max(-r, g.m_n_min) : -r;
    dhi = g.corridor ? min(mu - r, g.m_n_max) : mu - r;
    const real ins_r = r < g.n ? ins : real(0);  // no insertion after the last symbol (10)
    const std::uint32_t xr = (x >> (r - 1)) & 1u;
    real left = real(0);
    for (int d = dlo; d <= dhi; ++d) {
      const int j = r + d;
      const real q = j >= 1 ? (y[j - 1] == xr ? match : mismatch) : real(0);
      const real v = add_rn(add_rn(mul_rn(ins_r, left), mul_rn(del, at(d + 1))), mul_rn(q, at(d)));
      at(d) = v;
      left = v;
    }
    if (dhi + 1 - g.row_min < g.row_len) at(dhi + 1) = real(0);
  }
}

}  // namespace gpufec::sync::cuda_detail
