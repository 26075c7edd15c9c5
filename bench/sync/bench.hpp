// The sync decoder benchmark behind `gpufec bench sync` and bench/sync_bench: the same random
// frames decoded by the CPU reference (one thread: "one CPU core") and by the CUDA decoder, timed
// after a warm-up, medians reported, with the CUDA time split by phase (gamma, alpha+beta, L).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/common/backend.hpp"
#include "gpufec/sync/decoder.hpp"

namespace gpufec::sync {

struct bench_point {
  int q = 32, n = 10, N = 210;
  double p = 1e-2;  // Pi = Pd = p, Ps = 0
};

struct bench_config {
  std::vector<bench_point> points;
  std::vector<std::size_t> gpu_batches{1, 1000};  // frames per decode call on the GPU
  std::size_t cpu_frames = 4;                     // frames the CPU reference decodes (median of)
  int cpu_threads = 1;
  int repeats = 5;  // timed repetitions after one warm-up
  storage_mode storage = storage_mode::automatic;
  std::uint64_t seed = 1;
  bool cuda = true;  // also run CUDA when a device exists
  // Outputs of every decode: decisions and APPs always; the drift posterior only when set (it is
  // more data than the APPs and most users do not read it).
  bool drift_posterior = false;
  std::size_t fold_min_frames = 0;            // decoder_options::fold_min_frames of the CUDA plans
  fold_kernel fold = fold_kernel::automatic;  // decoder_options::fold of the CUDA plans
};

struct bench_row {
  bench_point point;
  std::string backend;  // "cpu (1 thread)" or "cuda"
  std::size_t batch = 0;
  int M_tau = 0, M_n = 0;
  std::string storage;
  double seconds_per_frame = 0;  // median over repeats
  double frames_per_s = 0;
  double info_mbps = 0;                             // N log2(q) bits per frame
  double speedup = 0;                               // CPU seconds per frame / this row's
  double gamma = 0, fb = 0, app = 0, transfer = 0;  // shares of the summed CUDA phase times
  std::size_t symbol_errors = 0;                    // sanity: decisions vs messages
  bool matches_cpu = true;  // CUDA decisions equal the CPU's on the frames both decoded
  std::vector<std::string> kernel_shapes;  // CUDA: the plan's kernels, blocks and grids
};

std::vector<bench_row> run_bench(const bench_config& config);
std::string format_table(const std::vector<bench_row>& rows);
nlohmann::json to_json(const std::vector<bench_row>& rows, const bench_config& config);

}  // namespace gpufec::sync
