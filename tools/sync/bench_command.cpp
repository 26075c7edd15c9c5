// `bench sync`: the CPU reference and the CUDA decoder on the same frames (bench/sync/bench.hpp).
#include <iostream>
#include <memory>

#include "family_registry.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/provenance.hpp"
#include "sync/bench.hpp"

namespace gpufec::cli {
namespace {

struct sync_bench_options {
  int q = 32, n = 10, N = 210;
  std::vector<double> p{1e-3, 1e-2};
  std::vector<std::size_t> batches{1, 1000};
  std::size_t cpu_frames = 3;
  int repeats = 5;
  std::string storage = "auto";
  bool drift = false;
  std::size_t fold_min_frames = 0;
  std::string fold = "auto";
  CLI::Option* batches_option = nullptr;
};

action bench_sync(CLI::App& cmd, const bench_options& common) {
  auto o = std::make_shared<sync_bench_options>();
  cmd.add_option("--q", o->q, "message alphabet size")
      ->check(in_range(2, 1 << 20))
      ->capture_default_str();
  cmd.add_option("--n", o->n, "codeword length")->check(in_range(1, 32))->capture_default_str();
  cmd.add_option("--N", o->N, "message length")->check(in_range(1, 1 << 24))->capture_default_str();
  cmd.add_option("--p", o->p, "Pi = Pd values")
      ->delimiter(',')
      ->check(in_range(0, 0.4999))
      ->capture_default_str();
  o->batches_option = cmd.add_option("--batches", o->batches, "GPU frames per decode call")
                          ->delimiter(',')
                          ->check(in_range(1, 1 << 20))
                          ->capture_default_str();
  cmd.add_option("--cpu-frames", o->cpu_frames, "frames the CPU reference decodes (median)")
      ->check(in_range(1, 1 << 20))
      ->capture_default_str();
  cmd.add_option("--repeats", o->repeats, "timed repetitions after a warm-up")
      ->check(in_range(1, 1000))
      ->capture_default_str();
  cmd.add_option("--storage", o->storage, "auto, global, compact or local")
      ->check(CLI::IsMember(names_of<sync::storage_mode>()))
      ->capture_default_str();
  cmd.add_flag("--drift", o->drift, "also compute and copy back the drift posterior");
  cmd.add_option("--fold-min-frames", o->fold_min_frames,
                 "CUDA: fold gamma and beta for chunks of this many frames or more (0: from the "
                 "device; a large number: never), for A/B runs")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd.add_option("--fold", o->fold,
                 "CUDA: the kernel of a folded chunk, items (a warp per states of one frame and "
                 "index) or frames (a block per frame); auto: by the geometry")
      ->check(CLI::IsMember(names_of<sync::fold_kernel>()))
      ->capture_default_str();
  return [o, &common] {
    if (o->n < 31 && o->q > (1 << o->n))
      throw usage_error(cat("--q ", o->q, " exceeds 2^n = ", 1 << o->n, " (--n ", o->n, ")"));
    const double started = seconds_since_epoch();
    output_file json;  // opened before any work: a bad path fails at once
    if (!common.json_path.empty()) json = output_file(common.json_path);
    sync::bench_config cfg;
    cfg.drift_posterior = o->drift;
    cfg.fold_min_frames = o->fold_min_frames;
    cfg.fold = parse_name<sync::fold_kernel>(o->fold, "--fold");
    for (double p : o->p) cfg.points.push_back({o->q, o->n, o->N, p});
    cfg.gpu_batches = o->batches;
    cfg.cpu_frames = o->cpu_frames;
    cfg.cpu_threads = common.threads > 0 ? common.threads : 1;
    cfg.repeats = o->repeats;
    cfg.seed = common.seed;
    cfg.storage = parse_name<sync::storage_mode>(o->storage, "--storage");
    // The CPU reference always runs (the speedups are against it); --backend cuda without a device
    // throws here, never a run of CPU rows only.
    cfg.cuda = false;
    for (auto b : common.resolved_backends()) cfg.cuda |= b == backend::cuda;
    const auto rows = sync::run_bench(cfg);
    common.table() << sync::format_table(rows) << std::flush;
    // Without CUDA rows, --batches (GPU frames per call) measured nothing: say so.
    if (!cfg.cuda && o->batches_option->count())
      std::cerr << "gpufec: no GPU rows were run (--backend " << common.backend
                << (cuda_device_count() == 0 ? ", and no CUDA device here" : "")
                << "): --batches applies to them only\n";
    common.write_json(json, sync::to_json(rows, cfg), started, cfg.cuda);
    return 0;
  };
}

}  // namespace

action sync_bench_command(CLI::App& cmd, const bench_options& common) {
  return bench_sync(cmd, common);
}

}  // namespace gpufec::cli
