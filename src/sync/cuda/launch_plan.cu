// plan_cuda(): the CUDA sync plan, from the device's limits and the occupancy API (seed paper
// sec. V: shapes are chosen at run time, never hard-coded). Storage and chunk from the memory
// budget, then every kernel's shape; the per-call rules that read them are in
// src/sync/plan/cuda_plan.cpp, the constants in policy.hpp.
#include <algorithm>
#include <vector>

#include "common/cuda/occupancy.cuh"
#include "gpufec/common/device.hpp"
#include "sync/cuda/kernel_tables.cuh"
#include "sync/cuda/kernels/alpha_beta_kernels.cuh"
#include "sync/cuda/kernels/app_kernel.cuh"
#include "sync/cuda/kernels/folded_kernels.cuh"
#include "sync/cuda/kernels/gamma_warp_kernel.cuh"
#include "sync/plan/cuda_backend.hpp"

namespace gpufec::sync::detail {
namespace {

using cuda::allow_shared;
using cuda::resident_blocks;
using namespace cuda_detail;

// Lanes over D: q itself when below a warp (several states then share a block), else whole warps.
int d_lanes(int q, int max_threads) {
  return q < 32 ? q : std::min(round_up(q, 32), std::max(32, max_threads / 32 * 32));
}

// Storage and chunk: the mode asked for (automatic: the fastest that fits
// policy::storage_min_frames frames, or the whole batch when smaller; else the one that fits the
// most), and as many frames as fit the budget (80% of free device memory by default).
void plan_storage(cuda_plan& p, const geometry& g, const decoder_options& o,
                  const cuda_plan_request& r) {
  p.budget = o.memory_budget ? o.memory_budget : p.free_memory / 10 * 8;
  const std::size_t limit = std::min<std::size_t>(p.max_batch, policy::max_chunk_frames);
  auto per_frame = [&](storage_mode s) {
    return bytes_per_frame(g, s, o.lattice_real, backend::cuda);
  };
  auto fit = [&](storage_mode s) { return std::min(limit, p.budget / per_frame(s)); };
  const std::size_t few = std::min(limit, policy::storage_min_frames);
  storage_mode s = r.storage;
  if (s == storage_mode::automatic)
    s = fit(storage_mode::global) >= few ? storage_mode::global
        : fit(storage_mode::compact) >= std::min(few, fit(storage_mode::local))
            ? storage_mode::compact
            : storage_mode::local;
  p.storage = s;
  std::size_t frames = fit(s);
  if (r.at_least_one) frames = std::max<std::size_t>(frames, 1);
  if (frames == 0)
    throw out_of_memory(cat("the CUDA sync decoder needs ", per_frame(s), " bytes per frame with ",
                            to_string(s), " storage but the budget is ", p.budget, " bytes (",
                            bytes_text(p.free_memory), " free on the device)",
                            s == storage_mode::local
                                ? "; shorter frames (a smaller N) need less"
                                : cat("; local storage (--storage local) needs ",
                                      per_frame(storage_mode::local), " bytes per frame")));
  if (r.chunk_cap) frames = std::min(frames, r.chunk_cap);
  p.chunk = frames;
}

// Block shapes (seed paper sec. V): lanes over D, then as many states per block as keep the block
// near policy::target_threads, shrunk until the shared memory fits the device, and the candidate
// with the most resident threads per SM (occupancy API) wins; on a tie, the smaller block.
template <class Kernel, class SharedOf>
launch_shape pick(const cuda_plan& p, const device_geometry& dg, Kernel kernel, int Bx,
                  int max_states, SharedOf shared_of) {
  cuda::shape_search search(kernel, p.shared_optin);
  std::vector<int> lane_options;  // whole warps first, then a single lane as the last resort
  for (int lanes = Bx; lanes >= 32; lanes -= 32) lane_options.push_back(lanes);
  if (Bx < 32) lane_options.push_back(Bx);
  if (lane_options.back() != 1) lane_options.push_back(1);
  for (int lanes : lane_options) {
    for (int states = std::clamp(policy::target_threads / lanes, 1, max_states); states >= 1;
         states /= 2) {
      const std::size_t shared = shared_of(lanes, states);
      const int blocks = search.resident(lanes * states, shared);
      // Ties go to the smaller block (states shrink in this loop): more, shorter blocks.
      search.offer({lanes * states, lanes, states, shared, blocks},
                   static_cast<long long>(blocks) * lanes * states, true);
    }
    if (search.best()) break;
  }
  const launch_shape best = search.best();
  require<out_of_memory>(best.threads > 0,
                         "the lattice rows need more shared memory than the device's ",
                         p.shared_optin, " bytes per block (row of ", dg.row_len, " values)");
  return best;
}

// gamma: the register-row kernel covers the common case (corridor lattice in float, a warp of D
// lanes, a row of at most 32 entries and at most 32 codeword symbols, so the received symbols a
// lattice reads fit one 64-bit mask, more than gamma_prefix_rows of them: always so for 32
// distinct binary codewords); a channel without substitutions has its variant.
void plan_gamma(cuda_plan& p, const device_geometry& dg) {
  const std::size_t real_bytes = p.f64_lattice ? 8 : 4;
  p.gamma_width = 0;
  p.gamma_nosub = dg.mismatch_f == 0.0f;
  if (!p.f64_lattice && dg.corridor && dg.q >= 32 && dg.n > gamma_prefix_rows && dg.n <= 32 &&
      dg.Mn >= 2 && dg.Mn <= gamma_warp_max_width && dg.N <= 65535)  // i is grid.y
    p.gamma_width = dg.Mn;
  if (p.gamma_width) {
    cuda::shape_search search(gamma_warp_for(p.gamma_width, p.gamma_nosub), p.shared_optin);
    for (int threads = 32; threads <= policy::gamma_max_threads; threads *= 2) {
      const std::size_t shared = gamma_warp_shared(p.gamma_width, threads);
      const int blocks = search.resident(threads, shared);
      search.offer({threads, 32, threads / 32, shared, blocks},
                   static_cast<long long>(blocks) * threads);
    }
    p.gamma = search.best();
    require(p.gamma.threads > 0, "no block of the gamma kernel fits the device");
    return;
  }
  const int Bx = d_lanes(dg.q, policy::target_threads);
  auto gamma_shared = [&](int lanes, int states) {
    const std::size_t T = static_cast<std::size_t>(lanes) * states;
    return align16(real_bytes * dg.row_len * T) + 8 * dg.Mn * T;
  };
  p.gamma = pick(p, dg, gamma_general_for(p.f64_lattice), Bx, dg.M, gamma_shared);
}

// alpha/beta: one block per (frame, direction). First choice: a thread per state and the two
// warps of the gsum ring, whose bulk copies (sm_90) keep up to 2^fb_max_log_ring blocks in flight
// (at least two) within half of a block's shared memory (two blocks per SM). Else the states
// looped over by up to a block of threads, gsum read from global memory. Local storage's steps
// (a block per frame, a thread per state up to policy::step_max_threads) compute the rows of the
// persistent kernel of the geometry bit for bit.
void plan_alpha_beta(cuda_plan& p, const device_geometry& dg) {
  const std::size_t M = dg.M, K = dg.Kg, Tc = round_up(dg.M, 32);
  auto prefetch_bytes = [&](int log_ring) {  // see fb_ring_kernel
    return 256 + 8 * (2 * (Tc + 2 * K) + (std::size_t{1} << log_ring) * Tc * dg.Kp);
  };
  p.fb_log_ring = fb_max_log_ring;
  while (p.fb_log_ring > 1 && prefetch_bytes(p.fb_log_ring) > p.shared_optin / 2) --p.fb_log_ring;
  p.fb_width = 0;
  p.fb = {};
  const int ring_threads = static_cast<int>(Tc) + 64;  // + the watcher and copier warps
  if (const fb_ring_fn ring = fb_ring_for(dg.Kg);
      ring && p.bulk_copies && ring_threads <= p.max_block_threads &&
      prefetch_bytes(p.fb_log_ring) <= p.shared_optin / 2) {
    const std::size_t shared = prefetch_bytes(p.fb_log_ring);
    allow_shared(ring, shared);
    if (const int blocks = resident_blocks(ring, ring_threads, shared); blocks > 0) {
      p.fb_width = dg.Kg;
      p.fb = {ring_threads, 1, ring_threads - 64, shared, blocks};
    }
  }
  if (!p.fb_width) {
    const std::size_t rows_bytes = 8 * 2 * (M + 2 * static_cast<std::size_t>(dg.Mn));
    require<out_of_memory>(rows_bytes <= p.shared_optin, "two rows of ", dg.M,
                           " drift states need more shared memory than the device's ",
                           p.shared_optin, " bytes per block");
    p.fb = cuda::widest_resident(fb_kernel, std::min(round_up(dg.M, 32), p.max_block_threads),
                                 rows_bytes);
  }
  require(p.fb.threads > 0, "no block of the alpha/beta kernel fits the device");
  p.step = {};
  if (p.ring()) {
    const std::size_t shared = 8 * (M + 2 * static_cast<std::size_t>(std::max(p.fb_width, dg.Mn)));
    require<out_of_memory>(shared <= p.shared_optin, "a row of ", dg.M,
                           " drift states needs more shared memory than the device's ",
                           p.shared_optin, " bytes per block");
    p.step = cuda::widest_resident(
        fb_step_for(p.fb_width),
        std::min({round_up(dg.M, 32), policy::step_max_threads, p.max_block_threads}), shared);
    require(p.step.threads > 0, "no block of the alpha/beta step kernel fits the device");
  }
}

// L: G state groups (a power of two, fixed by the geometry so that the sums do not depend on the
// shape), and the shapes for large launches, from V (folded chunks) and, widest first, wider ones
// for small launches (fewer states per thread, the same sums).
void plan_app(cuda_plan& p, const device_geometry& dg) {
  const std::size_t real_bytes = p.f64_lattice ? 8 : 4;
  p.app_groups = 1;
  while (p.app_groups < policy::app_max_groups &&
         p.app_groups * 2 * dg.q <= policy::app_max_acc_doubles)
    p.app_groups *= 2;
  // Symbols per lane: 4 (one 16-byte load of stored float R) when q allows it.
  p.app_symbols_per_lane = !p.f64_lattice && p.stores_gamma() && dg.q % 4 == 0 ? 4 : 1;
  auto app_shared = [&](int lanes, int states) {
    const std::size_t T = static_cast<std::size_t>(lanes) * states;
    return 8 * (static_cast<std::size_t>(p.app_groups) * dg.q + 2 * dg.M) +
           (p.stores_gamma() ? 0 : real_bytes * dg.row_len * T);
  };
  const int max_groups = std::min(p.app_groups, dg.M);
  const app_fn app = app_for(p.f64_lattice, p.stores_gamma() ? app_from_gamma : app_from_lattice,
                             p.app_symbols_per_lane);
  p.app = pick(p, dg, app, d_lanes(dg.q / p.app_symbols_per_lane, policy::target_threads),
               max_groups, app_shared);
  if (p.fold_items.threads || p.fold_frames.threads)
    p.app_from_v = pick(p, dg, app_for(false, app_from_v, 1), d_lanes(dg.q, policy::target_threads),
                        max_groups, app_shared);
  p.app_wide.clear();
  std::size_t most = p.app.shared;  // the kernel's shared-memory limit covers every shape
  for (int states = std::min(max_groups, p.max_block_threads / p.app.Bx); states > p.app.By;
       states /= 2) {
    const std::size_t shared = app_shared(p.app.Bx, states);
    if (shared > p.shared_optin) continue;
    allow_shared(app, most = std::max(most, shared));
    const int blocks = resident_blocks(app, p.app.Bx * states, shared);
    if (blocks > 0) p.app_wide.push_back({p.app.Bx * states, p.app.Bx, states, shared, blocks});
  }
}

// The folded path for large chunks: the register-row gamma, beta rows as fb_ring_kernel computes
// them, and V in the place of R (global storage). Items: the gamma shape's blocks. Frames: a block
// of `warps` warps per frame, each `per_warp` states: the fewest states per warp from
// policy::frame_least_states_per_warp up that keeps policy::frame_resident_warps warps resident
// per SM, else the most resident warps.
void plan_fold(cuda_plan& p, const device_geometry& dg) {
  p.fold_items = {};
  p.fold_frames = {};
  p.frame_states_per_warp = 0;
  if (!(p.gamma_width && p.fb_width && p.storage == storage_mode::global)) return;
  {
    const auto kernel = gamma_beta_for(p.gamma_width, p.gamma_nosub);
    const int threads = p.gamma.threads;
    const std::size_t shared = gamma_beta_shared(p.gamma_width, threads);
    if (shared <= p.shared_optin) {
      allow_shared(kernel, shared);
      if (const int blocks = resident_blocks(kernel, threads, shared); blocks > 0)
        p.fold_items = {threads, 32, threads / 32, shared, blocks};
    }
  }
  cuda::shape_search search(gamma_beta_frame_for(p.gamma_width, p.gamma_nosub), p.shared_optin);
  const int max_warps = std::min(policy::frame_max_threads, p.max_block_threads) / 32;
  const int least = std::min(policy::frame_least_states_per_warp, dg.M);
  for (int warps = std::min(max_warps, dg.M); warps >= 1; --warps) {
    const int per_warp = (dg.M + warps - 1) / warps;
    if (per_warp > gamma_warp_max_tasks) break;
    // Each block size with its fewest states per warp (and no warp without states).
    if (per_warp < least || (dg.M + per_warp - 1) / per_warp != warps) continue;
    const std::size_t shared = gamma_beta_frame_shared(p.gamma_width, warps * 32, dg.M, dg.Kp);
    const int blocks = search.resident(warps * 32, shared);
    const int resident = blocks * warps;
    if (!search.offer({warps * 32, 32, warps, shared, blocks}, resident)) continue;
    p.fold_frames = search.best();
    p.frame_states_per_warp = per_warp;
    if (resident >= policy::frame_resident_warps) break;
  }
}

}  // namespace

cuda_plan plan_cuda(const geometry& g, const decoder_options& o, std::size_t max_batch,
                    const cuda_plan_request& r) {
  require(g.alphabet == 2, "the CUDA decoder supports the binary channel alphabet only");
  const cuda::device_limits limits = cuda::current_device_limits();
  cuda_plan p;
  p.sm_count = limits.sm_count;
  p.shared_optin = limits.shared_optin;
  p.max_block_threads = limits.max_block_threads;
  p.bulk_copies = limits.compute_major >= 9;
  p.least_priority = limits.least_priority;
  p.greatest_priority = limits.greatest_priority;
  p.free_memory = limits.free_memory;
  p.q = g.q;
  p.N = g.N;
  p.M = g.M_tau;
  p.Mn = g.M_n;
  p.max_batch = max_batch;
  p.capacity = static_cast<std::size_t>(g.tau + g.frame.hi);
  p.f64_lattice = o.lattice_real == real_kind::f64;
  p.storage_automatic = o.storage == storage_mode::automatic;
  p.fold = o.fold;
  p.fold_min_frames_option =
      static_cast<int>(std::min<std::size_t>(o.fold_min_frames, std::size_t{1} << 30));
  plan_storage(p, g, o, r);
  const device_geometry dg = make_device_geometry(g, p.stored_rows());
  plan_gamma(p, dg);
  plan_alpha_beta(p, dg);
  plan_fold(p, dg);
  plan_app(p, dg);
  return p;
}

}  // namespace gpufec::sync::detail
