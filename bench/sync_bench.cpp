// Benchmark program for the sync MAP decoder: the paper's sweeps (Fig. 15/17: q = 32
// over N; N = 210 over q; p in {1e-3, 1e-2}) plus the targets at q=32, n=10, N=210, with the CPU
// reference on the same frames in the same run. Prints a table; --json FILE writes every figure.
//   sync_bench [--quick] [--json FILE]
#include <cmath>
#include <iostream>

#include "program.hpp"
#include "sync/bench.hpp"

int main(int argc, char** argv) {
  using namespace gpufec::sync;
  return gpufec::bench::run_program(
      argc, argv, "sync_bench", "[--quick] [--json FILE]", gpufec::bench::no_own_options,
      [](const gpufec::bench::program_options& o) {
        bench_config cfg;
        for (double p : {1e-3, 1e-2}) cfg.points.push_back({32, 10, 210, p});  // the targets
        if (!o.quick) {
          for (int N : {10, 50, 100, 500, 1000})
            for (double p : {1e-3, 1e-2}) cfg.points.push_back({32, 10, N, p});  // Fig. 15: over N
          for (int q : {2, 8, 128, 512})
            for (double p : {1e-3, 1e-2}) {
              const int n = 2 * static_cast<int>(std::log2(q));  // half-rate codewords (n, q)
              cfg.points.push_back({q, n, 210, p});              // Fig. 17: over q
            }
        }
        cfg.gpu_batches = {1, 100, 1000};
        cfg.cpu_frames = 3;
        const auto rows = run_bench(cfg);
        std::cout << format_table(rows);
        return to_json(rows, cfg);
      });
}
