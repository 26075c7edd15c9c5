// `bench polar`: the SC and BP decoders' references and fast paths on the same frames, one thread
// and all threads, information Mb/s (the harness: bench/polar/bench.hpp).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "family_registry.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/provenance.hpp"
#include "polar/bench.hpp"
#include "polar/code_options.hpp"

namespace gpufec::cli {
namespace {

struct polar_bench_options {
  std::vector<std::uint32_t> lengths{1024};
  std::optional<std::uint32_t> K;
  std::string construct;
  double ebn0 = 2.5;
  std::vector<std::string> sc_updates{"minsum", "sp"};
  std::vector<std::string> bp_updates{"minsum", "scaled", "lr"};
  std::vector<int> iterations{10};
  std::size_t frames = 0;
  int repeats = 5;
  std::vector<std::string> precisions{"fp32", "fp16"};
  std::vector<std::string> kernels{"auto"};
  std::vector<std::string> refills{"replace"};
  std::string schedule = "lr-rl";
};

action bench_polar(CLI::App& cmd, const bench_options& common) {
  auto o = std::make_shared<polar_bench_options>();
  cmd.add_option("--N", o->lengths, "code lengths, powers of two (comma list)")
      ->delimiter(',')
      ->check(power_of_two_length())
      ->capture_default_str();
  cmd.add_option("--K", o->K, "information bits (default N/2 for each N)")
      ->check(unsigned_integer() & at_least(1));
  cmd.add_option("--construct", o->construct,
                 "frozen set: 5g, ga:SNR, bhatt:SNR or a file (default 5g up to N = 1024, ga:2.5 "
                 "beyond)")
      ->check(construction_validator());
  cmd.add_option("--ebn0", o->ebn0, "Eb/N0 in dB of the frames' LLRs")
      ->check(snr_db())
      ->capture_default_str();
  cmd.add_option("--sc-update", o->sc_updates, "fast SC rows: sp and/or minsum (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"sp", "minsum"}))
      ->capture_default_str();
  cmd.add_option("--bp-update", o->bp_updates,
                 "BP rows: lr, sp, minsum, scaled[:X] (comma list); each also as the BP "
                 "reference at the first --iters")
      ->delimiter(',')
      ->check(bp_update_validator())
      ->capture_default_str();
  cmd.add_option("--iters", o->iterations, "BP iteration counts (comma list)")
      ->delimiter(',')
      ->check(in_range(1, 10000))
      ->capture_default_str();
  cmd.add_option("--frames", o->frames,
                 "frames per fast SC call (BP: a quarter, an eighth beyond 10 iterations; "
                 "references: an eighth (SC), a 32nd (BP)); 0: 2^22 / N, at least 64")
      ->check(unsigned_integer() & in_range(0, 1e6))
      ->capture_default_str();
  cmd.add_option("--repeats", o->repeats, "timed calls after a warm-up (median reported)")
      ->check(in_range(1, 1000))
      ->capture_default_str();
  cmd.add_option("--precision", o->precisions,
                 "CUDA rows: BP message precisions, fp32 and/or fp16 (fp16: min-sum rules, "
                 "N <= 2048; comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember(names_of<polar::message_precision>()))
      ->capture_default_str();
  cmd.add_option("--cuda-kernel", o->kernels,
                 "CUDA rows: auto, registers (min-sum rules, N <= 2048) and/or memory (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember(names_of<polar::cuda_kernel>()))
      ->capture_default_str();
  cmd.add_option("--schedule", o->schedule, "every BP row's schedule: lr-rl or rl-lr")
      ->check(CLI::IsMember(names_of<polar::bp_schedule>()))
      ->capture_default_str();
  cmd.add_option("--refill", o->refills,
                 "CUDA rows with early stopping: replace and/or block (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember(names_of<polar::refill_policy>()))
      ->capture_default_str();
  return [o, &common] {
    // The CPU rows always run (the CUDA rows' ratio); cuda (or all, with a device) adds the
    // CUDA plan's device path to every BP row. cuda without a device: exit 1.
    const auto backends = common.resolved_backends();
    const bool cuda =
        std::find(backends.begin(), backends.end(), gpufec::backend::cuda) != backends.end();
    for (const std::uint32_t N : o->lengths) {
      if (o->K && *o->K > N) throw usage_error(cat("--K ", *o->K, " exceeds --N ", N));
      if (o->construct == "5g" && N > 1024)
        throw usage_error(cat("--construct 5g is defined for N <= 1024 (--N ", N, ")"));
    }
    const double started = seconds_since_epoch();
    output_file json;  // opened before any work: a bad path fails at once
    if (!common.json_path.empty()) json = output_file(common.json_path);
    polar::bench_config cfg;
    cfg.lengths = o->lengths;
    cfg.K = o->K;
    cfg.construct = o->construct;
    cfg.ebn0_db = o->ebn0;
    cfg.sc_fast.clear();
    for (const auto& name : o->sc_updates)
      cfg.sc_fast.push_back(parse_name<polar::update_rule>(name, "--sc-update"));
    for (const auto& text : o->bp_updates) {
      const auto [rule, scale] = parse_bp_update(text);
      for (const int iterations : o->iterations) cfg.bp.push_back({rule, scale, iterations});
      cfg.bp_reference.push_back({rule, scale, o->iterations.front()});
    }
    cfg.threads = common.threads;
    cfg.schedule = parse_name<polar::bp_schedule>(o->schedule, "--schedule");
    cfg.repeats = o->repeats;
    cfg.frames = o->frames;
    cfg.seed = common.seed;
    cfg.cuda = cuda;
    cfg.cuda_precisions.clear();
    for (const auto& name : o->precisions)
      cfg.cuda_precisions.push_back(parse_name<polar::message_precision>(name, "--precision"));
    cfg.cuda_kernels.clear();
    for (const auto& name : o->kernels)
      cfg.cuda_kernels.push_back(parse_name<polar::cuda_kernel>(name, "--cuda-kernel"));
    cfg.cuda_refills.clear();
    for (const auto& name : o->refills)
      cfg.cuda_refills.push_back(parse_name<polar::refill_policy>(name, "--refill"));
    std::ostream& table = common.table();
    table << polar::format_header(cfg) << std::flush;
    const auto rows = polar::run_bench(
        cfg, [&table](const polar::bench_row& r) { table << polar::format_row(r) << std::flush; });
    common.write_json(json, polar::to_json(rows, cfg), started, cuda);
    return 0;
  };
}

}  // namespace

action polar_bench_command(CLI::App& cmd, const bench_options& common) {
  return bench_polar(cmd, common);
}

}  // namespace gpufec::cli
