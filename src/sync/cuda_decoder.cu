// The CUDA engine: shapes from device limits, storage and chunk size from free memory (falling
// back to smaller chunks and leaner storage when an allocation fails), and the launch sequence.
#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <sstream>
#include <thread>

#include "common/host_copy.hpp"
#include "sync/cuda_decoder_kernels.cuh"
#include "sync/cuda_engine.cuh"
#include "sync/cuda_fb_kernels.cuh"
#include "sync/cuda_folded_kernel.cuh"
#include "sync/cuda_gamma_warp.cuh"
#include "sync/cuda_kernel_tables.cuh"

namespace gpufec::sync {
namespace cuda_detail {
namespace {

constexpr int target_threads = 256;  // block size aimed for before occupancy checks

int round_up(int v, int m) {
  return (v + m - 1) / m * m;
}

template <class Kernel>
int occupancy(Kernel kernel, int threads, std::size_t shared) {
  int blocks = 0;
  GPUFEC_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
  return blocks;
}

template <class Kernel>
void allow_shared(Kernel kernel, std::size_t shared) {
  GPUFEC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(shared)));
  // Every kernel asks for the largest shared-memory carveout, so that an SM running one kernel's
  // blocks can take another's without first draining to change its L1/shared split (kernels of
  // different parts run side by side).
  GPUFEC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         cudaSharedmemCarveoutMaxShared));
}

// A block per frame, a thread per state: the widest block of whole warps, from `threads` down by
// halves, that keeps a block resident on an SM with `shared` bytes (zero threads: none does).
template <class Kernel>
launch_shape widest_resident(Kernel kernel, int threads, std::size_t shared) {
  allow_shared(kernel, shared);
  for (threads = round_up(threads, 32);; threads = round_up(threads / 2, 32)) {
    if (const int blocks = occupancy(kernel, threads, shared); blocks > 0)
      return {threads, 1, threads, shared, blocks};
    if (threads == 32) return {};
  }
}

// Lanes over D: q itself when below a warp (several states then share a block), else whole warps.
int d_lanes(int q, int max_threads) {
  return q < 32 ? q : std::min(round_up(q, 32), std::max(32, max_threads / 32 * 32));
}

constexpr std::size_t pinned_output_limit = std::size_t{256} << 20;  // bytes staged per chunk
constexpr int max_parts = 6;         // a chunk is decoded in up to this many pipelined parts
constexpr int min_part_frames = 32;  // ... of at least this many frames

}  // namespace

cuda_engine::cuda_engine(const tvb_code& code, const detail::geometry& g,
                         const decoder_options& options, std::size_t max_batch,
                         storage_mode& storage)
    : host_g_(g),
      f64_lattice_(options.lattice_real == real_kind::f64),
      max_batch_(max_batch),
      fold_min_frames_(static_cast<int>(std::min<std::size_t>(options.fold_min_frames, 1 << 30))),
      fold_(options.fold) {
  require(code.alphabet() == 2, "the CUDA decoder supports the binary channel alphabet only");
  require(options.fb_real == real_kind::f64,
          "the CUDA decoder computes alpha/beta/L in double (fb_real = float is not implemented)");
  g_.q = g.q;
  g_.n = g.n;
  g_.N = g.N;
  g_.tau = g.tau;
  g_.lo = g.frame.lo;
  g_.hi = g.frame.hi;
  g_.clo = g.codeword.lo;
  g_.chi = g.codeword.hi;
  g_.M = g.M_tau;
  g_.Mn = g.M_n;
  g_.Kg = round_up(g.M_n, 4);
  g_.Kp = g_.Kg + 2;
  g_.gsum_stride = 2 * g_.M * g_.Kp;
  g_.corridor = g.lattice == lattice_mode::corridor;
  g_.end_known = g.end_known;
  g_.ins = g.ins;
  g_.del = g.del;
  g_.match = g.match;
  g_.mismatch = g.mismatch;
  g_.uniform_prior = 1.0 / g.q;
  g_.ins_f = static_cast<float>(g.ins);
  g_.del_f = static_cast<float>(g.del);
  g_.match_f = static_cast<float>(g.match);
  g_.mismatch_f = static_cast<float>(g.mismatch);
  for (int k = 0; k < static_cast<int>(std::size(g_.row0)); ++k) {
    const int d = g.codeword.lo + k;
    g_.row0[k] = d < 0 ? 0.0f : d == 0 ? 1.0f : g_.ins_f * g_.row0[k - 1];
  }
  g_.row_min = g_.corridor ? g.codeword.lo : -g.n;
  g_.row_len = g_.corridor ? g.M_n + 1 : g.n + g.max_mu() + 2;
  capacity_ = static_cast<std::size_t>(g.tau + g.frame.hi);

  int device = 0;
  GPUFEC_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  GPUFEC_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  sm_count_ = prop.multiProcessorCount;
  shared_optin_ = prop.sharedMemPerBlockOptin;
  max_block_threads_ = prop.maxThreadsPerBlock;
  bulk_copies_ = prop.major >= 9;
  int least_priority = 0, greatest_priority = 0;
  GPUFEC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least_priority, &greatest_priority));
  for (cudaStream_t* st : {&stream_, &stream2_})
    GPUFEC_CUDA_CHECK(cudaStreamCreateWithPriority(st, cudaStreamNonBlocking, greatest_priority));
  gamma_streams_.resize(max_parts);
  gamma_done_.resize(max_parts);
  // Part k's gamma stream ranks below part k - 1's (down to the least priority): freed SM slots go
  // to the earliest part's queued blocks (the graph's first dispatch fills the device in an order
  // of its own).
  for (int k = 0; k < max_parts; ++k)
    GPUFEC_CUDA_CHECK(
        cudaStreamCreateWithPriority(&gamma_streams_[k], cudaStreamNonBlocking,
                                     std::min(greatest_priority + 1 + k, least_priority)));
  for (cudaEvent_t& e : gamma_done_)
    GPUFEC_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  for (cudaStream_t& st : ring_streams_)
    GPUFEC_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (cudaEvent_t& e : ring_events_)
    GPUFEC_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  GPUFEC_CUDA_CHECK(cudaEventCreate(&start_));
  GPUFEC_CUDA_CHECK(cudaEventCreateWithFlags(&inputs_ready_, cudaEventDisableTiming));
  GPUFEC_CUDA_CHECK(cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming));
  parts_.resize(max_parts);
  for (auto& p : parts_)
    for (auto& e : p.events) GPUFEC_CUDA_CHECK(cudaEventCreate(&e));

  // Codewords as bit masks (bit r = symbol r), [i][D]: the flat table of sec. III-B.
  std::vector<std::uint32_t> masks(static_cast<std::size_t>(g.N) * g.q);
  for (int i = 0; i < g.N; ++i)
    for (int D = 0; D < g.q; ++D) {
      std::uint32_t m = 0;
      const std::uint8_t* x = code.codeword(i, D);
      for (int r = 0; r < g.n; ++r) m |= static_cast<std::uint32_t>(x[r] & 1u) << r;
      masks[static_cast<std::size_t>(i) * g.q + D] = m;
    }
  codewords_.resize(masks.size());
  GPUFEC_CUDA_CHECK(
      cudaMemcpy(codewords_.get(), masks.data(), masks.size() * 4, cudaMemcpyHostToDevice));
  if (!g.end_known) {
    end_prior_.resize(g.end_prior.size());
    GPUFEC_CUDA_CHECK(cudaMemcpy(end_prior_.get(), g.end_prior.data(), g.end_prior.size() * 8,
                                 cudaMemcpyHostToDevice));
  }

  // Storage and chunk: as many frames as fit the budget (80% of free memory by default).
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUFEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t budget = options.memory_budget ? options.memory_budget : free_bytes / 10 * 8;
  const std::size_t limit = std::min<std::size_t>(max_batch, 65535);  // grid.y
  auto fit = [&](storage_mode s) { return std::min(limit, budget / bytes_per_frame(s)); };
  // automatic: the fastest mode that fits a few frames (or as many as the batch has), else the
  // one that fits the most.
  const std::size_t few = std::min<std::size_t>(limit, 8);
  if (storage == storage_mode::automatic)
    storage = fit(storage_mode::global) >= few ? storage_mode::global
              : fit(storage_mode::compact) >= std::min(few, fit(storage_mode::local))
                  ? storage_mode::compact
                  : storage_mode::local;
  storage_ = storage;
  std::size_t frames = fit(storage_);
  if (frames == 0)
    throw out_of_memory(cat("the CUDA sync decoder needs ", bytes_per_frame(storage_),
                            " bytes per frame with ", to_string(storage),
                            " storage but the budget is ", budget, " bytes (", free_bytes,
                            " free on the device)"));
  // An allocation can still fail (fragmentation, other processes): halve the chunk, then try the
  // next mode (compact, then local) when the storage was chosen automatically.
  const bool may_switch = options.storage == storage_mode::automatic;
  for (;;) {
    try {
      allocate(frames);
      break;
    } catch (const out_of_memory&) {
      if (frames > 1) {
        frames /= 2;
      } else if (may_switch && storage_ != storage_mode::local) {
        storage_ = storage_ == storage_mode::global ? storage_mode::compact : storage_mode::local;
        storage = storage_;
        frames = std::max<std::size_t>(fit(storage_), 1);
      } else {
        throw;
      }
    }
  }
  choose_shapes();
  // The zeroing of gsum and the table copies above ran on the legacy stream, which the decode
  // streams (non-blocking) do not wait for; a pageable copy may even return before its DMA ends.
  GPUFEC_CUDA_CHECK(cudaDeviceSynchronize());
}

cuda_engine::~cuda_engine() {
  for (auto& p : parts_)
    for (auto& e : p.events)
      if (e) cudaEventDestroy(e);
  graph_.reset();
  for (cudaEvent_t e : {start_, inputs_ready_, joined_})
    if (e) cudaEventDestroy(e);
  for (cudaEvent_t e : ring_events_)
    if (e) cudaEventDestroy(e);
  for (cudaStream_t st : {stream_, stream2_})
    if (st) cudaStreamDestroy(st);
  for (cudaStream_t st : ring_streams_)
    if (st) cudaStreamDestroy(st);
  for (cudaEvent_t e : gamma_done_)
    if (e) cudaEventDestroy(e);
  for (cudaStream_t st : gamma_streams_)
    if (st) cudaStreamDestroy(st);
}

// Index rows of R and gsum kept per frame: all N, or the ring of local storage.
int cuda_engine::stored_rows(storage_mode s) const {
  return s == storage_mode::local ? std::min(g_.N, static_cast<int>(ring_streams_.size())) : g_.N;
}

std::size_t cuda_engine::bytes_per_frame(storage_mode s) const {
  const std::size_t N = g_.N, M = g_.M, Mn = g_.Mn, q = g_.q, rows = stored_rows(s);
  const std::size_t real_bytes = f64_lattice_ ? 8 : 4;
  return (s != storage_mode::compact ? rows * M * Mn * q * real_bytes : 0)  // R
         + rows * g_.gsum_stride * 8                                        // gsum
         + 3 * (N + 1) * M * 8                                              // alpha, beta, lambda
         + N * q * 8 * 2 + N * 4   // app, priors, decisions
         + capacity_ + 2 * 8 + 4;  // y, offsets, rho, status
}

void cuda_engine::allocate(std::size_t frames) {
  const std::size_t N = g_.N, M = g_.M, Mn = g_.Mn, q = g_.q;
  const std::size_t real_bytes = f64_lattice_ ? 8 : 4;
  g_.rows = stored_rows(storage_);
  g_.index0 = 0;
  gamma_.release();
  if (stores_gamma()) gamma_.resize(frames * g_.rows * M * Mn * q * real_bytes);
  gsum_.resize(gsum_block(g_, static_cast<int>(frames), 0));
  app_blocks_done_.resize(1);
  counters_.resize(fold_counters(static_cast<int>(frames)));
  GPUFEC_CUDA_CHECK(cudaMemset(app_blocks_done_.get(), 0, sizeof(unsigned)));
  // The entries of gsum no gamma kernel writes stay zero, as alpha/beta expect (gsum_block).
  GPUFEC_CUDA_CHECK(cudaMemset(gsum_.get(), 0, gsum_.bytes()));
  alpha_.resize(frames * (N + 1) * M);
  beta_.resize(frames * (N + 1) * M);
  // Each part's decisions, APPs and drift posteriors, laid out as results_layout() says.
  const result_counts c = results_per_frame();
  results_.resize(frames * (c.decisions * 4 + (c.app + c.lambda) * 8) + max_parts * 3 * 16);
  inputs_.resize(inputs_at(nullptr, static_cast<int>(frames)).bytes);
  graph_.reset();  // it holds the old buffers
  chunk_ = frames;
}

cuda_engine::frame_inputs cuda_engine::inputs_at(unsigned char* base, int count) const {
  const std::size_t n = static_cast<std::size_t>(count);
  const std::size_t rho_at = (n + 1) * 8, status_at = rho_at + n * 8;
  const std::size_t y_at = align16(status_at + n * sizeof(int));
  return {base + y_at, reinterpret_cast<long long*>(base),
          reinterpret_cast<long long*>(base + rho_at), reinterpret_cast<int*>(base + status_at),
          y_at + n * capacity_};
}

std::size_t cuda_engine::allocated_bytes() const {
  return codewords_.bytes() + end_prior_.bytes() + inputs_.bytes() + priors_.bytes() +
         gamma_.bytes() + gsum_.bytes() + alpha_.bytes() + beta_.bytes() + results_.bytes() +
         counters_.bytes();
}

// Symbols per lane of the L kernel: 4 (one 16-byte load of stored float R) when q allows it.
int cuda_engine::app_symbols_per_lane() const {
  return !f64_lattice_ && stores_gamma() && g_.q % 4 == 0 ? 4 : 1;
}

// Block shapes (seed paper sec. V): lanes over D, then as many states per block as keep the block
// near `target_threads`, shrunk until the shared memory fits the device, and the candidate with
// the most resident threads per SM (occupancy API) wins; on a tie, the smaller block.
void cuda_engine::choose_shapes() {
  const std::size_t real_bytes = f64_lattice_ ? 8 : 4;
  auto pick = [&](auto kernel, int Bx, int max_states, auto shared_of) {
    launch_shape best;
    std::vector<int> lane_options;  // whole warps first, then a single lane as the last resort
    for (int lanes = Bx; lanes >= 32; lanes -= 32) lane_options.push_back(lanes);
    if (Bx < 32) lane_options.push_back(Bx);
    if (lane_options.back() != 1) lane_options.push_back(1);
    for (int lanes : lane_options) {
      for (int states = std::clamp(target_threads / lanes, 1, max_states); states >= 1;
           states /= 2) {
        const std::size_t shared = shared_of(lanes, states);
        if (shared > shared_optin_) continue;
        allow_shared(kernel, shared);
        const int blocks = occupancy(kernel, lanes * states, shared);
        // Ties go to the smaller block (states shrink in this loop): more, shorter blocks.
        if (blocks > 0 && blocks * lanes * states >= best.blocks_per_sm * best.threads)
          best = {lanes * states, lanes, states, shared, blocks};
      }
      if (best.threads) break;
    }
    require<out_of_memory>(best.threads > 0,
                           "the lattice rows need more shared memory than the device's ",
                           shared_optin_, " bytes per block (row of ", g_.row_len, " values)");
    allow_shared(kernel, best.shared);
    return best;
  };
  // The register-row gamma kernel covers the common case: corridor lattice in float, a warp of
  // D lanes, a row of at most 32 entries and at most 32 codeword symbols (the received symbols a
  // lattice reads then fit one 64-bit mask), more than gamma_prefix_rows of them (always so for
  // 32 distinct binary codewords). A channel without substitutions has its variant.
  gamma_width_ = 0;
  if (!f64_lattice_ && g_.corridor && g_.q >= 32 && g_.n > gamma_prefix_rows && g_.n <= 32 &&
      g_.Mn >= 2 && g_.Mn <= gamma_warp_max_width && g_.N <= 65535)  // i is grid.y
    gamma_width_ = g_.Mn;
  if (gamma_width_) {
    const auto kernel = gamma_warp_for(gamma_width_, gamma_nosub());
    for (int threads = 32; threads <= target_threads; threads *= 2) {
      const std::size_t shared = gamma_warp_shared(gamma_width_, threads);
      if (shared > shared_optin_) continue;
      allow_shared(kernel, shared);
      const int blocks = occupancy(kernel, threads, shared);
      if (blocks * threads > gamma_shape_.blocks_per_sm * gamma_shape_.threads)
        gamma_shape_ = {threads, 32, threads / 32, shared, blocks};
    }
    require(gamma_shape_.threads > 0, "no block of the gamma kernel fits the device");
    allow_shared(kernel, gamma_shape_.shared);
  }
  const int Bx = d_lanes(g_.q, target_threads);
  auto gamma_shared = [&](int lanes, int states) {
    const std::size_t T = static_cast<std::size_t>(lanes) * states;
    return align16(real_bytes * g_.row_len * T) + 8 * g_.Mn * T;
  };
  if (f64_lattice_)
    gamma_shape_ = pick(gamma_kernel<double>, Bx, g_.M, gamma_shared);
  else if (!gamma_width_)
    gamma_shape_ = pick(gamma_kernel<float>, Bx, g_.M, gamma_shared);
  // L: G state groups (a power of two, at most 32, acc of G * q doubles within 8 KB), fixed by
  // the geometry so that the sums do not depend on the shape.
  app_groups_ = 1;
  while (app_groups_ < 32 && app_groups_ * 2 * g_.q <= 1024) app_groups_ *= 2;
  auto app_shared = [&](int lanes, int states) {
    const std::size_t T = static_cast<std::size_t>(lanes) * states;
    return 8 * (static_cast<std::size_t>(app_groups_) * g_.q + 2 * g_.M) +
           (stores_gamma() ? 0 : real_bytes * g_.row_len * T);
  };
  const int max_groups = std::min(app_groups_, g_.M);
  const app_fn app = app_for(f64_lattice_, stores_gamma() ? app_from_gamma : app_from_lattice,
                             app_symbols_per_lane());
  app_shape_ =
      pick(app, d_lanes(g_.q / app_symbols_per_lane(), target_threads), max_groups, app_shared);
  // alpha/beta: one block per (frame, direction). First choice: a thread per state and the two
  // warps of the gsum ring, whose bulk copies (sm_90) keep up to 2^fb_max_log_ring blocks in
  // flight (at least two) within half of a block's shared memory (two blocks per SM). Else the
  // states looped over by up to a block of threads, gsum read from global memory.
  const std::size_t M = g_.M, K = g_.Kg, Tc = round_up(g_.M, 32);
  auto prefetch_bytes = [&](int log_ring) {  // see fb_ring_kernel
    return 256 + 8 * (2 * (Tc + 2 * K) + (std::size_t{1} << log_ring) * Tc * g_.Kp);
  };
  fb_log_ring_ = fb_max_log_ring;
  while (fb_log_ring_ > 1 && prefetch_bytes(fb_log_ring_) > shared_optin_ / 2) --fb_log_ring_;
  fb_width_ = 0;
  fb_shape_ = {};
  const int ring_threads = static_cast<int>(Tc) + 64;  // + the watcher and copier warps
  if (const fb_ring_fn ring = fb_ring_for(g_.Kg);
      ring && bulk_copies_ && ring_threads <= max_block_threads_ &&
      prefetch_bytes(fb_log_ring_) <= shared_optin_ / 2) {
    const std::size_t shared = prefetch_bytes(fb_log_ring_);
    allow_shared(ring, shared);
    if (const int blocks = occupancy(ring, ring_threads, shared); blocks > 0) {
      fb_width_ = g_.Kg;
      fb_shape_ = {ring_threads, 1, ring_threads - 64, shared, blocks};
    }
  }
  if (!fb_width_) {
    const std::size_t rows_bytes = 8 * 2 * (M + 2 * static_cast<std::size_t>(g_.Mn));
    require<out_of_memory>(rows_bytes <= shared_optin_, "two rows of ", g_.M,
                           " drift states need more shared memory than the device's ",
                           shared_optin_, " bytes per block");
    fb_shape_ =
        widest_resident(fb_kernel, std::min(round_up(g_.M, 32), max_block_threads_), rows_bytes);
  }
  require(fb_shape_.threads > 0, "no block of the alpha/beta kernel fits the device");
  // Local storage's alpha/beta, one step per launch: a block per frame, a thread per state up to
  // 512, in the order of the persistent kernel above (the same digits in every storage mode).
  step_shape_ = {};
  if (ring()) {
    const std::size_t shared = 8 * (M + 2 * static_cast<std::size_t>(std::max(fb_width_, g_.Mn)));
    require<out_of_memory>(shared <= shared_optin_, "a row of ", g_.M,
                           " drift states needs more shared memory than the device's ",
                           shared_optin_, " bytes per block");
    step_shape_ = widest_resident(fb_step_for(fb_width_),
                                  std::min({round_up(g_.M, 32), 512, max_block_threads_}), shared);
    require(step_shape_.threads > 0, "no block of the alpha/beta step kernel fits the device");
  }
  // The folded path (gamma_beta_kernel, alpha alone, L from V) for large parts: it needs the
  // register-row gamma, beta rows as fb_ring_kernel computes them, and V in the place of R.
  fold_shape_ = {};
  app_v_shape_ = {};
  const bool can_fold = gamma_width_ && fb_width_ && storage_ == storage_mode::global;
  if (can_fold) {
    const auto kernel = gamma_beta_for(gamma_width_, gamma_nosub());
    const int threads = gamma_shape_.threads;
    const std::size_t shared = gamma_beta_shared(gamma_width_, threads);
    if (shared <= shared_optin_) {
      allow_shared(kernel, shared);
      if (const int blocks = occupancy(kernel, threads, shared); blocks > 0)
        fold_shape_ = {threads, 32, threads / 32, shared, blocks};
    }
  }
  // The frame-folded path: a block of `warps` warps per frame, each `per_warp` states. The fewest
  // states per warp from 8 up (a warp's setup per index is then shared by 8 lattices or more)
  // that keeps 16 warps resident per SM, else the most resident warps. Measured at M_tau = 33
  // (bench/RESULTS.md, thirteenth session): 9 states (4 warps) beat 11 (3), 7, 6 and 3 by 1-8%.
  frame_shape_ = {};
  frame_per_warp_ = 0;
  if (can_fold) {
    const auto kernel = gamma_beta_frame_for(gamma_width_, gamma_nosub());
    const int max_warps = std::min(512, max_block_threads_) / 32;
    const int least = std::min(8, g_.M);
    for (int warps = std::min(max_warps, g_.M); warps >= 1; --warps) {
      const int per_warp = (g_.M + warps - 1) / warps;
      if (per_warp > gamma_warp_max_tasks) break;
      // Each block size with its fewest states per warp (and no warp without states).
      if (per_warp < least || (g_.M + per_warp - 1) / per_warp != warps) continue;
      const std::size_t shared = gamma_beta_frame_shared(gamma_width_, warps * 32, g_.M, g_.Kp);
      if (shared > shared_optin_) continue;
      allow_shared(kernel, shared);
      const int blocks = occupancy(kernel, warps * 32, shared);
      const int resident = blocks * warps;
      if (blocks == 0 ||
          (frame_shape_.threads && resident <= frame_shape_.blocks_per_sm * frame_shape_.By))
        continue;
      frame_shape_ = {warps * 32, 32, warps, shared, blocks};
      frame_per_warp_ = per_warp;
      if (resident >= 16) break;
    }
    if (frame_shape_.threads) allow_shared(kernel, frame_shape_.shared);
  }
  if (fold_shape_.threads || frame_shape_.threads)
    app_v_shape_ =
        pick(app_for(false, app_from_v, 1), d_lanes(g_.q, target_threads), max_groups, app_shared);
  // Wider L shapes for small batches, widest first: a part takes the widest whose one wave holds
  // all its blocks (fewer states per thread, the same sums), else app_shape_.
  app_wide_shapes_.clear();
  std::size_t most = app_shape_.shared;  // the kernel's shared-memory limit covers every shape
  for (int states = std::min(max_groups, max_block_threads_ / app_shape_.Bx);
       states > app_shape_.By; states /= 2) {
    const std::size_t shared = app_shared(app_shape_.Bx, states);
    if (shared > shared_optin_) continue;
    allow_shared(app, most = std::max(most, shared));
    const int blocks = occupancy(app, app_shape_.Bx * states, shared);
    if (blocks > 0)
      app_wide_shapes_.push_back({app_shape_.Bx * states, app_shape_.Bx, states, shared, blocks});
  }
}

std::vector<std::string> cuda_engine::kernel_shapes() const {
  auto line = [&](const char* name, const launch_shape& s, const std::string& grid) {
    std::ostringstream os;
    os << name << ": block " << s.threads << " (" << s.Bx << " D lanes x " << s.By
       << " states), grid " << grid << ", shared " << s.shared << " B, " << s.blocks_per_sm
       << " blocks/SM on " << sm_count_ << " SMs";
    return os.str();
  };
  const int tiles = (g_.M + gamma_shape_.By - 1) / gamma_shape_.By;
  std::vector<std::string> lines = {
      gamma_width_
          ? line(cat("gamma (register row of ", gamma_width_, ")").c_str(), gamma_shape_,
                 cat("a warp per up to ", gamma_warp_max_tasks,
                     " states m' of one (frame, i), fewer for small batches: ", g_.N * g_.M,
                     " states x frames", gamma_nosub() ? ", no substitutions" : ""))
          : line("gamma", gamma_shape_, cat(g_.N * tiles, " x frames")),
      line(fb_width_ ? cat("alpha/beta (thread per state, gsum blocks prefetched, K = ", fb_width_,
                           ", ", 1 << fb_log_ring_, " in flight)")
                           .c_str()
                     : "alpha/beta",
           fb_shape_, "frames x 2 (persistent over i)"),
      line(cat("L (", stores_gamma() ? "stored" : "recomputed", " gamma",
               app_symbols_per_lane() > 1 ? ", 4 symbols per lane" : "", ")")
               .c_str(),
           app_shape_, cat(g_.N, " x frames")),
      app_wide_shapes_.empty()
          ? std::string("L, small batches: the same shape")
          : line("L, small batches (widest)", app_wide_shapes_.front(), cat(g_.N, " x frames"))};
  const bool frames = folds_by_frames();
  if (!(frames ? frame_shape_.threads : fold_shape_.threads)) {
    lines.push_back("gamma+beta folded: not for this geometry, storage or device");
  } else if (!fold_min_frames()) {
    lines.push_back(cat("gamma+beta folded: not by default at M_n = ", g_.Mn,
                        " (decoder_options::fold_min_frames)"));
  } else {
    lines.push_back(
        frames ? line(cat("gamma+beta folded, chunks of ", fold_min_frames(),
                          "+ frames: a block per frame, ", frame_per_warp_, " states per warp")
                          .c_str(),
                      frame_shape_, "frames of a part, i descending in each block")
               : line(cat("gamma+beta folded, chunks of ", fold_min_frames(), "+ frames").c_str(),
                      fold_shape_, "a warp per item of states of one (frame, i), i descending"));
    lines.push_back(line("L from V (folded chunks)", app_v_shape_, cat(g_.N, " x frames")));
  }
  if (ring())
    lines.push_back(line("alpha/beta step (local storage)", step_shape_,
                         cat("frames, a launch per index and direction, index i on stream i % ",
                             g_.rows, " of ", g_.rows, " rotating streams")));
  lines.push_back(cat("storage ", to_string(storage_), ", chunk ", chunk_, " frames of max batch ",
                      max_batch_, ", ", allocated_bytes() >> 20, " MiB on the device"));
  return lines;
}

int cuda_engine::gamma_states_per_warp(int frames, int indices) const {
  // As many states per warp as leave ~4 waves of warps on the device (what a warp does once per
  // (frame, i) is then shared by more lattices, and the last wave stays short), at most
  // gamma_warp_max_tasks, spread evenly over the warps of one (frame, i).
  const long long lattices = static_cast<long long>(frames) * indices * g_.M;
  const long long resident =
      static_cast<long long>(sm_count_) * gamma_shape_.blocks_per_sm * (gamma_shape_.threads / 32);
  const int want = static_cast<int>(
      std::clamp<long long>(lattices / (4 * std::max(resident, 1LL)), 1, gamma_warp_max_tasks));
  // Whole blocks of busy warps: a warp with nothing to do would hold its block's slot.
  const int per_block = gamma_shape_.threads / 32;
  const int warps = round_up((g_.M + want - 1) / want, per_block);
  return (g_.M + warps - 1) / warps;
}

// The folded path pays once a chunk has enough frames, and when V saves enough of R's bytes (R
// has M_n / 2 times V's) to pay for the folding. Measured on the H200 (bench/RESULTS.md, eleventh
// to thirteenth sessions) at q = 32, N = 210:
// - items: at p = 1e-2 (M = 88, M_n = 16) 1000 and 4000 frames fold 17% faster; at 1e-3 (M = 33,
//   M_n = 11) 1000, 2000 and 4000 frames fold 2%, 7% and 10% slower: their rounds of items are
//   too short. So items fold from 16 waves, and only from M_n = 16.
// - frames: at 1e-3, 3000 and 4000 frames fold faster than the three kernels, 1000 slower (a
//   frame's block runs for milliseconds, so a chunk of few waves ends with an idle tail); at 1e-2
//   they lose to items. So frames fold below M_n = 16, from frame_fold_waves waves of blocks.
// 0: never (decoder_options::fold_min_frames, for tests and experiments, overrides the counts).
int cuda_engine::fold_min_frames() const {
  if (fold_min_frames_) return fold_min_frames_;
  constexpr int min_width = 16;
  if (folds_by_frames()) {
    constexpr int frame_fold_waves = 3;
    return frame_fold_waves * sm_count_ * frame_shape_.blocks_per_sm;
  }
  if (fold_ == fold_kernel::automatic && g_.Mn < min_width) return 0;
  constexpr long long waves = 16;
  return static_cast<int>((waves * resident_fold_warps() + g_.M - 1) / g_.M);
}

bool cuda_engine::folds_by_frames() const {
  if (fold_ != fold_kernel::automatic) return fold_ == fold_kernel::frames;
  return frame_shape_.threads > 0 && g_.Mn < 16;
}

long long cuda_engine::resident_fold_warps() const {
  return static_cast<long long>(sm_count_) * fold_shape_.blocks_per_sm * (fold_shape_.threads / 32);
}

bool cuda_engine::chunk_folds(int count) const {
  const bool frames = folds_by_frames();
  if (!(frames ? frame_shape_.threads : fold_shape_.threads)) return false;
  const int min_frames = fold_min_frames();
  if (min_frames == 0 || count < min_frames) return false;
  // An item is a warp of a 1-D grid: at most one per state, within grid.x.
  return frames || static_cast<long long>(g_.N) * count * g_.M <= 0x7fffffffLL;
}

bool cuda_engine::folded(const part& p) const {
  return !frame_folds_ && parts_count_ == 1 && chunk_folds(p.count);
}

int cuda_engine::fold_states_per_warp(int frames) const {
  // As many states per item as leave one wave of warps per round (one index of every frame): more
  // states share a warp's setup, fewer leave more items ready while rounds overlap. One wave
  // measured best against two and a half (bench/RESULTS.md, eleventh session).
  const long long round = static_cast<long long>(frames) * g_.M;
  const int want = static_cast<int>(
      std::clamp<long long>(round / std::max(resident_fold_warps(), 1LL), 1, gamma_warp_max_tasks));
  const int chunks = (g_.M + want - 1) / want;
  return (g_.M + chunks - 1) / chunks;
}

// gamma of indices [g.index0, g.index0 + indices) of `count` frames: R into `gamma` (null: gsum
// only) and gsum, by the register-row kernel when the geometry allows it.
void cuda_engine::launch_gamma(const device_geometry& g, const device_frames& b, int count,
                               int indices, void* gamma, double* gsum, cudaStream_t st) {
  if (gamma_width_) {
    const int per_block = gamma_shape_.threads / 32;
    const int per_warp = gamma_states_per_warp(count, indices);
    const int warps = (g.M + per_warp - 1) / per_warp;  // per (frame, i)
    const dim3 grid(static_cast<unsigned>((warps + per_block - 1) / per_block),
                    static_cast<unsigned>(indices), static_cast<unsigned>(count));
    gamma_warp_for(gamma_width_,
                   gamma_nosub())<<<grid, gamma_shape_.threads, gamma_shape_.shared, st>>>(
        g, b, codewords_.get(), static_cast<float*>(gamma), gsum, per_warp);
  } else {
    const int tiles = (g.M + gamma_shape_.By - 1) / gamma_shape_.By;
    const dim3 grid(static_cast<unsigned>(indices * tiles), static_cast<unsigned>(count));
    if (f64_lattice_)
      gamma_kernel<double><<<grid, gamma_shape_.threads, gamma_shape_.shared, st>>>(
          g, b, codewords_.get(), gamma_shape_.Bx, gamma_shape_.By, tiles,
          static_cast<double*>(gamma), gsum);
    else
      gamma_kernel<float><<<grid, gamma_shape_.threads, gamma_shape_.shared, st>>>(
          g, b, codewords_.get(), gamma_shape_.Bx, gamma_shape_.By, tiles,
          static_cast<float*>(gamma), gsum);
  }
  GPUFEC_CUDA_CHECK_LAUNCH("gamma_kernel");
}

// The L shape for `blocks` blocks: the widest whose one wave holds them all (fewer states per
// thread, the same sums), else app_shape_.
const launch_shape& cuda_engine::app_shape_for(long long blocks) const {
  for (const auto& w : app_wide_shapes_)
    if (blocks <= static_cast<long long>(sm_count_) * w.blocks_per_sm) return w;
  return app_shape_;
}

// gamma and beta of part p, a block per frame, on a gamma stream of its own that waits for the
// inputs only: every part's blocks are queued at once and keep the device full to the end, and
// the part's stream (which waits for them) runs alpha and L as soon as its frames are done.
void cuda_engine::launch_frame_folded(const part& p, const device_frames& b, double* V,
                                      double* gsum, double* beta, const double* end_prior) {
  const cudaStream_t gs = gamma_streams_[p.index], st = stream_of(p);
  GPUFEC_CUDA_CHECK(cudaStreamWaitEvent(gs, inputs_ready_, 0));
  if (phases_recorded_) record(p.events[0], gs);
  gamma_beta_frame_for(
      gamma_width_, gamma_nosub())<<<static_cast<unsigned>(p.count), frame_shape_.threads,
                                     frame_shape_.shared, gs>>>(g_, b, codewords_.get(), V, gsum,
                                                                beta, end_prior, frame_per_warp_);
  GPUFEC_CUDA_CHECK_LAUNCH("gamma_beta_frame_kernel");
  if (phases_recorded_) record(p.events[1], gs);
  GPUFEC_CUDA_CHECK(cudaEventRecord(gamma_done_[p.index], gs));
  GPUFEC_CUDA_CHECK(cudaStreamWaitEvent(st, gamma_done_[p.index], 0));
}

void cuda_engine::launch(const part& p, bool has_priors) {
  const std::size_t N = g_.N, M = g_.M, Mn = g_.Mn, q = g_.q, first = p.first;
  const cudaStream_t st = stream_of(p);
  const frame_inputs in = device_inputs(loaded_);
  device_frames b{in.y,
                  in.offsets + first,
                  in.rho + first,
                  has_priors ? priors_.get() + first * N * q : nullptr,
                  in.status + first,
                  p.count};
  const std::size_t real_bytes = f64_lattice_ ? 8 : 4;
  unsigned char* gamma =
      stores_gamma() ? gamma_.get() + first * g_.rows * M * Mn * q * real_bytes : nullptr;
  double* gsum = gsum_.get() + gsum_block(g_, static_cast<int>(first), 0);
  double* alpha = alpha_.get() + first * (N + 1) * M;
  double* beta = beta_.get() + first * (N + 1) * M;
  if (phases_recorded_ && !frame_folds_) record(p.events[0], st);
  const double* end_prior = end_prior_.size() ? end_prior_.get() : nullptr;
  const results_layout r = results_of(p);
  auto* decisions = reinterpret_cast<std::uint32_t*>(r.base);
  auto* app = app_wanted_ ? reinterpret_cast<double*>(r.base + r.app_at) : nullptr;
  double* lambda = lambda_wanted_ ? reinterpret_cast<double*>(r.base + r.lambda_at) : nullptr;
  int* status_out =
      direct_ ? reinterpret_cast<int*>(host_outputs_.device() + p.staged_at) : nullptr;
  if (ring()) {
    launch_local(p, b, gamma, gsum, alpha, beta, app, decisions, lambda);
    return;
  }
  const dim3 app_grid(static_cast<unsigned>(g_.N), static_cast<unsigned>(p.count));
  if (frame_folds_ || folded(p)) {
    // gamma and beta interleaved (V in the place of R), then alpha alone, then L from V.
    if (frame_folds_) {
      launch_frame_folded(p, b, reinterpret_cast<double*>(gamma), gsum, beta, end_prior);
    } else {
      unsigned long long* counters = counters_.get();  // folded by items, a chunk is one part
      GPUFEC_CUDA_CHECK(cudaMemsetAsync(counters, 0, fold_counters(p.count) * 8, st));
      const int per_warp = fold_states_per_warp(p.count);
      const long long items =
          static_cast<long long>(g_.N) * p.count * ((g_.M + per_warp - 1) / per_warp);
      const long long per_block = fold_shape_.threads / 32;
      gamma_beta_for(gamma_width_,
                     gamma_nosub())<<<static_cast<unsigned>((items + per_block - 1) / per_block),
                                      fold_shape_.threads, fold_shape_.shared, st>>>(
          g_, b, codewords_.get(), reinterpret_cast<double*>(gamma), gsum, beta, end_prior,
          counters, per_warp);
      GPUFEC_CUDA_CHECK_LAUNCH("gamma_beta_kernel");
      if (phases_recorded_) record(p.events[1], st);
    }
    fb_ring_for(fb_width_)<<<dim3(static_cast<unsigned>(p.count), 1), fb_shape_.threads,
                             fb_shape_.shared, st>>>(g_, b, gsum, alpha, beta, end_prior,
                                                     fb_log_ring_);
    GPUFEC_CUDA_CHECK_LAUNCH("alpha kernel");
    if (phases_recorded_) record(p.events[2], st);
    app_for(false, app_from_v, 1)<<<app_grid, app_v_shape_.threads, app_v_shape_.shared, st>>>(
        g_, b, codewords_.get(), app_v_shape_.Bx, app_v_shape_.By, app_groups_, gamma, alpha, beta,
        app, decisions, lambda, status_out, app_blocks_done_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("app_kernel (from V)");
    if (phases_recorded_) record(p.events[3], st);
    return;
  }
  launch_gamma(g_, b, p.count, g_.N, gamma, gsum, st);
  if (phases_recorded_) record(p.events[1], st);
  const dim3 fb_grid(static_cast<unsigned>(p.count), 2);
  if (fb_width_)
    fb_ring_for(fb_width_)<<<fb_grid, fb_shape_.threads, fb_shape_.shared, st>>>(
        g_, b, gsum, alpha, beta, end_prior, fb_log_ring_);
  else
    fb_kernel<<<fb_grid, fb_shape_.threads, fb_shape_.shared, st>>>(g_, b, gsum, alpha, beta,
                                                                    end_prior);
  GPUFEC_CUDA_CHECK_LAUNCH("alpha/beta kernel");
  if (phases_recorded_) record(p.events[2], st);
  const launch_shape* a = &app_shape_for(static_cast<long long>(p.count) * g_.N);
  app_for(f64_lattice_, stores_gamma() ? app_from_gamma : app_from_lattice,
          app_symbols_per_lane())<<<app_grid, a->threads, a->shared, st>>>(
      g_, b, codewords_.get(), a->Bx, a->By, app_groups_, gamma, alpha, beta, app, decisions,
      lambda, status_out, app_blocks_done_.get());
  GPUFEC_CUDA_CHECK_LAUNCH("app_kernel");
  if (phases_recorded_) record(p.events[3], st);
}

// Where a part's decisions, APPs and drift posteriors lie on the device: one region per part,
// each array 16-byte aligned, in the order they are staged (after the status), so that one copy
// moves what the caller wants.
cuda_engine::results_layout cuda_engine::results_of(const part& p) const {
  const std::size_t n = p.count;
  const result_counts c = results_per_frame();
  results_layout r;
  // Written straight into the staging after the status, or into the device's results region.
  r.base = direct_ ? host_outputs_.device() + p.staged_at + align16(n * sizeof(int))
                   : results_.get() + p.results_at;
  r.app_at = align16(n * c.decisions * 4);
  r.lambda_at = r.app_at + align16(n * c.app * 8);
  r.bytes = r.lambda_at + align16(n * c.lambda * 8);
  return r;
}

cuda_engine::result_counts cuda_engine::results_per_frame() const {
  const std::size_t N = g_.N;
  return {N, N * g_.q, (N + 1) * g_.M};
}

// A part's results in the order they are staged: status, decisions, APPs, drift posteriors.
std::array<cuda_engine::piece, 4> cuda_engine::pieces_of(const part& p, decode_output& out,
                                                         std::size_t first, bool full_output) {
  const std::size_t at = first + p.first, n = p.count;
  const result_counts c = results_per_frame();
  const results_layout r = results_of(p);
  return {
      {{host_status_.data() + p.first, device_inputs(loaded_).status + p.first, n * sizeof(int)},
       {out.decisions.data() + at * c.decisions, r.base, n * c.decisions * 4},
       {full_output ? out.app.data() + at * c.app : nullptr, r.base + r.app_at,
        full_output ? n * c.app * 8 : 0},
       {lambda_wanted_ ? out.drift_posterior.data() + at * c.lambda : nullptr, r.base + r.lambda_at,
        lambda_wanted_ ? n * c.lambda * 8 : 0}}};
}

// Queues a part's result copies behind its kernels: into its own place in the page-locked staging
// buffer (so no part waits for the host); none for a one-part chunk, whose L wrote that place
// itself (direct_); or, when the chunk's results do not fit pinned_output_limit, nothing here:
// finish_copies() then copies straight into the caller's vectors (pageable memory, a copy the
// host waits for).
void cuda_engine::queue_copies(const part& p, decode_output& out, std::size_t first,
                               bool full_output, bool staged) {
  if (!staged) return;
  const cudaStream_t st = stream_of(p);
  if (direct_) {
    record(p.events[4], st);
    return;
  }
  // Two copies: the status (from the inputs), then the results region up to the last piece
  // wanted (the staging layout after the status is the region's).
  const auto pieces = pieces_of(p, out, first, full_output);
  std::size_t results = 0;
  for (int k = 1; k < 4; ++k) results += align16(pieces[k].bytes);
  unsigned char* to = host_outputs_.get() + p.staged_at;
  GPUFEC_CUDA_CHECK(
      cudaMemcpyAsync(to, pieces[0].from, pieces[0].bytes, cudaMemcpyDeviceToHost, st));
  GPUFEC_CUDA_CHECK(cudaMemcpyAsync(to + align16(pieces[0].bytes), pieces[1].from, results,
                                    cudaMemcpyDeviceToHost, st));
  record(p.events[4], st);
}

// Waits for a part's results and moves them to the caller (while the GPU runs later parts).
void cuda_engine::finish_copies(const part& p, decode_output& out, std::size_t first,
                                bool full_output, bool staged) {
  const auto pieces = pieces_of(p, out, first, full_output);
  if (!staged) {
    for (const piece& c : pieces)
      if (c.bytes)
        GPUFEC_CUDA_CHECK(
            cudaMemcpyAsync(c.to, c.from, c.bytes, cudaMemcpyDeviceToHost, stream_of(p)));
    GPUFEC_CUDA_CHECK(cudaEventRecord(p.events[4], stream_of(p)));
  }
  GPUFEC_CUDA_CHECK(cudaEventSynchronize(p.events[4]));
  if (!staged) return;
  std::size_t at = p.staged_at;
  for (const piece& c : pieces) {
    if (c.bytes) host_copy(c.to, host_outputs_.get() + at, c.bytes);
    at += align16(c.bytes);
  }
}

void cuda_engine::record(cudaEvent_t event, cudaStream_t stream) {
  // While capturing, an external event node: the graph records the timing event when it runs.
  GPUFEC_CUDA_CHECK(cudaEventRecordWithFlags(
      event, stream, capturing_ ? cudaEventRecordExternal : cudaEventRecordDefault));
}

void cuda_engine::record_start() {
  record(start_, stream_);
}

void cuda_engine::run_loaded(int count, const double* host_priors, decode_output& out,
                             std::size_t first, bool full_output) {
  const bool staged = plan_parts(count, host_priors != nullptr, out, first, full_output);
  phases_recorded_ = true;
  enqueue(count, host_priors, out, first, full_output, staged);
  collect(count, out, first, full_output, staged);
}

// Parts of decreasing size (weights P, P - 1, ..., 1), the smallest at least min_part_frames:
// every part is queued at once, and the host moves part k's results while the GPU runs later
// parts, so what is left after the GPU finishes is the last (smallest) part's copies. Returns
// whether the results go through the page-locked staging buffer (reserved here, before any
// launch: it may reallocate).
bool cuda_engine::plan_parts(int count, bool has_priors, decode_output& out, std::size_t first,
                             bool full_output) {
  app_wanted_ = full_output;
  lambda_wanted_ = full_output && !out.drift_posterior.empty();
  loaded_ = count;
  if (!has_priors) priors_.release();  // here, not while a graph is being captured
  parts_count_ = 1;
  int min_part = min_part_frames;
  // A chunk folded by items is one part: the rounds of its items then hold all of its frames
  // (see fold_min_frames). Folded by frames, parts pipeline as with the three kernels.
  // So is a chunk in local storage: its passes run on the ring's streams.
  frame_folds_ = chunk_folds(count) && folds_by_frames();
  if ((chunk_folds(count) && !frame_folds_) || ring()) min_part = count + 1;
  while (parts_count_ < max_parts &&
         count / ((parts_count_ + 1) * (parts_count_ + 2) / 2) >= min_part)
    ++parts_count_;
  const int parts = parts_count_;
  const long long weights = parts * (parts + 1) / 2;
  for (int k = 0, w = 0; k < parts; w += parts - k, ++k) {
    parts_[k].first = static_cast<int>(static_cast<long long>(count) * w / weights);
    parts_[k].count = static_cast<int>(static_cast<long long>(count) * (w + parts - k) / weights) -
                      parts_[k].first;
    parts_[k].lane = k & 1;
    parts_[k].index = k;
  }
  host_status_.resize(count);
  std::size_t staging = 0, results = 0;
  for (int k = 0; k < parts; ++k) {
    parts_[k].staged_at = staging;
    parts_[k].results_at = results;
    results += results_of(parts_[k]).bytes;
    for (const piece& c : pieces_of(parts_[k], out, first, full_output))
      staging += align16(c.bytes);
  }
  const bool staged = staging <= pinned_output_limit;
  if (staged) host_outputs_.reserve(staging);
  // One part: L writes its results into the staging, sparing the GPU the result copies (with
  // several parts, each part's copies overlap later parts' kernels instead).
  // Not in local storage: L runs index by index there, on several streams.
  direct_ = staged && parts == 1 && !ring();
  return staged;
}

// Everything after the inputs, on the streams: the priors, then every part's kernels and copies.
void cuda_engine::enqueue(int count, const double* host_priors, decode_output& out,
                          std::size_t first, bool full_output, bool staged) {
  const std::size_t N = g_.N, q = g_.q;
  if (host_priors) {
    priors_.resize(chunk_ * N * q);
    GPUFEC_CUDA_CHECK(cudaMemcpyAsync(priors_.get(), host_priors, count * N * q * 8,
                                      cudaMemcpyHostToDevice, stream_));
  }
  // The inputs were staged on stream_; the second stream (and the frame-folded parts' gamma
  // streams) wait for them.
  if (parts_count_ > 1 || frame_folds_) {
    GPUFEC_CUDA_CHECK(cudaEventRecord(inputs_ready_, stream_));
    GPUFEC_CUDA_CHECK(cudaStreamWaitEvent(stream2_, inputs_ready_, 0));
  }
  for (int k = 0; k < parts_count_; ++k) {
    launch(parts_[k], host_priors != nullptr);
    queue_copies(parts_[k], out, first, full_output, staged);
  }
}

// decode()'s chunk from the page-locked input staging: the start event, one input copy, then
// enqueue().
void cuda_engine::enqueue_staged(int count, const double* host_priors, decode_output& out,
                                 std::size_t first, bool staged) {
  record_start();
  GPUFEC_CUDA_CHECK(cudaMemcpyAsync(inputs_.get(), host_inputs_.get(),
                                    inputs_at(nullptr, count).bytes, cudaMemcpyHostToDevice,
                                    stream_));
  enqueue(count, host_priors, out, first, true, staged);
}

// Waits for every part, moves the results to the caller, and adds the timings and messages.
void cuda_engine::collect(int count, decode_output& out, std::size_t first, bool full_output,
                          bool staged) {
  const int parts = parts_count_;
  if (!staged) {
    for (int k = 0; k < parts; ++k) finish_copies(parts_[k], out, first, full_output, staged);
  } else {
    // Each part's results as soon as they land: the frame-folded parts finish in the order the
    // device dispatched their gamma blocks, not in part order.
    auto landed = [](cudaEvent_t e) {
      const cudaError_t r = cudaEventQuery(e);
      if (r == cudaErrorNotReady) return false;
      GPUFEC_CUDA_CHECK(r);
      return true;
    };
    std::array<bool, max_parts> moved{};
    for (int left = parts; left > 0;) {
      int k = 0;
      while (k < parts && (moved[k] || !landed(parts_[k].events[4]))) ++k;
      if (k == parts) {
        std::this_thread::yield();
        continue;
      }
      finish_copies(parts_[k], out, first, full_output, staged);
      moved[k] = true;
      --left;
    }
  }
  auto seconds = [](cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    GPUFEC_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3;
  };
  // Phase times are sums over the parts (which may overlap); total is the wall time on the GPU.
  if (phases_recorded_) {
    timings_.phases = true;
    timings_.transfer += seconds(start_, parts_[0].events[0]);
    for (int k = 0; k < parts; ++k) {
      const part& p = parts_[k];
      timings_.gamma += seconds(p.events[0], p.events[1]);
      timings_.forward_backward += seconds(p.events[1], p.events[2]);
      timings_.app += seconds(p.events[2], p.events[3]);
      timings_.transfer += seconds(p.events[3], p.events[4]);
    }
  }
  double last = 0;  // the parts' two streams may finish in either order
  for (int k = 0; k < parts; ++k) last = std::max(last, seconds(start_, parts_[k].events[4]));
  timings_.total += last;
  static const char* const reasons[] = {
      "",
      "",
      "the received sequence has zero probability under the channel model (forward pass)",
      "no frame end within the drift limits",
      "the received sequence has zero probability under the channel model (backward pass)",
      "the received sequence has zero probability under the channel model (APP)"};
  for (int f = 0; f < count; ++f) {
    const int s = host_status_[f];
    if (s == status_ok) continue;
    out.decoded[first + f] = 0;  // skipped frames (host or channel kernel) keep their message
    if (out.messages[first + f].empty())
      out.messages[first + f] = s == status_skip ? "not decodable (received length)" : reasons[s];
  }
}

// The GPU work of a chunk from decode() (input copy, kernels, result copies) as one CUDA graph:
// one launch instead of ~15 calls, so the GPU no longer waits for the host between the copy and
// the first kernel (~8 us of a single frame's ~110). Captured once per shape of the chunk and
// replayed while the frames, outputs and staging buffers stay the same.
void cuda_engine::run_graph(int count, decode_output& out, std::size_t first) {
  const graph_key key{count, app_wanted_, lambda_wanted_, host_inputs_.get(), host_outputs_.get()};
  if (!graph_ || !(key == graph_key_)) {
    graph_.reset();
    cudaGraph_t graph = nullptr;
    GPUFEC_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    capturing_ = true;
    try {
      enqueue_staged(count, nullptr, out, first, true);
      if (parts_count_ > 1) {  // the second stream joins back before the capture ends
        GPUFEC_CUDA_CHECK(cudaEventRecord(joined_, stream2_));
        GPUFEC_CUDA_CHECK(cudaStreamWaitEvent(stream_, joined_, 0));
      }
    } catch (...) {
      capturing_ = false;
      if (cudaStreamEndCapture(stream_, &graph) == cudaSuccess && graph) cudaGraphDestroy(graph);
      throw;
    }
    capturing_ = false;
    GPUFEC_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    graph_.reset(graph);
    graph_key_ = key;
  }
  graph_.launch(stream_);
}

void cuda_engine::decode(batch_view<std::uint8_t> received, const double* priors,
                         decode_output& out) {
  timings_ = {};
  const std::size_t frames = received.frames();
  const std::size_t per_prior = static_cast<std::size_t>(g_.N) * g_.q;
  // Steps of equal size whose results fit the page-locked staging: beyond it, a chunk's results
  // are copied into the caller's pageable memory while the host waits (measured: 8 000 frames
  // at 66 000-80 000 frames/s against ~100 000 for 4 000, thirteenth session).
  const result_counts c = results_per_frame();
  const std::size_t staged_per_frame =
      sizeof(int) + c.decisions * 4 + c.app * 8 + (out.drift_posterior.empty() ? 0 : c.lambda * 8);
  const std::size_t slack = max_parts * 4 * 16;  // each staged piece is 16-byte aligned
  const std::size_t fit = std::max<std::size_t>(
      1, pinned_output_limit > slack ? (pinned_output_limit - slack) / staged_per_frame : 0);
  const std::size_t widest = std::min(chunk_, fit);
  const std::size_t steps = (frames + widest - 1) / widest;
  const std::size_t step = steps ? (frames + steps - 1) / steps : widest;
  for (std::size_t first = 0; first < frames; first += step) {
    const int count = static_cast<int>(std::min(step, frames - first));
    // Stage the chunk in page-locked memory, each frame at a fixed stride, truncated to the part
    // any lattice can read; one copy moves it.
    host_inputs_.reserve(inputs_at(nullptr, count).bytes);
    const frame_inputs in = inputs_at(host_inputs_.get(), count);
    host_parallel_for(static_cast<std::size_t>(count), [&](std::size_t f) {
      const auto frame = received.frame(first + f);
      const std::size_t kept = std::min(frame.size(), capacity_);
      std::uint8_t* y = in.y + f * capacity_;
      in.offsets[f] = static_cast<long long>(f * capacity_);
      in.rho[f] = static_cast<long long>(frame.size());
      in.status[f] = out.decoded[first + f] ? status_ok : status_skip;
      std::memcpy(y, frame.data(), kept);
      std::memset(y + kept, 0, capacity_ - kept);
    });
    in.offsets[count] = static_cast<long long>(count * capacity_);
    const double* chunk_priors = priors ? priors + first * per_prior : nullptr;
    const bool staged = plan_parts(count, chunk_priors != nullptr, out, first, true);
    // No graph with priors: they come from the caller's (pageable) memory.
    phases_recorded_ = phase_timings_ || !staged || chunk_priors;
    if (phases_recorded_)
      enqueue_staged(count, chunk_priors, out, first, staged);
    else
      run_graph(count, out, first);
    collect(count, out, first, true, staged);
  }
}

}  // namespace cuda_detail

namespace detail {

std::unique_ptr<decoder_engine> make_cuda_engine(const tvb_code& code, const geometry& g,
                                                 const decoder_options& options,
                                                 std::size_t max_batch, storage_mode& storage) {
  return std::make_unique<cuda_detail::cuda_engine>(code, g, options, max_batch, storage);
}

}  // namespace detail
}  // namespace gpufec::sync
