// Benchmark program for the polar decoders (issue 24): information Mb/s of the SC reference, the
// fast SC, and BP with every update rule at 10 and 35 iterations (fixed, and with G-matrix early
// stopping), on one thread and on all, for N from 256 to 32768 (K = N/2; 5G construction up to
// 1024, GA at 2.5 dB beyond). Inputs: BPSK/AWGN LLRs at a stated Eb/N0 (default 2.5 dB). Each
// figure is the median of 5 timed decode calls after one warm-up call, decoder only.
//   polar_bench [--quick] [--ebn0 DB] [--json FILE]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/polar/decoder.hpp"
#include "gpufec/polar/encoder.hpp"

namespace {

using namespace gpufec;
using namespace gpufec::polar;

struct row {
  std::uint32_t N, K;
  std::string decoder;
  int threads;
  std::size_t frames;
  double seconds, mbps, fer, mean_iterations;
};

struct workload {
  polar_code code;
  std::vector<float> llr;
  std::vector<std::uint8_t> info;
  std::size_t frames;
};

workload make_workload(std::uint32_t N, std::size_t frames, double ebn0) {
  const std::uint32_t K = N / 2;
  workload w{N <= 1024 ? polar_code(N, K) : polar_code(N, K, construction_spec::parse("ga:2.5")),
             std::vector<float>(frames * N), std::vector<std::uint8_t>(frames * K), frames};
  const double sigma = channel::sigma_from_ebn0(ebn0, 0.5);
  std::vector<std::uint8_t> x(N);
  for (std::size_t f = 0; f < frames; ++f) {
    philox_stream bits(1, rng_source, f);
    for (std::uint32_t k = 0; k < K; ++k)
      w.info[f * K + k] = static_cast<std::uint8_t>(bits.next_bit());
    encode(w.code, {w.info.data() + f * K, K}, x);
    for (std::uint32_t j = 0; j < N; ++j)
      w.llr[f * N + j] = static_cast<float>(
          channel::llr_from_sample(channel::awgn_received(1, f, j, x[j], sigma), sigma));
  }
  return w;
}

row measure(const workload& w, const decoder_options& o, const std::string& name, int threads,
            std::size_t frames) {
  const std::uint32_t N = w.code.N(), K = w.code.K();
  frames = std::min(frames, w.frames);
  decoder_options opts = o;
  opts.threads = threads;
  decoder_plan plan(w.code, opts, backend::cpu, frames);
  std::vector<std::uint8_t> bits(frames * K);
  std::vector<std::uint32_t> iterations(frames);
  auto run = [&] {
    const auto start = std::chrono::steady_clock::now();
    plan.decode(batch_view<float>::uniform(w.llr.data(), frames, N),
                batch_span<std::uint8_t>::uniform(bits.data(), frames, K), iterations);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  run();  // warm-up
  std::vector<double> times;
  for (int rep = 0; rep < 5; ++rep) times.push_back(run());
  std::sort(times.begin(), times.end());
  std::size_t errors = 0;
  for (std::size_t f = 0; f < frames; ++f)
    errors += !std::equal(bits.begin() + f * K, bits.begin() + (f + 1) * K, w.info.begin() + f * K);
  const double mean_it =
      o.decoder == decoder_kind::bp
          ? std::accumulate(iterations.begin(), iterations.end(), 0.0) / static_cast<double>(frames)
          : 0.0;
  return {N,
          K,
          name,
          plan.summary().threads,
          frames,
          times[2],
          static_cast<double>(frames) * K / times[2] / 1e6,
          static_cast<double>(errors) / frames,
          mean_it};
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  double ebn0 = 2.5;
  std::string json;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--quick"))
      quick = true;
    else if (!std::strcmp(argv[a], "--ebn0") && a + 1 < argc)
      ebn0 = std::atof(argv[++a]);
    else if (!std::strcmp(argv[a], "--json") && a + 1 < argc)
      json = argv[++a];
    else {
      std::cerr << "usage: polar_bench [--quick] [--ebn0 DB] [--json FILE]\n";
      return 2;
    }
  }
  try {
    const int all = omp_get_max_threads();
    std::vector<row> rows;
    const std::vector<std::uint32_t> lengths =
        quick ? std::vector<std::uint32_t>{1024}
              : std::vector<std::uint32_t>{256, 1024, 4096, 32768};
    for (std::uint32_t N : lengths) {
      // About 2-4 Mbit of information per timed call on the fast paths, less on the references.
      const std::size_t frames = std::max<std::size_t>(64, (std::size_t{1} << 22) / N);
      const workload w = make_workload(N, frames, ebn0);
      auto add = [&](const decoder_options& o, const std::string& name, std::size_t count) {
        for (int threads : {1, all}) {
          rows.push_back(measure(w, o, name, threads, count));
          if (all == 1) break;
        }
      };
      decoder_options o;
      o.path = implementation::reference;
      add(o, "SC reference (sp)", frames / 8);
      o.path = implementation::fast;
      o.update = update_rule::min_sum;
      add(o, "SC fast (minsum)", frames);
      o.update = update_rule::sum_product;
      add(o, "SC fast (sp)", frames);
      for (auto rule : {update_rule::min_sum, update_rule::scaled_min_sum, update_rule::sum_product,
                        update_rule::lr_sum_product})
        for (int iterations : {10, 35})
          for (bool early : {false, true}) {
            if (quick && iterations == 35 && rule != update_rule::min_sum) continue;
            decoder_options b;
            b.decoder = decoder_kind::bp;
            b.update = rule;
            b.iterations = iterations;
            b.early_stop = early;
            b.path = implementation::fast;
            add(b,
                std::string("BP ") + std::string(name_of(rule)) + " " + std::to_string(iterations) +
                    (early ? " early" : ""),
                frames / (iterations == 35 ? 8 : 4));
          }
      decoder_options ref;
      ref.decoder = decoder_kind::bp;
      ref.update = update_rule::min_sum;
      ref.path = implementation::reference;
      add(ref, "BP minsum 10 reference", frames / 32);
    }
    std::printf("polar decoders, Eb/N0 %.2f dB (LLR inputs), K = N/2, median of 5 calls, %s\n",
                ebn0, decoder_plan(polar_code(1024, 512), {}, backend::cpu, 64).describe().c_str());
    std::printf("%6s %-26s %7s %8s %10s %10s %8s %6s\n", "N", "decoder", "threads", "frames",
                "ms/call", "info Mb/s", "FER", "iters");
    for (const auto& r : rows)
      std::printf("%6u %-26s %7d %8zu %10.3f %10.2f %8.4f %6.2f\n", r.N, r.decoder.c_str(),
                  r.threads, r.frames, r.seconds * 1e3, r.mbps, r.fer, r.mean_iterations);
    if (!json.empty()) {
      nlohmann::json out = {{"ebn0_db", ebn0}, {"rows", nlohmann::json::array()}};
      for (const auto& r : rows)
        out["rows"].push_back({{"N", r.N},
                               {"K", r.K},
                               {"decoder", r.decoder},
                               {"threads", r.threads},
                               {"frames", r.frames},
                               {"seconds", r.seconds},
                               {"info_mbps", r.mbps},
                               {"fer", r.fer},
                               {"mean_iterations", r.mean_iterations}});
      std::ofstream(json) << out.dump(2) << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "polar_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
