// `bench conv`: the reference and the fast decoder on the same frames, one thread and all threads,
// with VOLK's K = 7 kernel as a peer when built with it, and the CUDA tiled decoder on host and
// device batches beside them (--backend cuda, or all with a device) (bench/conv/bench.hpp).
#include <iostream>
#include <memory>

#include "conv/bench.hpp"
#include "conv/code_options.hpp"
#include "family_registry.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/provenance.hpp"
#include "gpufec/conv/puncture.hpp"

namespace gpufec::cli {
namespace {

struct conv_bench_options {
  conv::bench_config config;
};

action bench_conv(CLI::App& cmd, const bench_options& common) {
  auto o = std::make_shared<conv_bench_options>();
  conv::bench_config& c = o->config;
  cmd.add_option("--K", c.K,
                 "constraint lengths, comma separated (3..9; the usual codes: 5 (23,35), "
                 "7 (171,133), 9 (561,753), ...)")
      ->delimiter(',')
      ->check(in_range(conv::conv_code::min_K, conv::conv_code::max_K))
      ->capture_default_str();
  cmd.add_option("--rates", c.rates,
                 "puncturing of the rate 1/2 codes, separated by spaces (a pattern's rows take the "
                 "comma): 1/2, 2/3, 3/4, 5/6, 7/8 or rows such as 101,110")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              (void)conv::puncture_pattern::parse(text, 2);
            } catch (const gpufec::error& e) {
              return e.what();
            }
            return {};
          },
          "", "rate"))
      ->capture_default_str();
  cmd.add_option("--frame-bits", c.frame_bits, "information bits per frame (zero tail)")
      ->check(unsigned_integer() & in_range(8, 1 << 24))
      ->capture_default_str();
  cmd.add_option("--frames", c.frames, "frames per call of the fast decoder")
      ->check(unsigned_integer() & in_range(2, 1 << 16))
      ->capture_default_str();
  cmd.add_option("--reference-frames", c.reference_frames,
                 "frames per call of the reference decoder, per thread")
      ->check(unsigned_integer() & in_range(1, 1 << 16))
      ->capture_default_str();
  cmd.add_option("--repeats", c.repeats, "timed calls per decoder after a warm-up (median)")
      ->check(in_range(1, 1000))
      ->capture_default_str();
  cmd.add_option("--ebn0", c.ebn0_db, "Eb/N0 of the frames in dB")
      ->check(snr_db())
      ->capture_default_str();
  return [o, &common] {
    // The CPU rows always run (the CUDA rows' ratios are against them); cuda, and all or auto
    // when a device exists, add the CUDA rows; --backend cuda without a device throws here (exit
    // 1), never a run of CPU rows only.
    bool cuda = false;
    for (const backend b : common.resolved_backends()) cuda |= b == backend::cuda;
    const double started = seconds_since_epoch();
    output_file json;  // opened before any work: a bad path fails at once
    if (!common.json_path.empty()) json = output_file(common.json_path);
    conv::bench_config cfg = o->config;
    cfg.seed = common.seed;
    cfg.threads = common.threads;
    cfg.cuda = cuda;
    const conv::bench_result result = conv::run_bench(cfg);
    common.table() << conv::format_table(result, cfg) << std::flush;
    common.write_json(json, conv::to_json(result, cfg), started, cuda);
    return 0;
  };
}

}  // namespace

action conv_bench_command(CLI::App& cmd, const bench_options& common) {
  return bench_conv(cmd, common);
}

}  // namespace gpufec::cli
