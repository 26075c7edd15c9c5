// The polar decoder benchmark behind `gpufec bench polar` and bench/polar_bench: information Mb/s
// of the SC reference, the fast SC, BP with the chosen update rules and iteration counts (fixed,
// and with G-matrix early stopping) and the BP reference, each on one thread and on all, on the
// same BPSK/AWGN frames in the same run. The fast paths decode `frames` frames per timed call;
// the references, far slower, the first frames / 8 (SC) or / 32 (BP) of the same frames. Every
// figure is the median of `repeats` timed decode calls after one warm-up call, decoder only (the
// plan is made before; no allocation in the calls). FER is against the frames' information bits.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/polar/decoder.hpp"

namespace gpufec::polar {

struct bench_bp {
  update_rule rule = update_rule::min_sum;
  float scale = 0.9375f;  // scaled_min_sum
  int iterations = 10;
};

struct bench_config {
  std::vector<std::uint32_t> lengths{1024};
  std::optional<std::uint32_t> K;  // information bits; default N / 2
  std::string construct;           // empty: 5g up to N = 1024, ga:2.5 beyond
  double ebn0_db = 2.5;            // of the frames' BPSK/AWGN LLRs, at the rate K/N
  std::vector<update_rule> sc_fast{update_rule::min_sum, update_rule::sum_product};
  std::vector<bench_bp> bp;                   // each timed with early stopping off, then on
  std::vector<bench_bp> bp_reference;         // the scalar BP reference, fixed iterations
  bp_schedule schedule = bp_schedule::lr_rl;  // of every BP row
  int threads = 0;                            // "all threads": 0 = omp_get_max_threads()
  int repeats = 5;
  std::size_t frames = 0;  // per fast call; 0: 2^22 / N (about 4 Mbit at rate 1/2), at least 64
  std::uint64_t seed = 1;  // of the information bits and the noise (Philox streams, frame f)
  // Also time every BP row on the CUDA plan's device path (decoder only, CUDA events, LLRs
  // already in device memory) on at least 2^25 / N frames, beside the CPU rows.
  bool cuda = false;
  // The CUDA rows' variants: each BP row once per precision, kernel and refill policy that applies
  // (fp16 and the register kernel: min-sum rules, N <= 2048; the refill policy: early stopping).
  std::vector<message_precision> cuda_precisions{message_precision::fp32, message_precision::fp16};
  std::vector<cuda_kernel> cuda_kernels{cuda_kernel::automatic};
  std::vector<refill_policy> cuda_refills{refill_policy::replace};
};

struct bench_row {
  std::uint32_t N = 0, K = 0;
  std::string construction;
  std::string decoder;  // "SC fast (minsum)", "BP scaled 10 early", ...
  std::string path;     // "reference" or "fast"
  int threads = 0;
  std::size_t frames = 0;
  double seconds = 0;    // median of the timed calls
  double info_mbps = 0;  // frames * K / seconds / 1e6
  double fer = 0;
  double mean_iterations = 0;  // BP: per frame; SC: 0
  double cpu_ratio = 0;        // CUDA rows: info_mbps over the same BP row's, fast, all threads
  std::string kernel;          // CUDA rows: the plan's layout and launch shape
};

// The configuration the program runs by default (quick: N = 1024 only, fewer BP variants).
bench_config program_config(bool quick, double ebn0_db);

// Runs every row; `on_row` (optional) sees each as it is measured.
std::vector<bench_row> run_bench(const bench_config& config,
                                 const std::function<void(const bench_row&)>& on_row = {});
// The table: a header (what was run, on which SIMD target) and one line per row.
std::string format_header(const bench_config& config);
std::string format_row(const bench_row& row);
nlohmann::json to_json(const std::vector<bench_row>& rows, const bench_config& config);

}  // namespace gpufec::polar
