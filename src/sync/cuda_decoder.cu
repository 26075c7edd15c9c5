// The CUDA engine: shapes from device limits, storage and chunk size from free memory (falling
// back to smaller chunks and local storage when an allocation fails), and the launch sequence.
#include <algorithm>
#include <cstring>
#include <sstream>

#include "sync/cuda_decoder_kernels.cuh"
#include "sync/cuda_engine.cuh"

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
}

// Lanes over D: q itself when below a warp (several states then share a block), else whole warps.
int d_lanes(int q, int max_threads) {
  return q < 32 ? q : std::min(round_up(q, 32), std::max(32, max_threads / 32 * 32));
}

}  // namespace

cuda_engine::cuda_engine(const tvb_code& code, const detail::geometry& g,
                         const decoder_options& options, std::size_t max_batch,
                         storage_mode& storage)
    : host_g_(g), f64_lattice_(options.lattice_real == real_kind::f64), max_batch_(max_batch) {
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
  g_.corridor = g.lattice == lattice_mode::corridor;
  g_.end_known = g.end_known;
  g_.ins = g.ins;
  g_.del = g.del;
  g_.match = g.match;
  g_.mismatch = g.mismatch;
  g_.row_min = g_.corridor ? g.codeword.lo : -g.n;
  g_.row_len = g_.corridor ? g.M_n + 1 : g.n + g.max_mu() + 2;
  capacity_ = static_cast<std::size_t>(g.tau + g.frame.hi);

  int device = 0;
  GPUFEC_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  GPUFEC_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  sm_count_ = prop.multiProcessorCount;
  shared_optin_ = prop.sharedMemPerBlockOptin;
  GPUFEC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  for (auto& e : events_) GPUFEC_CUDA_CHECK(cudaEventCreate(&e));

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
  const std::size_t global_fit = std::min(limit, budget / bytes_per_frame(true));
  const std::size_t local_fit = std::min(limit, budget / bytes_per_frame(false));
  if (storage == storage_mode::automatic)
    storage =
        global_fit >= std::min<std::size_t>(limit, 8) ? storage_mode::global : storage_mode::local;
  global_ = storage == storage_mode::global;
  std::size_t frames = global_ ? global_fit : local_fit;
  if (frames == 0)
    throw out_of_memory(cat("the CUDA sync decoder needs ", bytes_per_frame(global_),
                            " bytes per frame with ", to_string(storage),
                            " storage but the budget is ", budget, " bytes (", free_bytes,
                            " free on the device)"));
  // An allocation can still fail (fragmentation, other processes): halve the chunk, then try
  // local storage when the storage was chosen automatically.
  const bool may_switch = options.storage == storage_mode::automatic;
  for (;;) {
    try {
      allocate(frames);
      break;
    } catch (const out_of_memory&) {
      if (frames > 1) {
        frames /= 2;
      } else if (global_ && may_switch) {
        global_ = false;
        storage = storage_mode::local;
        frames = local_fit;
      } else {
        throw;
      }
    }
  }
  choose_shapes();
}

cuda_engine::~cuda_engine() {
  for (auto& e : events_)
    if (e) cudaEventDestroy(e);
  if (stream_) cudaStreamDestroy(stream_);
}

std::size_t cuda_engine::bytes_per_frame(bool global) const {
  const std::size_t N = g_.N, M = g_.M, Mn = g_.Mn, q = g_.q;
  const std::size_t real_bytes = f64_lattice_ ? 8 : 4;
  return (global ? N * M * Mn * q * real_bytes : 0) + N * M * Mn * 8  // gamma, gsum
         + 3 * (N + 1) * M * 8                                        // alpha, beta, lambda
         + N * q * 8 * 2 + N * 4                                      // app, priors, decisions
         + capacity_ + 2 * 8 + 4;                                     // y, offsets, rho, status
}

void cuda_engine::allocate(std::size_t frames) {
  const std::size_t N = g_.N, M = g_.M, Mn = g_.Mn, q = g_.q;
  const std::size_t real_bytes = f64_lattice_ ? 8 : 4;
  gamma_.release();
  if (global_) gamma_.resize(frames * N * M * Mn * q * real_bytes);
  gsum_.resize(frames * N * M * Mn);
  alpha_.resize(frames * (N + 1) * M);
  beta_.resize(frames * (N + 1) * M);
  lambda_.resize(frames * (N + 1) * M);
  app_.resize(frames * N * q);
  decisions_.resize(frames * N);
  y_.resize(frames * capacity_);
  offsets_.resize(frames + 1);
  rho_.resize(frames);
  status_.resize(frames);
  chunk_ = frames;
}

std::size_t cuda_engine::allocated_bytes() const {
  return codewords_.bytes() + end_prior_.bytes() + y_.bytes() + offsets_.bytes() + rho_.bytes() +
         status_.bytes() + priors_.bytes() + gamma_.bytes() + gsum_.bytes() + alpha_.bytes() +
         beta_.bytes() + lambda_.bytes() + app_.bytes() + decisions_.bytes();
}

// Block shapes (seed paper sec. V): lanes over D, then as many states per block as keep the block
// near `target_threads`, shrunk until the shared memory fits the device, and the candidate with
// the most resident threads per SM (occupancy API) wins.
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
        if (blocks * lanes * states > best.blocks_per_sm * best.threads)
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
  const int Bx = d_lanes(g_.q, target_threads);
  auto gamma_shared = [&](int lanes, int states) {
    const std::size_t T = static_cast<std::size_t>(lanes) * states;
    return ((real_bytes * g_.row_len * T + 15) & ~std::size_t(15)) + 8 * g_.Mn * T;
  };
  if (f64_lattice_)
    gamma_shape_ = pick(gamma_kernel<double>, Bx, g_.M, gamma_shared);
  else
    gamma_shape_ = pick(gamma_kernel<float>, Bx, g_.M, gamma_shared);
  auto app_shared = [&](int lanes, int states) {
    const std::size_t T = static_cast<std::size_t>(lanes) * states;
    return 8 * static_cast<std::size_t>(states) * g_.q +
           (global_ ? 0 : real_bytes * g_.row_len * T);
  };
  if (f64_lattice_)
    app_shape_ = pick(app_kernel<double>, Bx, g_.M, app_shared);
  else
    app_shape_ = pick(app_kernel<float>, Bx, g_.M, app_shared);
  fb_shape_.threads = std::clamp(round_up(g_.M, 32), 32, target_threads);
  fb_shape_.Bx = fb_shape_.threads;
  fb_shape_.By = 1;
  fb_shape_.blocks_per_sm = occupancy(fb_kernel, fb_shape_.threads, 0);
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
  return {line("gamma", gamma_shape_, cat(g_.N * tiles, " x frames")),
          line("alpha/beta", fb_shape_, "frames x 2 (persistent over i)"),
          line(global_ ? "L (stored gamma)" : "L (recomputed gamma)", app_shape_,
               cat(g_.N, " x frames")),
          cat("storage ", global_ ? "global" : "local", ", chunk ", chunk_, " frames of max batch ",
              max_batch_)};
}

void cuda_engine::launch(int count) {
  device_frames b{y_.get(),      offsets_.get(),
                  rho_.get(),    priors_.size() ? priors_.get() : nullptr,
                  status_.get(), count};
  const int tiles = (g_.M + gamma_shape_.By - 1) / gamma_shape_.By;
  const dim3 gamma_grid(static_cast<unsigned>(g_.N * tiles), static_cast<unsigned>(count));
  GPUFEC_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
  if (f64_lattice_)
    gamma_kernel<double><<<gamma_grid, gamma_shape_.threads, gamma_shape_.shared, stream_>>>(
        g_, b, codewords_.get(), gamma_shape_.Bx, gamma_shape_.By, tiles,
        global_ ? reinterpret_cast<double*>(gamma_.get()) : nullptr, gsum_.get());
  else
    gamma_kernel<float><<<gamma_grid, gamma_shape_.threads, gamma_shape_.shared, stream_>>>(
        g_, b, codewords_.get(), gamma_shape_.Bx, gamma_shape_.By, tiles,
        global_ ? reinterpret_cast<float*>(gamma_.get()) : nullptr, gsum_.get());
  GPUFEC_CUDA_CHECK_LAUNCH("gamma_kernel");
  GPUFEC_CUDA_CHECK(cudaEventRecord(events_[2], stream_));
  fb_kernel<<<dim3(static_cast<unsigned>(count), 2), fb_shape_.threads, 0, stream_>>>(
      g_, b, gsum_.get(), alpha_.get(), beta_.get(),
      end_prior_.size() ? end_prior_.get() : nullptr);
  GPUFEC_CUDA_CHECK_LAUNCH("fb_kernel");
  GPUFEC_CUDA_CHECK(cudaEventRecord(events_[3], stream_));
  const dim3 app_grid(static_cast<unsigned>(g_.N), static_cast<unsigned>(count));
  if (f64_lattice_)
    app_kernel<double><<<app_grid, app_shape_.threads, app_shape_.shared, stream_>>>(
        g_, b, codewords_.get(), app_shape_.Bx, app_shape_.By,
        global_ ? reinterpret_cast<const double*>(gamma_.get()) : nullptr, alpha_.get(),
        beta_.get(), app_.get(), decisions_.get(), lambda_.get());
  else
    app_kernel<float><<<app_grid, app_shape_.threads, app_shape_.shared, stream_>>>(
        g_, b, codewords_.get(), app_shape_.Bx, app_shape_.By,
        global_ ? reinterpret_cast<const float*>(gamma_.get()) : nullptr, alpha_.get(), beta_.get(),
        app_.get(), decisions_.get(), lambda_.get());
  GPUFEC_CUDA_CHECK_LAUNCH("app_kernel");
  GPUFEC_CUDA_CHECK(cudaEventRecord(events_[4], stream_));
}

void cuda_engine::record_start() {
  GPUFEC_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
}

void cuda_engine::run_loaded(int count, const double* host_priors, decode_output& out,
                             std::size_t first, bool full_output) {
  const std::size_t N = g_.N, q = g_.q, M = g_.M;
  if (host_priors) {
    priors_.resize(chunk_ * N * q);
    GPUFEC_CUDA_CHECK(cudaMemcpyAsync(priors_.get(), host_priors, count * N * q * 8,
                                      cudaMemcpyHostToDevice, stream_));
  } else {
    priors_.release();
  }
  launch(count);
  host_status_.resize(count);
  GPUFEC_CUDA_CHECK(cudaMemcpyAsync(host_status_.data(), status_.get(), count * sizeof(int),
                                    cudaMemcpyDeviceToHost, stream_));
  GPUFEC_CUDA_CHECK(cudaMemcpyAsync(out.decisions.data() + first * N, decisions_.get(),
                                    count * N * 4, cudaMemcpyDeviceToHost, stream_));
  if (full_output) {
    GPUFEC_CUDA_CHECK(cudaMemcpyAsync(out.app.data() + first * N * q, app_.get(), count * N * q * 8,
                                      cudaMemcpyDeviceToHost, stream_));
    GPUFEC_CUDA_CHECK(cudaMemcpyAsync(out.drift_posterior.data() + first * (N + 1) * M,
                                      lambda_.get(), count * (N + 1) * M * 8,
                                      cudaMemcpyDeviceToHost, stream_));
  }
  GPUFEC_CUDA_CHECK(cudaEventRecord(events_[5], stream_));
  GPUFEC_CUDA_CHECK(cudaEventSynchronize(events_[5]));
  auto seconds = [&](int a, int b) {
    float ms = 0;
    GPUFEC_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[a], events_[b]));
    return ms * 1e-3;
  };
  timings_.transfer += seconds(0, 1) + seconds(4, 5);
  timings_.gamma += seconds(1, 2);
  timings_.forward_backward += seconds(2, 3);
  timings_.app += seconds(3, 4);
  timings_.total += seconds(0, 5);
  static const char* const reasons[] = {
      "",
      "",
      "the received sequence has zero probability under the channel model (forward pass)",
      "the received sequence has zero probability under the channel model (backward pass)",
      "the received sequence has zero probability under the channel model (APP)",
      "no frame end within the drift limits"};
  for (int f = 0; f < count; ++f) {
    const int s = host_status_[f];
    if (s == status_ok) continue;
    out.decoded[first + f] = 0;  // skipped frames (host or channel kernel) keep their message
    if (out.messages[first + f].empty())
      out.messages[first + f] = s == status_skip ? "not decodable (received length)" : reasons[s];
  }
}

void cuda_engine::decode(batch_view<std::uint8_t> received, const double* priors,
                         decode_output& out) {
  timings_ = {};
  const std::size_t frames = received.frames();
  const std::size_t per_prior = static_cast<std::size_t>(g_.N) * g_.q;
  for (std::size_t first = 0; first < frames; first += chunk_) {
    const int count = static_cast<int>(std::min(chunk_, frames - first));
    // Stage the chunk: each frame at a fixed stride, truncated to the part any lattice can read.
    host_offsets_.assign(count + 1, 0);
    host_rho_.assign(count, 0);
    host_status_.assign(count, status_ok);
    host_y_.assign(static_cast<std::size_t>(count) * capacity_, 0);
    for (int f = 0; f < count; ++f) {
      const auto frame = received.frame(first + f);
      host_offsets_[f] = static_cast<long long>(f * capacity_);
      host_rho_[f] = static_cast<long long>(frame.size());
      host_status_[f] = out.decoded[first + f] ? status_ok : status_skip;
      std::memcpy(host_y_.data() + f * capacity_, frame.data(), std::min(frame.size(), capacity_));
    }
    host_offsets_[count] = static_cast<long long>(count * capacity_);
    record_start();
    GPUFEC_CUDA_CHECK(
        cudaMemcpyAsync(y_.get(), host_y_.data(), host_y_.size(), cudaMemcpyHostToDevice, stream_));
    GPUFEC_CUDA_CHECK(cudaMemcpyAsync(offsets_.get(), host_offsets_.data(), (count + 1) * 8,
                                      cudaMemcpyHostToDevice, stream_));
    GPUFEC_CUDA_CHECK(
        cudaMemcpyAsync(rho_.get(), host_rho_.data(), count * 8, cudaMemcpyHostToDevice, stream_));
    GPUFEC_CUDA_CHECK(cudaMemcpyAsync(status_.get(), host_status_.data(), count * sizeof(int),
                                      cudaMemcpyHostToDevice, stream_));
    run_loaded(count, priors ? priors + first * per_prior : nullptr, out, first, true);
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
