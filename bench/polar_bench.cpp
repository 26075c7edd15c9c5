// Benchmark program for the polar decoders (issue 24): information Mb/s of the SC reference, the
// fast SC, and BP with every update rule at 10 and 35 iterations (fixed, and with G-matrix early
// stopping), on one thread and on all, for N from 256 to 32768 (K = N/2; 5G construction up to
// 1024, GA at 2.5 dB beyond). The harness is bench/polar/bench.hpp, shared with `gpufec bench
// polar`. Inputs: BPSK/AWGN LLRs at a stated Eb/N0 (default 2.5 dB).
//   polar_bench [--quick] [--ebn0 DB] [--json FILE]
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "gpufec/common/files.hpp"
#include "polar/bench.hpp"

int main(int argc, char** argv) {
  using namespace gpufec::polar;
  bool quick = false;
  double ebn0 = 2.5;
  std::string json;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[a], "--ebn0") && a + 1 < argc) {
      char* end = nullptr;
      ebn0 = std::strtod(argv[++a], &end);
      if (*end != '\0' || !std::isfinite(ebn0)) {
        std::cerr << "polar_bench: --ebn0 '" << argv[a] << "' is not a finite number\n";
        return 2;
      }
    } else if (!std::strcmp(argv[a], "--json") && a + 1 < argc) {
      json = argv[++a];
    } else {
      std::cerr << "usage: polar_bench [--quick] [--ebn0 DB] [--json FILE]\n";
      return 2;
    }
  }
  try {
    gpufec::output_file out;  // opened before any work: a bad path fails at once
    if (!json.empty()) out = gpufec::output_file(json);
    const bench_config cfg = program_config(quick, ebn0);
    std::cout << format_header(cfg) << std::flush;
    const auto rows =
        run_bench(cfg, [](const bench_row& r) { std::cout << format_row(r) << std::flush; });
    if (out) {
      out.write(to_json(rows, cfg).dump(2) + "\n");
      out.commit();
    }
  } catch (const std::exception& e) {
    std::cerr << "polar_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
