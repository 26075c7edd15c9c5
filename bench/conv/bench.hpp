// The conv decoder benchmark behind `gpufec bench conv` and bench/conv_bench: decoded Mb/s of the
// reference and the fast decoder on the same frames in the same run, on one thread and on all
// threads, per constraint length and rate; for K = 7, rate 1/2 also the fast decoder's add-compare-
// select alone and, when gpufec was built with VOLK (Debian libvolk2-dev), VOLK's
// volk_8u_x4_conv_k7_r2_8u as a peer (its ratio is the headline CPU figure).
// With `cuda`, also the CUDA tiled decoder (the plan's default tile) per code and rate, beside
// the CPU rows of the same run: on a host batch of int8 LLRs end to end (copies included), and on
// int8 LLRs already in device memory (bench/conv/jobs.hpp says how each is timed); each CUDA row
// gives its ratio to the fast decoder on int8 LLRs and all threads.
//
// Method: zero-tail frames of frame_bits information bits over BPSK/AWGN at ebn0_db (Philox noise
// from `seed`); each decode call is timed whole (input conversion, ACS, traceback) after one
// warm-up call, and the median of the repetitions is reported. The decoders of one code and rate
// are timed round-robin (one call each per round), so a clock that drifts during the run shifts
// them alike and their ratios hold. Mb/s counts information bits. Each row's bit error rate is a
// sanity check (decoders that see the same frames agree closely).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/conv/code.hpp"

namespace gpufec::conv {

// The code a benchmark runs for constraint length K (3..9): the usual maximum-free-distance rate
// 1/2 codes, (7,5), (17,15), (23,35), (53,75), (171,133), (247,371), (561,753).
conv_code bench_code(int K);

struct bench_config {
  std::vector<int> K{5, 7, 9};
  std::vector<std::string> rates{"1/2", "3/4"};  // puncture_pattern::parse texts, beta = 2
  std::size_t frame_bits = 8192;
  std::size_t frames = 32;           // frames per call of the fast decoder
  std::size_t reference_frames = 4;  // per call of the reference, per thread
  int repeats = 9;                   // timed rounds after a warm-up
  int threads = 0;                   // "all threads": 0 = omp_get_max_threads()
  double ebn0_db = 4.0;
  std::uint64_t seed = 2024;
  bool cuda = false;  // add the CUDA rows (backend_unavailable without a device)
};

struct bench_row {
  int K = 0;
  std::string backend = "cpu";  // "cpu" or "cuda"
  std::string code, rate, decoder, input;
  int threads = 1;           // CPU threads; 0 on CUDA rows
  std::string tile, kernel;  // the tiled decoder's tile shape and the CUDA launch shape
  std::size_t frames = 0, bits_per_call = 0;
  double seconds = 0, mbps = 0;
  double ber = -1;    // -1: the row makes no decisions (ACS only)
  double vs_cpu = 0;  // CUDA rows: Mb/s over the fast decoder's (int8, all threads); 0 for CPU rows
};

struct bench_result {
  std::string cpu, simd_target;
  int threads = 1;  // the "all threads" count
  bool volk = false;
  std::string device;  // the GPU of the CUDA rows; empty without them
  std::vector<bench_row> rows;
};

// Throws invalid_argument for a K without a bench code or a rate that does not parse.
bench_result run_bench(const bench_config& config);
std::string format_table(const bench_result& result, const bench_config& config);
nlohmann::json to_json(const bench_result& result, const bench_config& config);

}  // namespace gpufec::conv
