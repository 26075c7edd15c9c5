// The three decode kernels (see cuda_kernels.cuh for the plan of work). All blocks are 1-D; the
// comment above each kernel gives the meaning of its indices and its shared memory.
#pragma once

#include "sync/cuda_kernels.cuh"

namespace gpufec::sync::cuda_detail {

// gamma_kernel: grid (N * m_tiles, frames [, 1]); block Bx * By threads, thread t -> D lane
// tx = t % Bx (D = tx, tx + Bx, ...), state ty = t / Bx (m' = tile * By + ty).
// Shared: lattice rows real[row_len][T], then partial sums double[Mn][T].
// Writes gsum(k, m') (k = delta - m_n^-; see gsum_block) for every (m', delta) of the tile (0
// where invalid) and, when `gamma` is non-null, R at gamma[f][i][m'][delta][D].
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
    store_gsum(g, gsum + gsum_block(g, f, i), k, pmp, s);
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

constexpr int fb_max_log_ring = 3;  // fb_kernel<K > 0> keeps up to 2^3 gsum blocks in flight

// The states' threads of fb_kernel meet at named barrier 1 (a multiple of 32 threads): the
// producer warp of fb_kernel<K > 0> never joins it.
__device__ __forceinline__ void sync_states(int threads) {
  asm volatile("bar.sync 1, %0;" ::"r"(threads) : "memory");
}

// The gsum ring of fb_kernel<K > 0> (sm_90): the block used at step s goes to slot
// s & (ring - 1), ring a power of two. A producer thread copies each block with a bulk (TMA) copy
// that completes the slot's `full` barrier, as soon as the slot's `empty` barrier says that every
// states' thread is done with the block ring steps earlier (each releases what it read); the
// states' threads wait on `full`. The producer thus runs up to ring steps ahead and never joins
// the states' barrier.
struct gsum_ring {
  double* slots;  // ring slots of `stride` doubles
  int stride;
  int log_ring;
  std::uint64_t* full;   // ring barriers: block copied
  std::uint64_t* empty;  // ring barriers: slot released by every states' thread

  __device__ static unsigned smem_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
  }
  __device__ int size() const { return 1 << log_ring; }
  __device__ int slot_of(int step) const { return step & (size() - 1); }
  __device__ double* slot(int step) const { return slots + slot_of(step) * stride; }
  // Called by one thread before the barriers are used (then a barrier of the whole block);
  // `consumers` threads release each slot.
  __device__ void init(int consumers) const {
#if __CUDA_ARCH__ >= 900
    for (int s = 0; s < size(); ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(full + s)));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(empty + s)),
                   "r"(consumers));
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
  }
  __device__ static void wait(const std::uint64_t* bar, unsigned parity) {
#if __CUDA_ARCH__ >= 900
    asm volatile(
        "{\n .reg .pred done;\n wait_%=:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        " @!done bra wait_%=;\n}" ::"r"(smem_address(bar)),
        "r"(parity)
        : "memory");
#endif
  }
  // The producer: copies block `step` (`values` doubles, 16-byte aligned, a multiple of 2) once
  // the step ring earlier has released its slot.
  __device__ void produce(int step, const double* src, int values) const {
#if __CUDA_ARCH__ >= 900
    const int k = slot_of(step);
    if (step >= size()) wait(empty + k, ((step >> log_ring) + 1) & 1);
    const unsigned bar = smem_address(full + k), bytes = values * 8u;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" ::"r"(smem_address(slot(step))),
        "l"(src), "r"(bytes), "r"(bar)
        : "memory");
#endif
  }
  // A states' thread: block `step` has landed.
  __device__ void landed(int step) const {
    wait(full + slot_of(step), (step >> log_ring) & 1);
  }
  // Every states' thread, once it is done with block `step`.
  __device__ void release(int step) const {
#if __CUDA_ARCH__ >= 900
    asm volatile(
        "mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_address(empty + slot_of(step)))
        : "memory");
#endif
  }
};

// fb_kernel: grid (frames, 2), one block per (frame, direction): blockIdx.y 0 runs alpha forward
// (4), (11)-(12), 1 runs beta backward (5), looping over i with one barrier of the states' threads
// per step; thread t < Tc handles states t, t + Tc, ... where Tc = T, or T - 32 with prefetching:
// then the last warp is the producer (see gsum_ring), off the critical path of the others.
// alpha, beta: [f][i = 0..N][m], each row up to a power of two.
// The scale is lagged so that it costs no extra barrier: step i multiplies its sums by the power
// of two that brings row i (as stored) into [1, 2), from per-warp maxima of the exponents that
// step i - 1 left in shared memory; stored rows thus stay within about [2^-1022, 2K]. A row with
// no probability left is detected one step later, off the critical path; the steps then go on
// with zeros (the producer counts on every release) and the frame is marked.
// Each thread reads its own gsum row of the direction's layout (see gsum_block). K = 0: from
// global memory, bounds checked. K = Kg (sm_90 only): from shared memory over a compile-time K,
// K / 2 16-byte loads at fixed offsets: two rows of M doubles with K zeros on each side, then a
// ring of 2^log_ring gsum blocks of M rows of Kp = K + 2. A source state out of range reads a
// zero in the row (and a zero in gsum): every extra term is zero.
template <int K>
__global__ void fb_kernel(device_geometry g, device_frames b, const double* gsum, double* alpha,
                          double* beta, const double* end_prior, int log_ring) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int magnitude[2][32];  // [parity][warp]: largest magnitude_of() of a row
  __shared__ std::uint64_t ring_barriers[2][1 << fb_max_log_ring];
  const int f = blockIdx.x, t = threadIdx.x, T = blockDim.x, warp = t >> 5;
  if (b.status[f] != status_ok) return;
  const bool forward = blockIdx.y == 0;
  constexpr bool prefetch = K > 0;
  constexpr int Kp = K + 2;              // == g.Kp when prefetching
  const int Tc = prefetch ? T - 32 : T;  // threads with states
  const int pad = prefetch ? K : g.Mn, stride = g.M + 2 * pad;
  // This direction's rows of gsum block 0.
  const double* gs =
      gsum + gsum_block(g, f, 0) + (forward ? 0 : static_cast<std::size_t>(g.M) * g.Kp);
  const std::ptrdiff_t gs_step = forward ? g.gsum_stride : -g.gsum_stride;
  if (!forward) gs += static_cast<std::size_t>(g.N - 1) * g.gsum_stride;  // block of step 0
  double* out = (forward ? alpha : beta) + static_cast<std::size_t>(f) * (g.N + 1) * g.M;
  double* rows = reinterpret_cast<double*>(smem) + pad;  // rows[parity][-pad .. M + pad)
  const gsum_ring ring{reinterpret_cast<double*>(smem) + 2 * stride, g.M * Kp, log_ring,
                       ring_barriers[0], ring_barriers[1]};
  for (int k = t; k < 2 * stride; k += T) rows[k - pad] = 0.0;
  if (prefetch && t == Tc) ring.init(Tc);
  __syncthreads();
  if (prefetch && t >= Tc) {  // the producer warp
#if __CUDA_ARCH__ >= 900
    if (t == Tc)
      for (int step = 0; step < g.N; ++step, gs += gs_step) ring.produce(step, gs, g.M * Kp);
#else
    __trap();  // the host prefetches on sm_90 only
#endif
    return;
  }
  const int warps = Tc / 32;
  auto publish = [&](int parity, int e) {
    e = warp_max(e);
    if ((t & 31) == 0) magnitude[parity][warp] = e;
  };
  // The scale of a row from its warps' magnitudes (the same in every thread).
  auto scale_of = [&](int parity) {
    const int lane = t & 31;
    return pow2_scale(warp_max(lane < warps ? magnitude[parity][lane] : -1));
  };
  const int zero_status = forward ? status_zero_forward : status_zero_backward;
  auto fail = [&](int why) {
    if (t == 0) atomicCAS(&b.status[f], status_ok, why);
  };

  // alpha_0: drift 0; beta_N: the known end or the drift pmf prior.
  const long long rho = b.rho[f];
  int e = -1;
  for (int m = t; m < g.M; m += Tc) {
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

  // alpha_{i+1}(m) = sum over m' = m - delta of alpha_i(m') gsum(delta, m'), m' = m - clo - k;
  // beta_i(m) = sum over m + delta of gsum(delta, m) beta_{i+1}(m + delta), m + clo + k.
  double* out_row = out + static_cast<std::size_t>(forward ? 1 : g.N - 1) * g.M;
  const std::ptrdiff_t out_step = forward ? g.M : -g.M;
  bool failed = false;
  for (int step = 0; step < g.N; ++step, out_row += out_step, gs += gs_step) {
    sync_states(Tc);  // row `step` and its magnitudes are published; block step - 1 is done
    if (prefetch) ring.landed(step);
    const double scale = scale_of(step & 1);
    const double* prev = rows + (step & 1) * stride;
    double* next = rows + ((step + 1) & 1) * stride;
    e = -1;
    for (int m = t; m < g.M; m += Tc) {
      double v0 = 0, v1 = 0, v2 = 0, v3 = 0;  // four chains: a quarter of the latency of one
      if constexpr (prefetch) {
        const double2* gr = reinterpret_cast<const double2*>(ring.slot(step) + m * Kp);
        if (forward) {
          const double* pr = prev + (m - g.clo);
#pragma unroll
          for (int k = 0; k < K; k += 4) {
            const double2 a = gr[k / 2], c = gr[k / 2 + 1];
            v0 += pr[-k] * a.x;
            v1 += pr[-k - 1] * a.y;
            v2 += pr[-k - 2] * c.x;
            v3 += pr[-k - 3] * c.y;
          }
        } else {
          const double* pr = prev + (m + g.clo);
#pragma unroll
          for (int k = 0; k < K; k += 4) {
            const double2 a = gr[k / 2], c = gr[k / 2 + 1];
            v0 += a.x * pr[k];
            v1 += a.y * pr[k + 1];
            v2 += c.x * pr[k + 2];
            v3 += c.y * pr[k + 3];
          }
        }
      } else {
        const double* gi = gs + static_cast<std::size_t>(m) * g.Kp;
        for (int k = 0; k < g.Mn; ++k) {
          if (forward) {
            const int mp = m - (g.clo + k);
            if (mp >= 0 && mp < g.M) v0 += prev[mp] * gi[k];
          } else {
            const int mm = m + g.clo + k;
            if (mm >= 0 && mm < g.M) v0 += gi[k] * prev[mm];
          }
        }
      }
      const double v = ((v0 + v1) + (v2 + v3)) * scale;
      next[m] = out_row[m] = v;
      e = max(e, magnitude_of(v));
    }
    if (prefetch) ring.release(step);
    publish((step + 1) & 1, e);
    if (scale == 0 && !failed) {  // row `step` had no probability left: this step's row is void
      failed = true;
      fail(step == 0 && !forward ? status_no_end : zero_status);
    }
  }
  sync_states(Tc);
  if (!failed && scale_of(g.N & 1) == 0) fail(zero_status);
}

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

// app_kernel: grid (N, frames); block Bx * Bz threads: D lane tx = t % Bx (D = tx, tx + Bx, ...),
// thread row tz = t / Bx. The states are split into G groups (m' = z, z + G, ...; G fixed by the
// geometry, Bz <= G), thread row tz sums groups tz, tz + Bz, ..., and the groups are added in
// order z = 0..G-1: the summation order, and so every digit, is the same for any block shape.
// Shared: acc double[G][q], the rows alpha_i and beta_{i+1} (double[M] each), then (local storage)
// lattice rows real[row_len][T]. `stored`: R is read from `gamma` (real values, global
// storage); else the lattices are run again (local storage), which costs registers the stored
// variant does not need. VW: symbols per thread and load (4: stored float R with q % 4 == 0, one
// 16-byte load per (m', delta); else 1). Writes app[f][i][D] (normalized), decisions[f][i],
// lambda[f][i][m] (and lambda[f][N] from the last block), and the status hand-off above.
template <class real, bool stored, int VW>
__global__ void app_kernel(device_geometry g, device_frames b, const std::uint32_t* codewords,
                           int Bx, int Bz, int G, const void* gamma, const double* alpha,
                           const double* beta, double* app, std::uint32_t* decisions,
                           double* lambda, int* status_out, unsigned* blocks_done) {
  static_assert(VW == 1 || (VW == 4 && stored && sizeof(real) == 4), "16-byte loads of float R");
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ double scratch[32];
  const int T = blockDim.x, t = threadIdx.x, tx = t % Bx, tz = t / Bx;
  const int i = blockIdx.x, f = blockIdx.y;
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
