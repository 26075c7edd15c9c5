// The CUDA simulation chain: messages, encoding and the BSID channel on the GPU (one thread per
// frame: draw_frame()'s streams and bsid_transmit, hence the CPU chain's frames), then the plan's
// public device path, then scoring on the GPU; only the outcomes come back to the host.
#include <algorithm>

#include "common/backend_registry.hpp"
#include "common/cuda/device_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "sync/sim/cuda_chain.hpp"

namespace gpufec::sync {
namespace {

// channel_kernel: a thread per frame k of the call (frame index first + k): its message into
// messages[k], its codeword symbols into x, the received symbols into y at k * stride (at most
// stride of them) and lengths[k] = rho, or 0 when rho > stride (undecodable, as the CPU chain).
__global__ void channel_kernel(std::uint64_t seed, std::uint64_t first, int count, int q, int N,
                               int n, long long tau, const std::uint32_t* codewords, bsid_params ch,
                               std::uint32_t* messages, std::uint8_t* x_scratch, std::uint8_t* y,
                               std::size_t stride, std::size_t* lengths) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const std::uint64_t f = first + k;
  philox_stream source(seed, rng_source, f);
  std::uint32_t* message = messages + static_cast<std::size_t>(k) * N;
  std::uint8_t* x = x_scratch + static_cast<std::size_t>(k) * tau;
  for (int i = 0; i < N; ++i) {
    message[i] = source.next_below(q);
    const std::uint32_t word = codewords[static_cast<std::size_t>(i) * q + message[i]];
    for (int r = 0; r < n; ++r) x[static_cast<std::size_t>(i) * n + r] = (word >> r) & 1u;
  }
  philox_stream events(seed, rng_channel, f);
  const std::size_t rho = bsid_transmit(ch, x, static_cast<std::size_t>(tau), events,
                                        y + static_cast<std::size_t>(k) * stride, stride);
  lengths[k] = rho <= stride ? rho : 0;
}

// score_kernel: a thread per frame: detail::score_frame, as the CPU chain scores.
__global__ void score_kernel(int count, int N, int bps, const std::uint32_t* decisions,
                             const std::uint32_t* messages, const std::int32_t* status,
                             sim::frame_outcome* outcomes) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const std::size_t at = static_cast<std::size_t>(k) * N;
  outcomes[k] = detail::score_frame(decisions + at, messages + at, N, bps,
                                    status[k] == static_cast<std::int32_t>(frame_status::decoded));
}

class cuda_chain final : public sim::chain {
 public:
  static constexpr std::size_t max_frames = 4096;  // frames the plan is made for

  cuda_chain(const sim_setup& s, const bsid_params& ch, std::uint64_t seed)
      : setup_(s),
        channel_(ch),
        seed_(seed),
        plan_(s.code, ch, s.options, backend::cuda, max_frames),
        stride_(static_cast<std::size_t>(s.code.tau() + plan_.summary().frame.hi + 1)),
        step_(std::min(max_frames, plan_.summary().chunk)),
        stream_(0),
        start_(true),
        stop_(true) {
    const tvb_code& code = s.code;
    std::vector<std::uint32_t> masks(static_cast<std::size_t>(code.N()) * code.q());
    for (int i = 0; i < code.N(); ++i)
      for (int D = 0; D < code.q(); ++D) {
        std::uint32_t m = 0;
        for (int r = 0; r < code.n(); ++r) m |= std::uint32_t{code.codeword(i, D)[r]} << r;
        masks[static_cast<std::size_t>(i) * code.q() + D] = m;
      }
    codewords_.resize(masks.size());
    codewords_.upload(masks.data(), masks.size());
    const std::size_t N = code.N();
    messages_.resize(step_ * N);
    decisions_.resize(step_ * N);
    x_.resize(step_ * static_cast<std::size_t>(code.tau()));
    y_.resize(step_ * stride_);
    lengths_.resize(step_);
    status_.resize(step_);
    outcomes_.resize(step_);
  }

  sim::frame_shape shape() const override { return detail::chain_shape(setup_.code); }
  // A chunk of the plan per call: a stop request is seen between chunks.
  std::size_t preferred_batch() const override { return step_; }
  sim::fields details() const override { return detail::plan_details(plan_); }

  double run(std::uint64_t first, std::vector<sim::frame_outcome>& outcomes,
             const stop_token& stop) override {
    const tvb_code& code = setup_.code;
    const int N = code.N();
    double seconds = 0;
    for (std::size_t begin = 0; begin < outcomes.size(); begin += step_) {
      if (begin > 0 && stop.requested()) {  // between the plan's chunks
        outcomes.resize(begin);
        break;
      }
      const int count = static_cast<int>(std::min(step_, outcomes.size() - begin));
      const int threads = 128, blocks = (count + threads - 1) / threads;
      channel_kernel<<<blocks, threads, 0, stream_>>>(
          seed_, first + begin, count, code.q(), N, code.n(), code.tau(), codewords_.get(),
          channel_, messages_.get(), x_.get(), y_.get(), stride_, lengths_.get());
      GPUFEC_CUDA_CHECK_LAUNCH("channel_kernel");
      start_.record(stream_);
      const auto received = batch_view<std::uint8_t>::padded(
          y_.get(), lengths_.get(), static_cast<std::size_t>(count), stride_, memory_space::device);
      plan_.decode(received, device_outputs{decisions_.get(), status_.get()}, stream_);
      stop_.record(stream_);
      score_kernel<<<blocks, threads, 0, stream_>>>(count, N, bits_per_symbol(code.q()),
                                                    decisions_.get(), messages_.get(),
                                                    status_.get(), outcomes_.get());
      GPUFEC_CUDA_CHECK_LAUNCH("score_kernel");
      GPUFEC_CUDA_CHECK(cudaMemcpyAsync(outcomes.data() + begin, outcomes_.get(),
                                        count * sizeof(sim::frame_outcome), cudaMemcpyDeviceToHost,
                                        stream_));
      stream_.synchronize();
      seconds += cuda::seconds_between(start_, stop_);
    }
    return seconds;
  }

 private:
  const sim_setup& setup_;
  bsid_params channel_;
  std::uint64_t seed_;
  decoder_plan plan_;
  std::size_t stride_;  // received symbols kept per frame: tau + m_tau^+ + 1, as the CPU chain
  std::size_t step_;    // frames per device decode call: one chunk of the plan
  cuda::stream stream_;
  cuda::event start_, stop_;
  cuda::device_buffer<std::uint32_t> codewords_, messages_, decisions_;
  cuda::device_buffer<std::uint8_t> x_, y_;
  cuda::device_buffer<std::size_t> lengths_;
  cuda::device_buffer<std::int32_t> status_;
  cuda::device_buffer<sim::frame_outcome> outcomes_;
};

std::unique_ptr<sim::chain> make_cuda_chain(const sim_setup& setup, const bsid_params& channel,
                                            std::uint64_t seed) {
  return std::make_unique<cuda_chain>(setup, channel, seed);
}

const register_cuda_backend<detail::cuda_chain_entry> registered{&make_cuda_chain};

}  // namespace
}  // namespace gpufec::sync
