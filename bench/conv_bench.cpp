// Benchmark program for the conv decoders: the harness of bench/conv/bench.hpp, which
// `gpufec bench conv` runs too, over K in {5, 7, 9} and rates 1/2 and 3/4, one thread and all
// threads, with VOLK's K = 7 kernel as a peer when built with it, and the CUDA tiled decoder's rows
// when a CUDA device exists. Prints a table; --json FILE writes every figure.
//   conv_bench [--quick] [--frame-bits N] [--json FILE]
#include <cstdlib>
#include <iostream>
#include <string>

#include "conv/bench.hpp"
#include "gpufec/common/device.hpp"
#include "program.hpp"

int main(int argc, char** argv) {
  using namespace gpufec::conv;
  bench_config cfg;
  const auto own = [&](std::string_view flag, std::string_view value) {
    if (flag != "--frame-bits") return false;
    char* end = nullptr;
    const std::string text(value);
    cfg.frame_bits = std::strtoul(text.c_str(), &end, 10);
    if (*end != '\0' || cfg.frame_bits < 8)
      throw gpufec::bench::bad_option("--frame-bits '" + text + "' is not an integer >= 8");
    return true;
  };
  return gpufec::bench::run_program(argc, argv, "conv_bench",
                                    "[--quick] [--frame-bits N] [--json FILE]", own,
                                    [&](const gpufec::bench::program_options& o) {
                                      if (o.quick) {
                                        cfg.repeats = 3;
                                        cfg.frames = 8;
                                        cfg.reference_frames = 2;
                                      }
                                      cfg.cuda = gpufec::cuda_device_count() > 0;
                                      const bench_result result = run_bench(cfg);
                                      std::cout << format_table(result, cfg);
                                      return to_json(result, cfg);
                                    });
}
