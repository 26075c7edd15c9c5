// Benchmark program for the polar decoders: information Mb/s of the SC reference, the
// fast SC, and BP with every update rule at 10 and 35 iterations (fixed, and with G-matrix early
// stopping), on one thread and on all, for N from 256 to 32768 (K = N/2; 5G construction up to
// 1024, GA at 2.5 dB beyond). The harness is bench/polar/bench.hpp, shared with `gpufec bench
// polar`. Inputs: BPSK/AWGN LLRs at a stated Eb/N0 (default 2.5 dB).
//   polar_bench [--quick] [--ebn0 DB] [--json FILE]
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>

#include "polar/bench.hpp"
#include "program.hpp"

int main(int argc, char** argv) {
  using namespace gpufec::polar;
  double ebn0 = 2.5;
  const auto own = [&](std::string_view flag, std::string_view value) {
    if (flag != "--ebn0") return false;
    char* end = nullptr;
    const std::string text(value);
    ebn0 = std::strtod(text.c_str(), &end);
    if (*end != '\0' || !std::isfinite(ebn0))
      throw gpufec::bench::bad_option("--ebn0 '" + text + "' is not a finite number");
    return true;
  };
  return gpufec::bench::run_program(
      argc, argv, "polar_bench", "[--quick] [--ebn0 DB] [--json FILE]", own,
      [&](const gpufec::bench::program_options& o) {
        const bench_config cfg = program_config(o.quick, ebn0);
        std::cout << format_header(cfg) << std::flush;
        const auto rows =
            run_bench(cfg, [](const bench_row& r) { std::cout << format_row(r) << std::flush; });
        return to_json(rows, cfg);
      });
}
