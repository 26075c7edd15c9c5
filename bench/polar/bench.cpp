// The polar decoder benchmark (bench.hpp): one workload of BPSK/AWGN frames per length, every
// decoder variant timed on it with one thread and with all.
#include "polar/bench.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/random.hpp"
#include "gpufec/polar/encoder.hpp"

namespace gpufec::polar {
namespace {

struct workload {
  polar_code code;
  std::vector<float> llr;          // frames * N
  std::vector<std::uint8_t> info;  // frames * K
  std::size_t frames;
};

std::uint32_t info_bits(const bench_config& cfg, std::uint32_t N) {
  return cfg.K ? *cfg.K : N / 2;
}

construction_spec spec_for(const bench_config& cfg, std::uint32_t N) {
  if (!cfg.construct.empty()) return construction_spec::parse(cfg.construct);
  return construction_spec::parse(N <= 1024 ? "5g" : "ga:2.5");
}

// Frame f: information bits from philox_stream(seed, rng_source, f), noise as the simulator's
// (channel::awgn_received(seed, f, j, ...)).
workload make_workload(const bench_config& cfg, std::uint32_t N, std::size_t frames) {
  const std::uint32_t K = info_bits(cfg, N);
  workload w{polar_code(N, K, spec_for(cfg, N)), std::vector<float>(frames * N),
             std::vector<std::uint8_t>(frames * K), frames};
  const double sigma = channel::sigma_from_ebn0(cfg.ebn0_db, w.code.rate());
  std::vector<std::uint8_t> x(N);
  for (std::size_t f = 0; f < frames; ++f) {
    philox_stream bits(cfg.seed, rng_source, f);
    for (std::uint32_t k = 0; k < K; ++k)
      w.info[f * K + k] = static_cast<std::uint8_t>(bits.next_bit());
    encode(w.code, {w.info.data() + f * K, K}, x);
    for (std::uint32_t j = 0; j < N; ++j)
      w.llr[f * N + j] = static_cast<float>(
          channel::llr_from_sample(channel::awgn_received(cfg.seed, f, j, x[j], sigma), sigma));
  }
  return w;
}

// threads < 0: the CUDA plan's device path.
bench_row measure(const workload& w, const decoder_options& o, const std::string& name, int threads,
                  std::size_t frames, int repeats) {
  const std::uint32_t N = w.code.N(), K = w.code.K();
  frames = std::max<std::size_t>(1, std::min(frames, w.frames));
  decoder_options opts = o;
  const bool cuda = threads < 0;
  opts.threads = cuda ? 0 : threads;
  if (cuda) opts.path = implementation::automatic;
  decoder_plan plan(w.code, opts, cuda ? backend::cuda : backend::cpu, frames);
  std::vector<std::uint8_t> bits(frames * K);
  std::vector<std::uint32_t> iterations(frames);
  const auto llr = batch_view<float>::uniform(w.llr.data(), frames, N);
  const auto out = batch_span<std::uint8_t>::uniform(bits.data(), frames, K);
  double seconds = 0;
  if (cuda) {
    seconds = plan.time_device(llr, out, iterations, repeats);
  } else {
    auto run = [&] {
      const auto start = std::chrono::steady_clock::now();
      plan.decode(llr, out, iterations);
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    run();  // warm-up: first touch of the scratch, the thread pool
    std::vector<double> times;
    for (int rep = 0; rep < repeats; ++rep) times.push_back(run());
    std::sort(times.begin(), times.end());
    seconds = times[times.size() / 2];
  }
  std::size_t errors = 0;
  for (std::size_t f = 0; f < frames; ++f)
    errors += !std::equal(bits.begin() + f * K, bits.begin() + (f + 1) * K, w.info.begin() + f * K);
  bench_row r;
  r.N = N;
  r.K = K;
  r.construction = w.code.spec().to_string();
  r.decoder = name;
  r.path = cuda ? "cuda" : std::string(name_of(plan.summary().path));
  if (cuda) r.kernel = plan.summary().kernel;
  r.threads = plan.summary().threads;
  r.frames = frames;
  r.seconds = seconds;
  r.info_mbps = static_cast<double>(frames) * K / seconds / 1e6;
  r.fer = static_cast<double>(errors) / static_cast<double>(frames);
  r.mean_iterations =
      o.decoder == decoder_kind::bp
          ? std::accumulate(iterations.begin(), iterations.end(), 0.0) / static_cast<double>(frames)
          : 0.0;
  return r;
}

std::string bp_name(const bench_bp& b) {
  std::string rule(name_of(b.rule));
  if (b.rule == update_rule::scaled_min_sum && b.scale != 0.9375f) {
    char scale[32];
    std::snprintf(scale, sizeof scale, ":%g", static_cast<double>(b.scale));
    rule += scale;
  }
  return "BP " + rule + " " + std::to_string(b.iterations);
}

decoder_options bp_options(const bench_bp& b, implementation path, bool early,
                           bp_schedule schedule) {
  decoder_options o;
  o.decoder = decoder_kind::bp;
  o.schedule = schedule;
  o.update = b.rule;
  o.scale = b.scale;
  o.iterations = b.iterations;
  o.early_stop = early;
  o.path = path;
  return o;
}

}  // namespace

bench_config program_config(bool quick, double ebn0_db) {
  bench_config cfg;
  cfg.ebn0_db = ebn0_db;
  cfg.lengths =
      quick ? std::vector<std::uint32_t>{1024} : std::vector<std::uint32_t>{256, 1024, 4096, 32768};
  for (auto rule : {update_rule::min_sum, update_rule::scaled_min_sum, update_rule::sum_product,
                    update_rule::lr_sum_product})
    for (int iterations : {10, 35})
      if (!quick || iterations == 10 || rule == update_rule::min_sum)
        cfg.bp.push_back({rule, 0.9375f, iterations});
  cfg.bp_reference = {{update_rule::min_sum, 0.9375f, 10}};
  return cfg;
}

std::vector<bench_row> run_bench(const bench_config& cfg,
                                 const std::function<void(const bench_row&)>& on_row) {
  const int all = cfg.threads > 0 ? cfg.threads : omp_get_max_threads();
  std::vector<bench_row> rows;
  for (const std::uint32_t N : cfg.lengths) {
    const std::size_t frames =
        cfg.frames ? cfg.frames : std::max<std::size_t>(64, (std::size_t{1} << 22) / N);
    const std::size_t cuda_frames =
        std::max<std::size_t>(frames, std::max<std::size_t>(1, (std::size_t{1} << 25) / N));
    const workload w = make_workload(cfg, N, cfg.cuda ? cuda_frames : frames);
    auto add = [&](const decoder_options& o, const std::string& name, std::size_t count) {
      for (const int threads : {1, all}) {
        rows.push_back(measure(w, o, name, threads, count, cfg.repeats));
        if (on_row) on_row(rows.back());
        if (all == 1) break;
      }
    };
    decoder_options sc;
    sc.path = implementation::reference;
    add(sc, "SC reference (sp)", frames / 8);
    sc.path = implementation::fast;
    for (const update_rule rule : cfg.sc_fast) {
      sc.update = rule;
      add(sc, "SC fast (" + std::string(name_of(rule)) + ")", frames);
    }
    for (const bench_bp& b : cfg.bp)
      for (const bool early : {false, true}) {
        const std::string name = bp_name(b) + (early ? " early" : "");
        add(bp_options(b, implementation::fast, early, cfg.schedule), name,
            frames / (b.iterations > 10 ? 8 : 4));
        if (!cfg.cuda) continue;
        const double cpu_mbps = rows.back().info_mbps;
        const bool registers_apply =
            (b.rule == update_rule::min_sum || b.rule == update_rule::scaled_min_sum) && N >= 8 &&
            N <= 2048;
        for (const message_precision precision : cfg.cuda_precisions)
          for (const cuda_kernel kernel : cfg.cuda_kernels)
            for (const refill_policy refill : cfg.cuda_refills) {
              const bool fp16 = precision == message_precision::fp16;
              if ((fp16 || kernel == cuda_kernel::registers) && !registers_apply) continue;
              if (fp16 && kernel == cuda_kernel::memory) continue;
              if (refill != cfg.cuda_refills.front() && !early) continue;
              decoder_options o = bp_options(b, implementation::automatic, early, cfg.schedule);
              o.precision = precision;
              o.kernel = kernel;
              o.refill = refill;
              std::string variant = name;
              if (fp16) variant.append(" fp16");
              if (kernel != cuda_kernel::automatic) variant.append(" ").append(name_of(kernel));
              if (early && cfg.cuda_refills.size() > 1) variant.append(" ").append(name_of(refill));
              rows.push_back(measure(w, o, variant, -1, cuda_frames, cfg.repeats));
              rows.back().cpu_ratio = rows.back().info_mbps / cpu_mbps;
              if (on_row) on_row(rows.back());
            }
      }
    for (const bench_bp& b : cfg.bp_reference)
      add(bp_options(b, implementation::reference, false, cfg.schedule), bp_name(b) + " reference",
          frames / 32);
  }
  return rows;
}

std::string format_header(const bench_config& cfg) {
  const decoder_plan probe(polar_code(1024, 512), {.path = implementation::fast}, backend::cpu, 1);
  char line[512];
  std::snprintf(line, sizeof line,
                "# gpufec bench polar: BPSK/AWGN LLRs at Eb/N0 %g dB, K = %s, construction %s, "
                "seed %llu, BP schedule %s\n# median of %d decode calls after a warm-up, decoder "
                "only; fast path %s (%zu codewords per vector); all threads = %d\n",
                cfg.ebn0_db, cfg.K ? std::to_string(*cfg.K).c_str() : "N/2",
                cfg.construct.empty() ? "5g (N <= 1024), ga:2.5 beyond" : cfg.construct.c_str(),
                static_cast<unsigned long long>(cfg.seed),
                std::string(name_of(cfg.schedule)).c_str(), cfg.repeats,
                probe.summary().simd_target.c_str(), probe.summary().lanes,
                cfg.threads > 0 ? cfg.threads : omp_get_max_threads());
  std::string header = line;
  std::snprintf(line, sizeof line, "# %6s %6s %-34s %-9s %7s %8s %10s %10s %8s %6s\n", "N", "K",
                "decoder", "path", "threads", "frames", "ms/call", "info Mb/s", "FER", "iters");
  return header + line;
}

std::string format_row(const bench_row& r) {
  char line[256];
  std::snprintf(line, sizeof line, "  %6u %6u %-34s %-9s %7d %8zu %10.3f %10.2f %8.4f %6.2f", r.N,
                r.K, r.decoder.c_str(), r.path.c_str(), r.threads, r.frames, r.seconds * 1e3,
                r.info_mbps, r.fer, r.mean_iterations);
  std::string text = line;
  if (r.cpu_ratio > 0) {
    std::snprintf(line, sizeof line, "  x%.1f vs CPU; %s", r.cpu_ratio, r.kernel.c_str());
    text += line;
  }
  return text + "\n";
}

nlohmann::json to_json(const std::vector<bench_row>& rows, const bench_config& cfg) {
  const decoder_plan probe(polar_code(1024, 512), {.path = implementation::fast}, backend::cpu, 1);
  nlohmann::json out = {
      {"family", "polar"},
      {"parameters",
       {{"ebn0_db", cfg.ebn0_db},
        {"K", cfg.K ? nlohmann::json(*cfg.K) : nlohmann::json()},  // null: N/2 for each N
        {"construction", cfg.construct.empty() ? "5g (N <= 1024), ga:2.5 beyond" : cfg.construct},
        {"repeats", cfg.repeats},
        {"seed", cfg.seed},
        {"bp_schedule", std::string(name_of(cfg.schedule))},
        {"all_threads", cfg.threads > 0 ? cfg.threads : omp_get_max_threads()},
        {"simd_target", probe.summary().simd_target},
        {"lanes", probe.summary().lanes}}},
      {"rows", nlohmann::json::array()}};
  for (const bench_row& r : rows)
    out["rows"].push_back(
        {{"N", r.N},
         {"K", r.K},
         {"construction", r.construction},
         {"decoder", r.decoder},
         {"path", r.path},
         {"threads", r.threads},
         {"frames", r.frames},
         {"seconds", r.seconds},
         {"info_mbps", r.info_mbps},
         {"fer", r.fer},
         {"mean_iterations", r.mean_iterations},
         {"cpu_ratio", r.cpu_ratio > 0 ? nlohmann::json(r.cpu_ratio) : nlohmann::json()},
         {"kernel", r.kernel}});
  return out;
}

}  // namespace gpufec::polar
