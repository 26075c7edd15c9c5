#include "sync/bench.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <utility>

#include "gpufec/common/device.hpp"
#include "gpufec/sync/simulation.hpp"
#include "median.hpp"

namespace gpufec::sync {
namespace {

using bench::median;

std::size_t count_errors(const decode_output& out, const std::vector<std::uint32_t>& messages,
                         std::size_t frames) {
  std::size_t errors = 0;
  for (std::size_t k = 0; k < frames * out.N; ++k) errors += out.decisions[k] != messages[k];
  return errors;
}

}  // namespace

std::vector<bench_row> run_bench(const bench_config& cfg) {
  std::vector<bench_row> rows;
  const bool cuda = cfg.cuda && cuda_device_count() > 0;
  for (const bench_point& pt : cfg.points) {
    const tvb_code code = tvb_code::random(pt.q, pt.n, pt.N, cfg.seed);
    const bsid_params ch{pt.p, pt.p, 0};
    std::size_t most = cfg.cpu_frames;
    if (cuda)
      for (std::size_t b : cfg.gpu_batches) most = std::max(most, b);
    const sim_frames data = draw_frames(code, ch, cfg.seed, most);
    const double info_bits = pt.N * std::log2(static_cast<double>(pt.q));
    decoder_options o;
    o.storage = cfg.storage;
    o.drift_posterior = cfg.drift_posterior;
    o.fold_min_frames = cfg.fold_min_frames;
    o.fold = cfg.fold;

    // CPU reference: one frame at a time on cpu_threads threads, median seconds per frame.
    const int saved_threads = omp_get_max_threads();
    omp_set_num_threads(cfg.cpu_threads);
    decoder_plan cpu(code, ch, o, backend::cpu, 1);
    decode_output cpu_out, one;
    cpu.decode(data.received.frame(0));  // warm-up
    std::vector<double> per_frame;
    batch<std::uint8_t> cpu_batch;
    for (std::size_t f = 0; f < cfg.cpu_frames; ++f) {
      batch<std::uint8_t> b;
      b.push_back(data.received.frame(f));
      const auto t0 = std::chrono::steady_clock::now();
      cpu.decode(b.view(), one);
      per_frame.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      cpu_out.decisions.insert(cpu_out.decisions.end(), one.decisions.begin(), one.decisions.end());
    }
    omp_set_num_threads(saved_threads);
    cpu_out.N = pt.N;
    bench_row c;
    c.point = pt;
    c.backend = cat("cpu (", cfg.cpu_threads, " thread", cfg.cpu_threads > 1 ? "s" : "", ")");
    c.batch = 1;
    c.M_tau = cpu.summary().frame.size();
    c.M_n = cpu.summary().codeword.size();
    c.storage = to_string(cpu.summary().storage);
    c.seconds_per_frame = median(per_frame);
    c.frames_per_s = 1 / c.seconds_per_frame;
    c.info_mbps = info_bits * c.frames_per_s / 1e6;
    c.speedup = 1;
    c.symbol_errors = count_errors(cpu_out, data.messages, cfg.cpu_frames);
    rows.push_back(c);
    if (!cuda) continue;

    for (std::size_t b : cfg.gpu_batches) {
      batch<std::uint8_t> in;
      for (std::size_t f = 0; f < b; ++f) in.push_back(data.received.frame(f));
      decoder_plan gpu(code, ch, o, backend::cuda, b);
      decode_output out;
      // Warm-up: 200 ms of decoding at least. Besides the clocks, the driver's clean-up of device
      // memory that an earlier plan freed (the previous row's) delays each call's copies by ~1 ms
      // until it is done: measured, one slow call after a 20 GB cudaFree, several back to back.
      const auto warm_from = std::chrono::steady_clock::now();
      do gpu.decode(in.view(), out);
      while (std::chrono::steady_clock::now() - warm_from < std::chrono::milliseconds(200));
      // The repeats' median total, and the timings of the repeat nearest to it.
      auto repeats = [&](bool phases) {
        gpu.set_phase_timings(phases);
        std::vector<decode_timings> runs;
        std::vector<double> totals;
        for (int r = 0; r < cfg.repeats; ++r) {
          gpu.decode(in.view(), out);
          runs.push_back(gpu.last_timings());
          totals.push_back(runs.back().total);
        }
        const double med = median(totals);
        return std::pair{
            med, *std::min_element(runs.begin(), runs.end(), [&](const auto& x, const auto& y) {
              return std::abs(x.total - med) < std::abs(y.total - med);
            })};
      };
      const double med = repeats(false).first;
      // The split comes from separate runs with events between the kernels (slower: no graph).
      const decode_timings split = repeats(true).second;
      gpu.set_phase_timings(false);
      bench_row g;
      g.point = pt;
      g.backend = "cuda";
      g.batch = b;
      g.M_tau = c.M_tau;
      g.M_n = c.M_n;
      g.storage = to_string(gpu.summary().storage);
      g.kernel_shapes = gpu.summary().kernel_shapes;
      g.seconds_per_frame = med / b;
      g.frames_per_s = 1 / g.seconds_per_frame;
      g.info_mbps = info_bits * g.frames_per_s / 1e6;
      g.speedup = c.seconds_per_frame / g.seconds_per_frame;
      // Shares of the summed phase times: a batch runs in pipelined parts whose phases overlap.
      const double phases = split.gamma + split.forward_backward + split.app + split.transfer;
      g.gamma = split.gamma / phases;
      g.fb = split.forward_backward / phases;
      g.app = split.app / phases;
      g.transfer = split.transfer / phases;
      g.symbol_errors = count_errors(out, data.messages, b);
      const std::size_t common = std::min(b, cfg.cpu_frames) * pt.N;
      g.matches_cpu = std::equal(out.decisions.begin(), out.decisions.begin() + common,
                                 cpu_out.decisions.begin());
      rows.push_back(g);
    }
  }
  return rows;
}

std::string format_table(const std::vector<bench_row>& rows) {
  std::ostringstream os;
  os << std::left << std::setw(6) << "q" << std::setw(4) << "n" << std::setw(6) << "N"
     << std::setw(8) << "p" << std::setw(16) << "backend" << std::right << std::setw(6) << "batch"
     << std::setw(6) << "M_tau" << std::setw(5) << "M_n" << std::setw(8) << "storage"
     << std::setw(12) << "frames/s" << std::setw(11) << "info Mb/s" << std::setw(10) << "speedup"
     << std::setw(22) << "gamma/ab/L/copy %" << std::setw(9) << "sym.err" << std::setw(7) << "==cpu"
     << "\n";
  for (const auto& r : rows) {
    std::ostringstream split;
    if (r.backend == "cuda")
      split << std::fixed << std::setprecision(0) << 100 * r.gamma << "/" << 100 * r.fb << "/"
            << 100 * r.app << "/" << 100 * r.transfer;
    else
      split << "-";
    os << std::left << std::setw(6) << r.point.q << std::setw(4) << r.point.n << std::setw(6)
       << r.point.N << std::setw(8) << r.point.p << std::setw(16) << r.backend << std::right
       << std::setw(6) << r.batch << std::setw(6) << r.M_tau << std::setw(5) << r.M_n
       << std::setw(8) << r.storage << std::setw(12) << std::setprecision(4) << r.frames_per_s
       << std::setw(11) << r.info_mbps << std::setw(10) << std::setprecision(4) << r.speedup
       << std::setw(22) << split.str() << std::setw(9) << r.symbol_errors << std::setw(7)
       << (r.matches_cpu ? "yes" : "NO") << "\n";
  }
  // Kernel shapes once per point, from its largest batch (the plan the speedup targets use).
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const bool last_of_point = k + 1 == rows.size() || rows[k + 1].point.q != rows[k].point.q ||
                               rows[k + 1].point.n != rows[k].point.n ||
                               rows[k + 1].point.N != rows[k].point.N ||
                               rows[k + 1].point.p != rows[k].point.p;
    if (!last_of_point || rows[k].kernel_shapes.empty()) continue;
    os << "kernels at q=" << rows[k].point.q << " n=" << rows[k].point.n << " N=" << rows[k].point.N
       << " p=" << rows[k].point.p << " batch " << rows[k].batch << ":\n";
    for (const auto& line : rows[k].kernel_shapes) os << "  " << line << "\n";
  }
  return os.str();
}

nlohmann::json to_json(const std::vector<bench_row>& rows, const bench_config& cfg) {
  nlohmann::json j;
  const auto b = get_build_info();
  j["build"] = {
      {"version", b.version}, {"cuda", b.cuda}, {"cuda_architectures", b.cuda_architectures}};
  for (const auto& d : cuda_devices())
    j["devices"].push_back(
        {{"name", d.name}, {"sm_count", d.sm_count}, {"memory", d.total_memory}});
  j["config"] = {{"cpu_frames", cfg.cpu_frames},
                 {"cpu_threads", cfg.cpu_threads},
                 {"repeats", cfg.repeats},
                 {"seed", cfg.seed},
                 {"storage", to_string(cfg.storage)},
                 {"drift_posterior", cfg.drift_posterior},
                 {"gpu_batches", cfg.gpu_batches}};
  for (const auto& r : rows)
    j["rows"].push_back({{"q", r.point.q},
                         {"n", r.point.n},
                         {"N", r.point.N},
                         {"p", r.point.p},
                         {"backend", r.backend},
                         {"batch", r.batch},
                         {"M_tau", r.M_tau},
                         {"M_n", r.M_n},
                         {"storage", r.storage},
                         {"seconds_per_frame", r.seconds_per_frame},
                         {"frames_per_s", r.frames_per_s},
                         {"info_mbps", r.info_mbps},
                         {"speedup", r.speedup},
                         {"fraction_gamma", r.gamma},
                         {"fraction_alpha_beta", r.fb},
                         {"fraction_L", r.app},
                         {"fraction_transfer", r.transfer},
                         {"symbol_errors", r.symbol_errors},
                         {"matches_cpu", r.matches_cpu},
                         {"kernel_shapes", r.kernel_shapes}});
  return j;
}

}  // namespace gpufec::sync
