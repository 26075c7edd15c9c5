// The simulation-chain benchmark behind `gpufec bench sim`: what researchers run, measured whole.
// For each workload (a family, a code, a decoder input and a point) and backend it runs the
// simulator's own chain (sim::run_point, --max-fe 0, a time budget per run) and reports the
// decoder-only rate (information bits over the seconds inside the decoder's calls), the whole
// chain's rate (over the seconds inside the chain: source, encoder, channel, decoder, scoring)
// and their ratio: how much of the decoder's speed reaches the user. Every figure is the median
// of `repeats` runs after a short warm-up run. Every run simulates the point from its frame 0 (the
// same seed), for `seconds` of wall clock: the runs differ in how far they get, not in their
// frames.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/common/backend.hpp"

namespace gpufec::sim_bench {

// The workloads, by name: uncoded, conv-int8, conv-float, polar-sc, polar-bp, sync.
std::vector<std::string> workload_names();

struct bench_config {
  std::vector<std::string> workloads = workload_names();
  std::vector<backend> backends{backend::cpu};  // cpu and/or cuda
  int threads = 0;                              // CPU chains; 0: OpenMP's default
  double seconds = 2.0;                         // per timed run
  int repeats = 3;                              // timed runs (median reported)
  std::uint64_t seed = 1;                       // of the frames and of random codebooks
};

struct bench_row {
  std::string workload;            // its name
  std::string description;         // the code, decoder input and point in words
  std::string backend;             // "cpu" or "cuda"
  std::uint64_t frames = 0;        // timed, all runs
  std::uint64_t frame_errors = 0;  // of those
  double info_bits_per_frame = 0;
  double decoder_mbps = 0;  // median over the runs
  double chain_mbps = 0;    // median over the runs
  double ratio = 0;         // chain_mbps / decoder_mbps
  std::string skipped;      // why this workload does not run on this backend; empty when it ran
};

// Runs every workload on every backend it runs on (a row saying why for the others); `on_row`
// (optional) sees each as it is measured.
std::vector<bench_row> run_bench(const bench_config& config,
                                 const std::function<void(const bench_row&)>& on_row = {});
std::string format_header(const bench_config& config);
std::string format_row(const bench_row& row);
nlohmann::json to_json(const std::vector<bench_row>& rows, const bench_config& config);

}  // namespace gpufec::sim_bench
