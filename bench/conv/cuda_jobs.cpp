// The CUDA rows of the conv benchmark (bench/conv/jobs.hpp): plain C++ over the public API, no
// CUDA headers (page-locked host memory through gpufec/common/page_locked.hpp). Device memory is
// reached through the CUDA simulation chain, which makes int8 LLRs on the GPU and times the plan's
// device path with events.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "conv/jobs.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/page_locked.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/simulation.hpp"

namespace gpufec::conv::bench_detail {
namespace {

// Calls `fn` for 200 ms, and at least twice: clocks up, lazy module loading and the first
// allocations out of the timing (bench/sync/bench.cpp measured why 200 ms).
template <class Fn>
void warm_up(Fn&& fn) {
  const auto from = std::chrono::steady_clock::now();
  int calls = 0;
  while (calls < 2 || std::chrono::steady_clock::now() - from < std::chrono::milliseconds(200)) {
    fn();
    ++calls;
  }
}

bench_row cuda_row(const conv_code& code, const puncture_pattern& pattern, std::size_t frames,
                   std::size_t N, const plan_summary& plan, const char* path) {
  bench_row r;
  r.K = code.K();
  r.rate = pattern.rate_string();
  r.backend = "cuda";
  r.decoder = cat("tiled (CUDA), ", path, " int8");
  r.input = "int8";
  r.threads = 0;
  r.frames = frames;
  r.bits_per_call = frames * N;
  r.tile = plan.tile.to_string();
  r.kernel = plan.kernel;
  return r;
}

}  // namespace

std::vector<job> cuda_jobs(const conv_code& code, const puncture_pattern& pattern,
                           const bench_config& config, std::span<const std::int8_t> q,
                           std::span<const std::uint8_t> info, std::size_t frames,
                           std::string& device) {
  const std::size_t N = config.frame_bits;
  sim_setup setup(code, pattern);
  setup.frame_bits = N;
  setup.term = termination::zero_tail;
  setup.llr = llr_kind::i8;
  setup.options.decoder = decoder_kind::tiled;
  setup.where = backend::cuda;  // backend_unavailable without a device
  const sim_family family(setup);
  device = cuda_devices().front().name;

  // The device path: one CUDA chain step per call, the decoder's seconds from its events.
  struct chain_state {
    std::unique_ptr<sim::chain> chain;
    std::vector<sim::frame_outcome> outcomes;
  };
  auto chain = std::make_shared<chain_state>();
  chain->chain = family.make_chain(config.ebn0_db, config.seed);
  const std::size_t batch = chain->chain->preferred_batch();
  chain->outcomes.resize(batch);
  // The host path: a CUDA plan for the same number of frames, on the workload's LLRs repeated.
  struct plan_state {
    decoder_plan plan;
    std::vector<std::int8_t> llr;
    std::vector<std::uint8_t> info, bits;
    page_locked_vector<std::int8_t> locked_llr;  // the same batch in page-locked memory
    page_locked_vector<std::uint8_t> locked_bits;
  };
  decoder_options options;
  options.decoder = decoder_kind::tiled;
  auto host = std::make_shared<plan_state>(plan_state{
      decoder_plan(code, pattern, N, termination::zero_tail, options, backend::cuda, batch),
      {},
      {},
      std::vector<std::uint8_t>(batch * N),
      {},
      {}});
  const std::size_t n = host->plan.shape().coded_bits;
  require(q.size() == frames * n && info.size() == frames * N && frames > 0,
          "bench: the workload holds ", q.size(), " LLRs and ", info.size(), " bits for ", frames,
          " frames of ", n, " LLRs and ", N, " bits");
  host->llr.resize(batch * n);
  host->info.resize(batch * N);
  for (std::size_t f = 0; f < batch; ++f) {
    std::copy_n(q.begin() + static_cast<std::ptrdiff_t>(f % frames * n), n,
                host->llr.begin() + static_cast<std::ptrdiff_t>(f * n));
    std::copy_n(info.begin() + static_cast<std::ptrdiff_t>(f % frames * N), N,
                host->info.begin() + static_cast<std::ptrdiff_t>(f * N));
  }

  host->locked_llr.assign(host->llr.begin(), host->llr.end());
  host->locked_bits.resize(batch * N);

  // Pageable memory (staged by host copies), then page-locked memory (copied straight over the
  // link): the same plan and batch.
  std::vector<job> jobs(3);
  for (const bool locked : {false, true}) {
    job& on_host = jobs[locked ? 1 : 0];
    on_host.r = cuda_row(code, pattern, batch, N, host->plan.summary(),
                         locked ? "page-locked host" : "host");
    on_host.call = [host, batch, n, N, locked] {
      host->plan.decode(batch_view<std::int8_t>::uniform(
                            locked ? host->locked_llr.data() : host->llr.data(), batch, n),
                        batch_span<std::uint8_t>::uniform(
                            locked ? host->locked_bits.data() : host->bits.data(), batch, N));
    };
    on_host.ber = [host, locked] {
      const std::uint8_t* bits = locked ? host->locked_bits.data() : host->bits.data();
      std::size_t errors = 0;
      for (std::size_t i = 0; i < host->info.size(); ++i) errors += bits[i] != host->info[i];
      return static_cast<double>(errors) / static_cast<double>(host->info.size());
    };
    on_host.state = host;
    warm_up(on_host.call);
  }

  job& on_device = jobs[2];
  on_device.r = cuda_row(code, pattern, batch, N, host->plan.summary(), "device");
  on_device.timed = [chain, batch] {
    chain->outcomes.assign(batch, {});
    return chain->chain->run(0, chain->outcomes);
  };
  on_device.ber = [chain, N] {
    std::uint64_t errors = 0;
    for (const sim::frame_outcome& o : chain->outcomes) errors += o.bit_errors;
    return static_cast<double>(errors) / static_cast<double>(chain->outcomes.size() * N);
  };
  on_device.state = chain;
  warm_up(on_device.timed);
  return jobs;
}

}  // namespace gpufec::conv::bench_detail
