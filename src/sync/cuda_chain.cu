// The CUDA simulation chain: messages, encoding and the BSID channel run on the GPU (one thread
// per frame, the same Philox streams and the same bsid_transmit as the CPU chain, hence the same
// frames), straight into the decoder's device buffers; only decisions come back.
#include <chrono>

#include "gpufec/sync/simulation.hpp"
#include "sync/cuda_engine.cuh"

namespace gpufec::sync {
namespace {

// One thread per frame k of the chunk: frame index first + k.
__global__ void channel_kernel(std::uint64_t seed, std::uint64_t first, int count, int q, int N,
                               int n, long long tau, const std::uint32_t* codewords, bsid_params ch,
                               std::uint8_t* x_scratch, std::uint8_t* y, std::size_t capacity,
                               long long* offsets, long long* rho_out, int* status, int lo, int hi,
                               int end_known) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const std::uint64_t f = first + k;
  philox_stream src(seed, rng_source, f);
  std::uint8_t* x = x_scratch + static_cast<std::size_t>(k) * tau;
  for (int i = 0; i < N; ++i) {
    const std::uint32_t word = codewords[static_cast<std::size_t>(i) * q + src.next_below(q)];
    for (int r = 0; r < n; ++r) x[static_cast<std::size_t>(i) * n + r] = (word >> r) & 1u;
  }
  philox_stream chan(seed, rng_channel, f);
  const std::size_t rho = bsid_transmit(ch, x, static_cast<std::size_t>(tau), chan,
                                        y + static_cast<std::size_t>(k) * capacity, capacity);
  offsets[k] = static_cast<long long>(k) * static_cast<long long>(capacity);
  if (k == count - 1)
    offsets[count] = static_cast<long long>(count) * static_cast<long long>(capacity);
  const long long r = static_cast<long long>(rho), drift = r - tau;
  rho_out[k] = r;
  const bool ok =
      rho > 0 && rho <= capacity && (end_known ? drift >= lo && drift <= hi : drift >= lo);
  status[k] = ok ? cuda_detail::status_ok : cuda_detail::status_skip;
}

class cuda_chain final : public sim::chain {
 public:
  cuda_chain(const sim_setup& s, const bsid_params& ch, std::uint64_t seed)
      : setup_(s),
        channel_(ch),
        seed_(seed),
        plan_(s.code, ch, s.options, backend::cuda, 4096),
        engine_(dynamic_cast<cuda_detail::cuda_engine&>(plan_.engine())) {
    x_.resize(engine_.chunk() * static_cast<std::size_t>(s.code.tau()));
  }

  sim::frame_shape shape() const override { return detail::chain_shape(setup_.code); }
  std::size_t preferred_batch() const override { return engine_.chunk(); }
  std::vector<std::pair<std::string, std::string>> details() const override {
    return detail::plan_details(plan_);
  }

  double run(std::uint64_t first, std::vector<sim::frame_outcome>& outcomes) override {
    const auto& code = setup_.code;
    const int N = code.N();
    const auto& lim = plan_.summary().frame;
    double seconds = 0;
    for (std::size_t begin = 0; begin < outcomes.size(); begin += engine_.chunk()) {
      const int count = static_cast<int>(std::min(engine_.chunk(), outcomes.size() - begin));
      const int threads = 128;
      const auto in = engine_.device_inputs(count);
      channel_kernel<<<(count + threads - 1) / threads, threads, 0, engine_.stream()>>>(
          seed_, first + begin, count, code.q(), N, code.n(), code.tau(),
          engine_.device_codewords(), channel_, x_.get(), in.y, engine_.capacity(), in.offsets,
          in.rho, in.status, lim.lo, lim.hi, setup_.options.end_known);
      GPUFEC_CUDA_CHECK_LAUNCH("channel_kernel");
      out_.decisions.resize(static_cast<std::size_t>(count) * N);
      out_.decoded.assign(count, 1);
      out_.messages.assign(count, std::string());
      engine_.set_timings({});
      engine_.record_start();
      engine_.run_loaded(count, nullptr, out_, 0, false);
      seconds += engine_.timings().total;
      message_.resize(N);
      for (int k = 0; k < count; ++k) {
        detail::draw_message(seed_, first + begin + k, code.q(), message_.data(), N);
        const bool decoded = out_.decoded[k];  // includes frames the channel kernel flagged
        outcomes[begin + k] =
            detail::score_frame(out_.decisions.data() + static_cast<std::size_t>(k) * N,
                                message_.data(), N, code.q(), decoded);
      }
    }
    return seconds;
  }

 private:
  const sim_setup& setup_;
  bsid_params channel_;
  std::uint64_t seed_;
  decoder_plan plan_;
  cuda_detail::cuda_engine& engine_;
  cuda::device_buffer<std::uint8_t> x_;
  decode_output out_;
  std::vector<std::uint32_t> message_;
};

}  // namespace

namespace detail {
std::unique_ptr<sim::chain> make_cuda_chain(const sim_setup& setup, const bsid_params& channel,
                                            std::uint64_t seed) {
  return std::make_unique<cuda_chain>(setup, channel, seed);
}
}  // namespace detail
}  // namespace gpufec::sync
