// The alpha/beta kernels (see device_geometry.cuh for the plan of work): persistent blocks, one per
// (frame, direction), looping over i with one barrier per step.
//   fb_ring_kernel<K>  a thread per state; the gsum blocks come ahead into a ring of shared memory
//                      by bulk (TMA) copies, sm_90. The fast path.
//   fb_kernel          states looped over by the block's threads, gsum read from global memory:
//                      any M and M_n, any device.
// The choice depends on the geometry and the device only, never on the batch, so a frame's digits
// do not depend on what it is decoded with. The two sum the drift changes in different orders
// (four chains against one), both within the tests' tolerance of the CPU reference.
#pragma once

#include <type_traits>

#include "sync/cuda/kernels/device_geometry.cuh"
#include "sync/cuda/policy.hpp"

namespace gpufec::sync::cuda_detail {

// The lagged power-of-two scale of alpha/beta rows. Step i multiplies its sums by the power of two
// that brings row i (as stored) into [1, 2), known from keys that step i - 1 published: no extra
// barrier. Scaling by a power of two is exact, and alpha and beta are only ever used up to a
// constant factor per row (L and lambda are normalized), so it replaces the division by the row
// sum without a reduction of sums. Stored rows thus stay within about [2^-1022, 2K].
// A value's key is its high word without the sign, with bit 0 set when only its low word is
// non-zero: the largest key of a row orders its largest value's exponent (and inf and NaN above
// every finite value) at the cost of one operation per value.
struct row_scale {
  unsigned (*keys)[32];  // [parity][warp], 16-byte aligned rows; entries past the warps stay 0
  int warps;
  unsigned keys_at;  // shared-memory address of keys, kept in a register (see at())

  // The compiler would otherwise derive the address of keys anew at every step from the block's
  // shared-memory window (a special-register read that costs tens of cycles on the critical path).
  __device__ static row_scale at(unsigned (*keys)[32], int warps) {
    unsigned address;
    asm volatile("{\n .reg .u64 a;\n cvta.to.shared.u64 a, %1;\n cvt.u32.u64 %0, a;\n}"
                 : "=r"(address)
                 : "l"(keys));
    return {keys, warps, address};
  }

  __device__ static unsigned key_of(double v) {
    return (static_cast<unsigned>(__double2hiint(v)) & 0x7fffffffu) |
           static_cast<unsigned>(__double2loint(v) != 0);
  }
  __device__ static unsigned warp_max(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, v);
#else
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
#endif
  }
  // Every thread, before the first barrier.
  __device__ void init() const {
    for (int k = threadIdx.x; k < 64; k += blockDim.x) keys[k / 32][k % 32] = 0;
  }
  // Every thread of the warps with states, with the largest key of its values in the row.
  __device__ void publish(int parity, unsigned key) const {
    key = warp_max(key);
    if ((threadIdx.x & 31) == 0) keys[parity][threadIdx.x >> 5] = key;
  }
  // The row's scale, the same in every thread (after the barrier that follows the publishes):
  // 2^(1023 - e) for the largest biased exponent e clamped to [1, 2045] (subnormals scale up
  // exactly by 2^1022), or 0 when no probability is left (all zero) or a value is not finite.
  __device__ double of(int parity) const {
    unsigned key;
    if (warps <= 4) {  // one 16-byte load and a max of four, no warp reduction
      unsigned k0, k1, k2, k3;
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(k0), "=r"(k1), "=r"(k2), "=r"(k3)
                   : "r"(keys_at + parity * 128u)
                   : "memory");
      key = max(max(k0, k1), max(k2, k3));
    } else {
      const int lane = threadIdx.x & 31;
      key = warp_max(lane < warps ? keys[parity][lane] : 0u);
    }
    return of_key(key);
  }
  // The scale of a row whose largest key is `key`.
  __device__ static double of_key(unsigned key) {
    const unsigned e = min(max(key, 0x00100000u) & 0x7ff00000u, 0x7fd00000u);  // e << 20
    return key - 1u >= 0x7fefffffu ? 0.0 : __hiloint2double(static_cast<int>(0x7fe00000u - e), 0);
  }
};

// alpha_0 (drift 0) or beta_N (the known end or the drift pmf prior) at state m.
__device__ __forceinline__ double fb_start(const device_geometry& g, bool forward, int m,
                                           long long rho, const double* end_prior) {
  const long long drift = g.m_tau_min + m;
  if (forward) return m == -g.m_tau_min ? 1.0 : 0.0;
  if (g.end_known) return drift == rho - g.tau ? 1.0 : 0.0;
  return g.tau + drift <= rho ? end_prior[m] : 0.0;
}

// The threads of fb_ring_kernel meet at named barrier 1 (a multiple of 32 threads). Not the
// aligned form (bar.sync): that one requires every thread of the block to execute the same
// barrier instruction, and the watcher warp arrives from barriers of its own.
__device__ __forceinline__ void sync_named(int threads) {
  asm volatile("barrier.sync 1, %0;" ::"r"(threads) : "memory");
}

// After the last step (thread 0 reports): a row with no probability left makes every later row
// zero (or NaN), so the last row's scale (`last`) tells whether the direction failed, and for
// beta the first row's (`first`) whether there was no frame end within the limits. The lower
// status code wins, so that alpha's and beta's blocks leave the message the CPU reference gives.
// beta_failure() is the code of the backward pass, record_failure() leaves a code.
__device__ __forceinline__ int beta_failure(double first, double last) {
  return last != 0 ? status_ok : first == 0 ? status_no_end : status_zero_backward;
}
__device__ __forceinline__ void record_failure(const device_frames& b, int f, int why) {
  int seen = status_ok;
  while (seen == status_ok || seen > why) {
    const int was = atomicCAS(&b.status[f], seen, why);
    if (was == seen) break;
    seen = was;
  }
}
__device__ __forceinline__ void report_failure(const device_frames& b, int f, bool forward,
                                               double first, double last) {
  if (threadIdx.x != 0 || last != 0) return;
  record_failure(b, f, forward ? status_zero_forward : beta_failure(first, last));
}

// fb_kernel's sum for state m over the drift changes, in one chain: alpha_{i+1}(m) from
// prev[m - m_n_min - k] (alpha_i), beta_i(m) from prev[m + m_n_min + k] (beta_{i+1}), with the
// state's gsum row `gi` of the direction's layout.
__device__ __forceinline__ double chain_sum(const device_geometry& g, bool forward,
                                            const double* prev, int m, const double* gi) {
  double v = 0;
  for (int k = 0; k < g.Mn; ++k) {
    if (forward) {
      const int mp = m - (g.m_n_min + k);
      if (mp >= 0 && mp < g.M) v += prev[mp] * gi[k];
    } else {
      const int mm = m + g.m_n_min + k;
      if (mm >= 0 && mm < g.M) v += gi[k] * prev[mm];
    }
  }
  return v;
}

// fb_kernel: grid (frames, 2), one block per (frame, direction): blockIdx.y 0 runs alpha forward
// (4), (11)-(12), 1 runs beta backward (5). Thread t handles states t, t + T, ...; each reads its
// gsum rows of the direction's layout (see gsum_block) from global memory, bounds checked.
// alpha, beta: [f][i = 0..N][m]. Shared: two rows of M doubles with M_n zeros on each side.
// A row with no probability left is reported after the steps (see report_failure).
__global__ void fb_kernel(device_geometry g, device_frames b, const double* gsum, double* alpha,
                          double* beta, const double* end_prior);  // in alpha_beta_kernel.cu

constexpr int fb_max_log_ring = policy::fb_max_log_ring;  // gsum blocks in flight: 2^this

// The gsum ring of fb_ring_kernel (sm_90): the block of step s goes to slot s & (ring - 1), ring
// a power of two, by a bulk (TMA) copy that completes the slot's `full` mbarrier. Two warps run
// it, so that neither the copies nor the waits sit on the states' critical path:
// - the watcher waits until the block of step s + 1 has landed, then joins the barrier of step s,
//   so the states' threads learn it from the barrier and never wait on an mbarrier;
// - the copier waits until every states' thread has used its row of the block in a slot (each
//   arrives on the slot's `taken` mbarrier after its sums), then refills the slot with the block
//   ring steps later.
struct gsum_ring {
  double* slots;  // ring slots of `stride` doubles
  int stride;
  int log_ring;
  std::uint64_t* full;   // per slot: block copied
  std::uint64_t* taken;  // per slot: every states' thread is done with its row of the block

  __device__ static unsigned smem_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
  }
  __device__ int size() const { return 1 << log_ring; }
  __device__ int slot_of(int step) const { return step & (size() - 1); }
  __device__ unsigned parity_of(int step) const { return (step >> log_ring) & 1; }
  __device__ double* slot(int step) const { return slots + slot_of(step) * stride; }
  // One thread, before a block-wide barrier that precedes every use; `takers` threads take rows.
  __device__ void init(int takers) const {
#if __CUDA_ARCH__ >= 900
    for (int s = 0; s < size(); ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_address(full + s)));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(taken + s)),
                   "r"(takers));
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
  // The copier: block `step` (`values` doubles, 16-byte aligned, a multiple of 2) into its slot,
  // once the block ring steps earlier has been taken.
  __device__ void produce(int step, const double* src, int values) const {
#if __CUDA_ARCH__ >= 900
    if (step >= size()) wait(taken + slot_of(step), parity_of(step - size()));
    const unsigned bar = smem_address(full + slot_of(step)), bytes = values * 8u;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" ::"r"(smem_address(slot(step))),
        "l"(src), "r"(bytes), "r"(bar)
        : "memory");
#endif
  }
  // The watcher: block `step` has landed.
  __device__ void landed(int step) const {
    wait(full + slot_of(step), parity_of(step));
  }
  // Every states' thread, once it is done with its row of block `step`.
  __device__ void release(int step) const {
#if __CUDA_ARCH__ >= 900
    asm volatile(
        "mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_address(taken + slot_of(step)))
        : "memory");
#endif
  }
};

// One state's sum over K drift changes with four chains (a quarter of the latency of one): chain j
// takes k = j mod 4 in ascending order by explicit FMAs, then (v0 + v1) + (v2 + v3), the order
// beta_row() of the folded kernel repeats. From
// `prev` (padded with K zeros on each side) and the state's gsum row `gr` (K / 2 pairs): alpha
// reads prev[m - m_n_min - k], beta prev[m + m_n_min + k]. Up to K = 16 the window of prev is
// loaded whole before the products, so that its loads are in flight together; beyond, the registers
// it would take limit the block (one thread per state) more than the latency costs.
template <int K>
__device__ __forceinline__ double band_sum(bool forward, const double* prev, int m, int m_n_min,
                                           const double2* gr) {
  constexpr int W = K <= 16 ? K : 4;  // window entries loaded at once
  const double* pr = prev + (forward ? m - m_n_min - (K - 1) : m + m_n_min);  // pr[x]: x in [0, K)
  double v0 = 0, v1 = 0, v2 = 0, v3 = 0;
#pragma unroll
  for (int w = 0; w < K; w += W) {
    double p[W];
    const int base = forward ? K - W - w : w;  // window entries [base, base + W)
#pragma unroll
    for (int x = 0; x < W; ++x) p[x] = pr[base + x];
#pragma unroll
    for (int k = w; k < w + W; k += 4) {
      const double2 a = gr[k / 2], c = gr[k / 2 + 1];
      if (forward) {  // prev[m - m_n_min - k] = pr[K - 1 - k] = p[K - 1 - k - base]
        v0 = __fma_rn(p[K - 1 - k - base], a.x, v0);
        v1 = __fma_rn(p[K - 2 - k - base], a.y, v1);
        v2 = __fma_rn(p[K - 3 - k - base], c.x, v2);
        v3 = __fma_rn(p[K - 4 - k - base], c.y, v3);
      } else {
        v0 = __fma_rn(a.x, p[k - base], v0);
        v1 = __fma_rn(a.y, p[k + 1 - base], v1);
        v2 = __fma_rn(c.x, p[k + 2 - base], v2);
        v3 = __fma_rn(c.y, p[k + 3 - base], v3);
      }
    }
  }
  return (v0 + v1) + (v2 + v3);
}

// fb_ring_kernel: fb_kernel with one thread per state and a compile-time bound K >= M_n on the
// drift changes; Tc = T - 64 state threads (M rounded up to warps), then the watcher and the
// copier warps of the gsum ring. Threads m >= M compute a zero state (zero gsum rows, zeros in
// the row padding) and store nothing in global memory, so no branch splits the warps.
// Each step's barrier (named barrier 1: the states' threads and the watcher) certifies three
// things: row `step` and its keys are published; every state's thread has its gsum row of this
// step in registers (taken from the ring during the step before); and the block of step + 1 has
// landed. A step's critical path thus holds the barrier, the previous row's loads and the sums,
// never an mbarrier wait nor a copy.
// A row with no probability left is reported after the steps (see report_failure).
// Shared: keys (256 bytes), two rows of Tc doubles with K zeros on each side, then the ring:
// 2^log_ring slots of Tc rows of Kp = K + 2 doubles, the first M rows of a slot a block of this
// direction's rows of gsum_block.
template <int K>
__global__ void fb_ring_kernel(device_geometry g, device_frames b, const double* gsum,
                               double* alpha, double* beta, const double* end_prior, int log_ring) {
  static_assert(K % 4 == 0 && K > 0, "K in fours");
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ std::uint64_t ring_barriers[2][1 << fb_max_log_ring];
  constexpr int Kp = K + 2;  // == g.Kp
  const int f = blockIdx.x, t = threadIdx.x, T = blockDim.x, Tc = T - 64;
  if (b.status[f] == status_skip) return;  // not on another pass's failure
  const bool forward = blockIdx.y == 0;
  const int stride = Tc + 2 * K;
  const row_scale scales = row_scale::at(reinterpret_cast<unsigned(*)[32]>(smem), Tc / 32);
  double* rows = reinterpret_cast<double*>(smem + 256) + K;  // rows[parity][-K .. Tc + K)
  const gsum_ring ring{rows - K + 2 * stride, Tc * Kp, log_ring, ring_barriers[0],
                       ring_barriers[1]};
  scales.init();
  for (int k = t; k < 2 * stride; k += T) rows[k - K] = 0.0;
  const int tail = (Tc - g.M) * Kp;  // the zero rows after each slot's block
  for (int k = t; k < ring.size() * tail; k += T)
    ring.slots[(k / tail) * ring.stride + g.M * Kp + k % tail] = 0.0;
  if (t == Tc) ring.init(Tc);
  __syncthreads();

  if (t >= Tc + 32) {  // the copier warp: one thread copies, the others are done
    if (t == Tc + 32) {
      const double* gs =
          gsum + gsum_block(g, f, 0) + (forward ? 0 : static_cast<std::size_t>(g.M) * g.Kp);
      const std::ptrdiff_t gs_step = forward ? g.gsum_stride : -g.gsum_stride;
      if (!forward) gs += static_cast<std::size_t>(g.N - 1) * g.gsum_stride;  // block of step 0
      for (int s = 0; s < g.N; ++s) ring.produce(s, gs + s * gs_step, g.M * Kp);
    }
    return;
  }
  if (t >= Tc) {  // the watcher warp
    if (g.N > 0) ring.landed(0);
    sync_named(Tc + 32);  // the barrier before the steps: block 0 has landed
    for (int s = 0; s < g.N; ++s) {
      if (s + 1 < g.N) ring.landed(s + 1);
      sync_named(Tc + 32);  // the barrier of step s
    }
    sync_named(Tc + 32);  // the barrier after the steps
    return;
  }

  const int m = t;
  const bool active = m < g.M;
  double* out = (forward ? alpha : beta) + static_cast<std::size_t>(f) * (g.N + 1) * g.M;
  const double v0 = active ? fb_start(g, forward, m, b.rho[f], end_prior) : 0.0;
  rows[m] = v0;
  if (active) out[static_cast<std::size_t>(forward ? 0 : g.N) * g.M + m] = v0;
  scales.publish(0, row_scale::key_of(v0));
  sync_named(Tc + 32);  // the barrier before the steps: row 0 published, block 0 landed
  const double first_scale = scales.of(0);
  double2 gr[K / 2];
  const double* my_row = ring.slots + m * Kp;  // this state's row in slot 0
  auto take = [&](int step) {  // this state's gsum row of block `step`, from the ring
    const double2* from =
        reinterpret_cast<const double2*>(my_row + ring.slot_of(step) * ring.stride);
#pragma unroll
    for (int k = 0; k < K / 2; ++k) gr[k] = from[k];
  };
  take(0);

  double* out_row = out + static_cast<std::size_t>(forward ? 1 : g.N - 1) * g.M + m;
  const std::ptrdiff_t out_step = forward ? g.M : -g.M;
  int step = 0;
  // One step from the row of parity j (fixed at compile time: the rows' places are constants).
  auto advance = [&](auto parity) {
    constexpr int j = decltype(parity)::value;
    sync_named(Tc + 32);  // the barrier of step `step`
    const double scale = scales.of(j);
    const double v = band_sum<K>(forward, rows + j * stride, m, g.m_n_min, gr) * scale;
    // This step's row of the ring is used: its slot may take block step + ring, if any (each
    // completed phase of `taken` has the copier waiting on it).
    if (step + ring.size() < g.N) ring.release(step);
    rows[(1 - j) * stride + m] = v;
    if (active) *out_row = v;
    out_row += out_step;
    take(step + 1);  // landed, certified by this barrier (past the last step: unused)
    scales.publish(1 - j, row_scale::key_of(v));
    ++step;
  };
  while (step + 2 <= g.N) {
    advance(std::integral_constant<int, 0>{});
    advance(std::integral_constant<int, 1>{});
  }
  if (step < g.N) advance(std::integral_constant<int, 0>{});
  sync_named(Tc + 32);  // the barrier after the steps
  report_failure(b, f, forward, first_scale, scales.of(g.N & 1));
}

// The largest of every thread's key (all threads must call); `keys` holds 32 entries.
__device__ __forceinline__ unsigned block_key_max(unsigned key, unsigned* keys) {
  const int warps = (blockDim.x + 31) >> 5;
  __syncthreads();  // keys may still be read from a previous call
  key = row_scale::warp_max(key);
  if ((threadIdx.x & 31) == 0) keys[threadIdx.x >> 5] = key;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  return row_scale::warp_max(lane < warps ? keys[lane] : 0u);
}

// fb_step_kernel<K>: one step of alpha or beta for every frame (grid: frames), for local storage,
// where gamma of one index at a time lies in a ring (see gsum_block): i = g.index0, forward: the
// row alpha_{i+1} from alpha_i, else the row beta_i from beta_{i+1}, with the gsum block of i.
// The first step of a direction also writes its starting row, the last one reports a failure
// (see report_failure). The digits are those of the persistent kernel for the geometry:
// band_sum<K>'s four chains (fb_ring_kernel) or, K = 0, fb_kernel's one chain, times the power of
// two of the previous row's largest key. Shared: that row with P = max(K, M_n) zeros on each side.
template <int K>
__global__ void fb_step_kernel(device_geometry g, device_frames b, const double* gsum,
                               double* alpha, double* beta, const double* end_prior, int forward) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ unsigned keys[32];
  const int f = blockIdx.x, t = threadIdx.x, T = blockDim.x, i = g.index0;
  if (b.status[f] == status_skip) return;  // whole block
  const int pad = max(K, g.Mn);
  double* prev = reinterpret_cast<double*>(smem) + pad;  // prev[-pad .. M + pad)
  double* out = (forward ? alpha : beta) + static_cast<std::size_t>(f) * (g.N + 1) * g.M;
  const int from = forward ? i : i + 1;
  const bool starts = forward ? i == 0 : i == g.N - 1;
  const long long rho = b.rho[f];
  auto start_key = [&] {  // of the direction's starting row (stored by its first step)
    unsigned key = 0;
    for (int m = t; m < g.M; m += T)
      key = max(key, row_scale::key_of(out[static_cast<std::size_t>(forward ? 0 : g.N) * g.M + m]));
    return block_key_max(key, keys);
  };
  unsigned key = 0;
  for (int k = t - pad; k < g.M + pad; k += T) {
    double v = 0;
    if (k >= 0 && k < g.M) {
      double* at = out + static_cast<std::size_t>(from) * g.M + k;
      v = starts ? fb_start(g, forward, k, rho, end_prior) : *at;
      if (starts) *at = v;
      key = max(key, row_scale::key_of(v));
    }
    prev[k] = v;
  }
  const double scale = row_scale::of_key(block_key_max(key, keys));  // also: prev is complete
  const double* gs =
      gsum + gsum_block(g, f, i) + (forward ? 0 : static_cast<std::size_t>(g.M) * g.Kp);
  double* next = out + static_cast<std::size_t>(forward ? i + 1 : i) * g.M;
  key = 0;
  for (int m = t; m < g.M; m += T) {
    const double* gi = gs + static_cast<std::size_t>(m) * g.Kp;
    double v;
    if constexpr (K > 0)
      v = band_sum<K>(forward, prev, m, g.m_n_min, reinterpret_cast<const double2*>(gi));
    else
      v = chain_sum(g, forward, prev, m, gi);
    v *= scale;
    next[m] = v;
    key = max(key, row_scale::key_of(v));
  }
  if (forward ? i != g.N - 1 : i != 0) return;  // uniform
  const double last = row_scale::of_key(block_key_max(key, keys));
  const double first = forward || starts ? scale : row_scale::of_key(start_key());
  report_failure(b, f, forward, first, last);
}

}  // namespace gpufec::sync::cuda_detail
