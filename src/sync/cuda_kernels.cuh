// CUDA kernels of the sync MAP decoder (seed paper sec. IV-V, with batches of frames).
//
// Three launches decode a part of a chunk of frames, never one per symbol:
//   gamma             R(y|C_i(D)) by the lattice: gamma_warp_kernel (cuda_gamma_warp.cuh), a
//                     warp per states m' of (frame, i) with the row in registers, or gamma_kernel,
//                     one thread per (frame, i, m', D) with the row in shared memory. Stores R
//                     (global storage) and always gsum(i, delta, m') = sum_D Pr{D} R.
//   alpha/beta        (4),(11)-(12) and (5) as persistent blocks, one per (frame, direction),
//                     one barrier per index i (cuda_fb_kernels.cuh): fb_ring_kernel, a thread per
//                     state with the gsum blocks prefetched into shared memory (TMA, sm_90) by
//                     warps of their own, or fb_kernel, the general one.
//   app_kernel        L_i(D) (1)-(3), one block per (frame, i); reads R (global storage) or runs
//                     the lattices again (compact storage), plus the drift posterior lambda_i.
// A chunk of many frames (decoder_options::fold_min_frames) folds beta into gamma instead
// (cuda_folded_kernel.cuh): the lattices of index i run once beta_{i+1} of their frame is known,
// the kernel computes the beta rows itself and stores V = sum_k beta R, M_n times fewer values
// than R; then alpha alone (fb_ring_kernel) and app_kernel from V. gamma_beta_kernel hands out
// items of states of one (frame, i) across the device; gamma_beta_frame_kernel gives each frame
// a block of its own. The same digits either way.
// Local storage (cuda_local_storage.cu) keeps gamma of a ring of four indices and launches per
// index instead: gamma, one step of alpha or beta (fb_step_kernel), and L, on rotating streams.
//
// The lattice evaluates each node as (ins*left + del*up) + Q*diag with explicit round-to-nearest
// intrinsics (no FMA contraction), the same order as the CPU reference, so gamma is bit-identical
// to the CPU's; sums over D and over states differ from the CPU's only by summation order.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpufec::sync::cuda_detail {

// Everything a kernel needs about the decode, passed by value.
struct device_geometry {
  int q, n, N;
  long long tau;
  int lo, hi;    // frame drift limits [m_tau^-, m_tau^+]
  int clo, chi;  // codeword drift limits [m_n^-, m_n^+]
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

__device__ __forceinline__ float mul_rn(float a, float b) {
  return __fmul_rn(a, b);
}
__device__ __forceinline__ float add_rn(float a, float b) {
  return __fadd_rn(a, b);
}
__device__ __forceinline__ double mul_rn(double a, double b) {
  return __dmul_rn(a, b);
}
__device__ __forceinline__ double add_rn(double a, double b) {
  return __dadd_rn(a, b);
}

// `bytes` rounded up to a multiple of 16 (the alignment of every block laid out after another).
__host__ __device__ constexpr std::size_t align16(std::size_t bytes) {
  return (bytes + 15) & ~std::size_t(15);
}

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
  const int m = mp + g.clo + k;  // the state index moves by the drift change m_n^- + k
  if (m >= 0 && m < g.M) block[m * g.Kp + k] = value;
}

// The drift changes [d0, d1] of state m' whose received segment starts `rest` symbols before the
// frame end (rest = rho - start >= 0, clamped to an int by the caller: d1 <= m_n^+ anyway).
struct drift_range {
  int d0, d1;
};
__device__ __forceinline__ drift_range drift_changes(const device_geometry& g, int mp, int rest) {
  return {max(g.clo, -mp),  // the drift after, m_tau^- + m' + delta, stays >= m_tau^-
          min(min(g.chi, g.hi - g.lo - mp), rest - g.n)};
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
  s.start = static_cast<long long>(g.n) * i + g.lo + mp;
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
  int dhi = g.corridor ? min(mu, g.chi) : mu;
  at(0) = real(1);
  for (int d = 1; d <= dhi; ++d) at(d) = mul_rn(ins, at(d - 1));
  for (int r = 1; r <= g.n; ++r) {
    const int dlo = g.corridor ? max(-r, g.clo) : -r;
    dhi = g.corridor ? min(mu - r, g.chi) : mu - r;
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

// Sum of value(k), k = 0..n-1, in an order fixed by n alone, not by the block's shape (an L block
// is wider for a small batch, and a frame must get the same digits in any batch): partial l adds
// k = l, l + 32, ... in turn, then partial l takes partial l + w for w = 16, 8, ..., 1. Warp 0 does
// it with a butterfly of shuffles (lane 0 adds the same pairs in the same order); a block of fewer
// than 32 threads in shared memory. All threads must call; `scratch` holds 32 doubles.
template <class Value>
__device__ __forceinline__ double ordered_sum(int n, Value value, double* scratch) {
  __syncthreads();  // the values are written; scratch may still be read from a previous call
  if (blockDim.x >= 32) {
    if (threadIdx.x < 32) {
      double s = 0;
      for (int k = threadIdx.x; k < n; k += 32) s += value(k);
      for (int w = 16; w >= 1; w /= 2) s += __shfl_xor_sync(0xffffffffu, s, w);
      if (threadIdx.x == 0) scratch[0] = s;
    }
  } else {
    for (int l = threadIdx.x; l < 32; l += blockDim.x) {
      double s = 0;
      for (int k = l; k < n; k += 32) s += value(k);
      scratch[l] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0)
      for (int w = 16; w >= 1; w /= 2)
        for (int l = 0; l < w; ++l) scratch[l] += scratch[l + w];
  }
  __syncthreads();
  return scratch[0];
}

// Block-wide argmax of (value, index) pairs, one per thread (all threads must call): the largest
// value, the lowest index among equals (a sequential scan's answer). `scratch` holds 32 doubles.
__device__ __forceinline__ int block_argmax(double v, int index, double* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  auto take = [&](double ov, int oi) {
    if (ov > v || (ov == v && oi < index)) {
      v = ov;
      index = oi;
    }
  };
  for (int o = 16; o > 0; o >>= 1)
    take(__shfl_xor_sync(0xffffffffu, v, o), __shfl_xor_sync(0xffffffffu, index, o));
  __shared__ int indices[32];
  __syncthreads();  // scratch may still be read from a previous call
  if (lane == 0) {
    scratch[warp] = v;
    indices[warp] = index;
  }
  __syncthreads();
  for (int w = 0; w < warps; ++w) take(scratch[w], indices[w]);
  return index;
}

}  // namespace gpufec::sync::cuda_detail
