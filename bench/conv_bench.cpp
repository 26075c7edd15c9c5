// Benchmark program for the conv decoders (issue 22): the harness of bench/conv/bench.hpp, which
// `gpufec bench conv` runs too, over K in {5, 7, 9} and rates 1/2 and 3/4, one thread and all
// threads, with VOLK's K = 7 kernel as a peer when built with it. Prints a table; --json FILE
// writes every figure.
//   conv_bench [--quick] [--frame-bits N] [--json FILE]
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "conv/bench.hpp"
#include "gpufec/common/files.hpp"

int main(int argc, char** argv) {
  using namespace gpufec::conv;
  bench_config cfg;
  bool quick = false;
  std::string json_path;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[a], "--json") && a + 1 < argc) {
      json_path = argv[++a];
    } else if (!std::strcmp(argv[a], "--frame-bits") && a + 1 < argc) {
      char* end = nullptr;
      cfg.frame_bits = std::strtoul(argv[++a], &end, 10);
      if (*end != '\0' || cfg.frame_bits < 8) {
        std::cerr << "conv_bench: --frame-bits '" << argv[a] << "' is not an integer >= 8\n";
        return 2;
      }
    } else {
      std::cerr << "usage: conv_bench [--quick] [--frame-bits N] [--json FILE]\n";
      return 2;
    }
  }
  try {
    gpufec::output_file json;  // opened before any work: a bad path fails at once
    if (!json_path.empty()) json = gpufec::output_file(json_path);
    if (quick) {
      cfg.repeats = 3;
      cfg.frames = 8;
      cfg.reference_frames = 2;
    }
    const bench_result result = run_bench(cfg);
    std::cout << format_table(result, cfg);
    if (json) {
      json.write(to_json(result, cfg).dump(2) + "\n");
      json.commit();
    }
  } catch (const std::exception& e) {
    std::cerr << "conv_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
