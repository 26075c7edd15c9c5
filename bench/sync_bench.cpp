// Benchmark program for the sync MAP decoder (issue 4): the paper's sweeps (Fig. 15/17: q = 32
// over N; N = 210 over q; p in {1e-3, 1e-2}) plus the targets at q=32, n=10, N=210, with the CPU
// reference on the same frames in the same run. Prints a table; --json FILE writes every figure.
//   sync_bench [--quick] [--json FILE]
#include <cmath>
#include <cstring>
#include <iostream>

#include "gpufec/common/files.hpp"
#include "sync/bench.hpp"

int main(int argc, char** argv) {
  using namespace gpufec::sync;
  bool quick = false;
  std::string json;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--quick"))
      quick = true;
    else if (!std::strcmp(argv[a], "--json") && a + 1 < argc)
      json = argv[++a];
    else {
      std::cerr << "usage: sync_bench [--quick] [--json FILE]\n";
      return 2;
    }
  }
  try {
    // Opened before any work: a bad path fails at once, never half-written.
    gpufec::output_file out;
    if (!json.empty()) out = gpufec::output_file(json);
    bench_config cfg;
    for (double p : {1e-3, 1e-2}) cfg.points.push_back({32, 10, 210, p});  // the targets
    if (!quick) {
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
    if (out) {
      out.write(to_json(rows, cfg).dump(2) + "\n");
      out.commit();
    }
  } catch (const std::exception& e) {
    std::cerr << "sync_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
