// The CUDA engine's construction and buffers, and its two entry points: decode() of host frames
// (staged through page-locked memory, each chunk one CUDA graph) and decode_device() of frames
// already on the device (staged by kernels, queued on the caller's stream).
#include <algorithm>
#include <cstring>
#include <memory>

#include "common/backend_registry.hpp"
#include "common/host_copy.hpp"
#include "sync/cuda/engine.cuh"
#include "sync/cuda/kernels/device_path_kernels.cuh"
#include "sync/cuda/kernels/folded_kernels.cuh"
#include "sync/plan/cuda_backend.hpp"

namespace gpufec::sync::cuda_detail {

cuda_engine::cuda_engine(const tvb_code& code, const detail::geometry& g, const cuda_plan& plan)
    : plan_(plan), g_(make_device_geometry(g, plan.stored_rows())) {
  for (cuda::stream& s : lanes_) s = cuda::stream(plan.greatest_priority);
  // Part k's gamma stream ranks below part k - 1's (down to the least priority): freed SM slots go
  // to the earliest part's queued blocks (the graph's first dispatch fills the device in an order
  // of its own).
  for (int k = 0; k < policy::max_parts; ++k) {
    gamma_streams_.emplace_back(std::min(plan.greatest_priority + 1 + k, plan.least_priority));
    gamma_done_.emplace_back(false);
  }
  for (cuda::stream& s : ring_streams_) s = cuda::stream(0);
  for (cuda::event& e : ring_events_) e = cuda::event(false);
  start_ = cuda::event(true);
  for (cuda::event* e : {&inputs_ready_, &joined_, &caller_ready_, &done_}) *e = cuda::event(false);
  parts_.resize(policy::max_parts);
  for (part& p : parts_)
    for (cuda::event& e : p.events) e = cuda::event(true);

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
  codewords_.upload(masks.data(), masks.size());
  if (!g.end_known) {
    end_prior_.resize(g.end_prior.size());
    end_prior_.upload(g.end_prior.data(), g.end_prior.size());
  }
  allocate(plan.chunk);
  // The zeroing of gsum and the table copies above ran on the legacy stream, which the decode
  // streams (non-blocking) do not wait for; a pageable copy may even return before its DMA ends.
  GPUFEC_CUDA_CHECK(cudaDeviceSynchronize());
}

cuda_engine::~cuda_engine() {
  graph_.reset();
}

void cuda_engine::allocate(std::size_t frames) {
  const std::size_t N = g_.N, M = g_.M, Mn = g_.Mn, q = g_.q;
  const std::size_t real_bytes = plan_.f64_lattice ? 8 : 4;
  if (plan_.stores_gamma()) gamma_.resize(frames * g_.rows * M * Mn * q * real_bytes);
  gsum_.resize(gsum_block(g_, static_cast<int>(frames), 0));
  app_blocks_done_.resize(1);
  counters_.resize(fold_counters(static_cast<int>(frames)));
  app_blocks_done_.zero();
  // The entries of gsum no gamma kernel writes stay zero, as alpha/beta expect (gsum_block).
  gsum_.zero();
  alpha_.resize(frames * (N + 1) * M);
  beta_.resize(frames * (N + 1) * M);
  // Each part's decisions, APPs and drift posteriors, laid out as results_of() says.
  const result_counts c = results_per_frame();
  results_.resize(frames * (c.decisions * 4 + (c.app + c.lambda) * 8) + policy::max_parts * 3 * 16);
  inputs_.resize(inputs_at(nullptr, static_cast<int>(frames)).bytes);
  chunk_ = frames;
}

cuda_engine::frame_inputs cuda_engine::inputs_at(unsigned char* base, int count) const {
  const std::size_t n = static_cast<std::size_t>(count);
  const std::size_t rho_at = (n + 1) * 8, status_at = rho_at + n * 8;
  const std::size_t y_at = align16(status_at + n * sizeof(int));
  return {base + y_at, reinterpret_cast<long long*>(base),
          reinterpret_cast<long long*>(base + rho_at), reinterpret_cast<int*>(base + status_at),
          y_at + n * plan_.capacity};
}

std::size_t cuda_engine::allocated_bytes() const {
  return codewords_.bytes() + end_prior_.bytes() + inputs_.bytes() + priors_.bytes() +
         gamma_.bytes() + gsum_.bytes() + alpha_.bytes() + beta_.bytes() + results_.bytes() +
         counters_.bytes();
}

cuda_engine::result_counts cuda_engine::results_per_frame() const {
  const std::size_t N = g_.N;
  return {N, N * g_.q, (N + 1) * g_.M};
}

void cuda_engine::decode(batch_view<std::uint8_t> received, const double* priors,
                         decode_output& out, const stop_token& stop) {
  timings_ = {};
  const std::size_t frames = received.frames();
  const std::size_t per_prior = static_cast<std::size_t>(g_.N) * g_.q;
  // Steps of equal size whose results fit the page-locked staging (policy::staging_bytes).
  const result_counts c = results_per_frame();
  const std::size_t staged_per_frame =
      sizeof(int) + c.decisions * 4 + c.app * 8 + (out.drift_posterior.empty() ? 0 : c.lambda * 8);
  const std::size_t slack = policy::max_parts * 4 * 16;  // each staged piece is 16-byte aligned
  const std::size_t fit = std::max<std::size_t>(
      1, policy::staging_bytes > slack ? (policy::staging_bytes - slack) / staged_per_frame : 0);
  const std::size_t widest = std::min(chunk_, fit);
  const std::size_t steps = (frames + widest - 1) / widest;
  const std::size_t step = steps ? (frames + steps - 1) / steps : widest;
  const std::size_t capacity = plan_.capacity;
  for (std::size_t first = 0; first < frames; first += step) {
    if (stop.requested()) throw stopped();  // between chunks: a chunk is at most ~a second
    const int count = static_cast<int>(std::min(step, frames - first));
    // Stage the chunk in page-locked memory, each frame at a fixed stride, truncated to the part
    // any lattice can read; one copy moves it.
    host_inputs_.reserve(inputs_at(nullptr, count).bytes);
    const frame_inputs in = inputs_at(host_inputs_.get(), count);
    host_parallel_for(static_cast<std::size_t>(count), [&](std::size_t f) {
      const auto frame = received.frame(first + f);
      const std::size_t kept = std::min(frame.size(), capacity);
      std::uint8_t* y = in.y + f * capacity;
      in.offsets[f] = static_cast<long long>(f * capacity);
      in.rho[f] = static_cast<long long>(frame.size());
      in.status[f] = out.decoded[first + f] ? status_ok : status_skip;
      std::memcpy(y, frame.data(), kept);
      std::memset(y + kept, 0, capacity - kept);
    });
    in.offsets[count] = static_cast<long long>(count * capacity);
    chunk_call call = plan_call(count, first, results_mode::staged);
    call.host_out = &out;
    call.host_priors = priors ? priors + first * per_prior : nullptr;
    call.lambda = !out.drift_posterior.empty();
    reserve_staging(call);
    // No graph with priors: they come from the caller's (pageable) memory.
    call.phases = phase_timings_ || call.results == results_mode::pageable || call.host_priors;
    if (call.phases)
      enqueue_staged(call);
    else
      run_graph(call);
    collect(call);
  }
}

void cuda_engine::decode_device(batch_view<std::uint8_t> received, const device_outputs& out,
                                cudaStream_t stream, const double* priors) {
  timings_ = {};
  const std::size_t frames = received.frames();
  const std::size_t per_prior = static_cast<std::size_t>(g_.N) * g_.q;
  const device_batch in_view{received.data, received.offsets, received.lengths, received.stride};
  const cudaStream_t st = lanes_[0];
  // The engine's first stream waits for what the caller queued before (the frames' producer).
  caller_ready_.record(stream);
  caller_ready_.wait_on(st);
  for (std::size_t first = 0; first < frames; first += chunk_) {
    const int count = static_cast<int>(std::min(chunk_, frames - first));
    const frame_inputs in = device_inputs(count);
    constexpr int threads = 256;
    stage_lengths_kernel<<<(count + threads) / threads, threads, 0, st>>>(
        g_, in_view, static_cast<long long>(first), count, static_cast<long long>(plan_.capacity),
        in.offsets, in.rho, in.status);
    GPUFEC_CUDA_CHECK_LAUNCH("stage_lengths_kernel");
    const unsigned long long symbols = static_cast<unsigned long long>(count) * plan_.capacity;
    const int blocks = static_cast<int>(
        std::min<unsigned long long>((symbols + threads - 1) / threads, 8ULL * plan_.sm_count * 8));
    stage_symbols_kernel<<<std::max(blocks, 1), threads, 0, st>>>(
        in_view, static_cast<long long>(first), count, static_cast<long long>(plan_.capacity), in.y,
        in.status);
    GPUFEC_CUDA_CHECK_LAUNCH("stage_symbols_kernel");
    chunk_call call = plan_call(count, first, results_mode::device);
    call.device_out = out;
    call.device_priors = priors ? priors + first * per_prior : nullptr;
    call.app = out.app != nullptr;
    call.lambda = out.drift_posterior != nullptr;
    enqueue(call);
    if (call.parts > 1) {  // the second lane joins back before the next chunk reuses the buffers
      joined_.record(lanes_[1]);
      joined_.wait_on(st);
    }
    // Frames that were not decoded read as zeros, as decode() leaves them.
    const std::size_t N = g_.N, M = g_.M;
    clear_undecodable_kernel<<<count, threads, 0, st>>>(
        g_, in.status, out.decisions + first * N, out.app ? out.app + first * per_prior : nullptr,
        out.drift_posterior ? out.drift_posterior + first * (N + 1) * M : nullptr);
    GPUFEC_CUDA_CHECK_LAUNCH("clear_undecodable_kernel");
  }
  done_.record(st);
  done_.wait_on(stream);
}

}  // namespace gpufec::sync::cuda_detail

namespace gpufec::sync::detail {
namespace {

std::unique_ptr<decoder_engine> make_cuda_engine(const tvb_code& code, const geometry& g,
                                                 const cuda_plan& plan) {
  return std::make_unique<cuda_detail::cuda_engine>(code, g, plan);
}

constexpr cuda_backend backend_functions{&plan_cuda, &make_cuda_engine};
const register_cuda_backend<cuda_backend_entry> registered{&backend_functions};

}  // namespace
}  // namespace gpufec::sync::detail
