// `bench sim`: the simulation chain of every family against its decoder, per backend, in one run
// (the harness: bench/sim/bench.hpp).
#include "sim_bench_command.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gpufec/common/files.hpp"
#include "gpufec/common/provenance.hpp"
#include "sim/bench.hpp"

namespace gpufec::cli {
namespace {

struct sim_bench_options {
  std::vector<std::string> workloads = sim_bench::workload_names();
  double seconds = 2.0;
  int repeats = 3;
};

}  // namespace

action sim_bench_command(CLI::App& cmd, const bench_options& common) {
  auto o = std::make_shared<sim_bench_options>();
  cmd.add_option("--workloads", o->workloads, "which workloads (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember(sim_bench::workload_names()))
      ->capture_default_str();
  cmd.add_option("--seconds", o->seconds, "wall-clock seconds of each timed run")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
  cmd.add_option("--repeats", o->repeats, "timed runs after a warm-up (median reported)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  return [o, &common] {
    std::vector<gpufec::backend> backends;
    for (const gpufec::backend b : common.resolved_backends()) {
      const gpufec::backend where = resolve_backend(b);
      if (std::find(backends.begin(), backends.end(), where) == backends.end())
        backends.push_back(where);
    }
    const double started = seconds_since_epoch();
    output_file json;  // opened before any work: a bad path fails at once
    if (!common.json_path.empty()) json = output_file(common.json_path);
    sim_bench::bench_config cfg;
    cfg.workloads = o->workloads;
    cfg.backends = backends;
    cfg.threads = common.threads;
    cfg.seconds = o->seconds;
    cfg.repeats = o->repeats;
    cfg.seed = common.seed;
    std::ostream& table = common.table();
    table << sim_bench::format_header(cfg) << std::flush;
    const auto rows = sim_bench::run_bench(cfg, [&table](const sim_bench::bench_row& r) {
      table << sim_bench::format_row(r) << std::flush;
    });
    const bool gpu =
        std::find(backends.begin(), backends.end(), gpufec::backend::cuda) != backends.end();
    common.write_json(json, sim_bench::to_json(rows, cfg), started, gpu);
    return 0;
  };
}

}  // namespace gpufec::cli
