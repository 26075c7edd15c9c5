// What the conv benchmark's files share (bench/conv/bench.cpp, bench/conv/cuda_jobs.cpp): a timed
// job per row, and the CUDA rows of one code and rate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "conv/bench.hpp"
#include "gpufec/conv/puncture.hpp"

namespace gpufec::conv::bench_detail {

// One row's measurement: `call` decodes the row's frames once, timed by the wall clock around it;
// or `timed` does and returns its own seconds (CUDA events around the decoder alone). `ber` reads
// the result afterwards (empty when the row makes no decisions). `state` keeps the plan and
// buffers alive.
struct job {
  bench_row r;
  std::function<void()> call;
  std::function<double()> timed;
  std::function<double()> ber;
  std::shared_ptr<void> state;
};

// The CUDA tiled decoder's rows for one code and rate (zero tail, frames of config.frame_bits,
// the plan's default tile), each warmed up for 200 ms at least:
// - "host": a CUDA plan on a host batch of int8 LLRs (the workload's `frames` frames `q` and
//   their bits `info`, repeated to fill the batch), timed end to end: the copy in, the kernel,
//   the copy back;
// - "page-locked host": the same from and to page-locked memory (gpufec/common/page_locked.hpp),
//   which the plan copies straight over the link instead of staging it by host copies;
// - "device": int8 LLRs made on the GPU by the CUDA simulation chain (conv::sim_family, BPSK/AWGN
//   at config.ebn0_db, seed config.seed), decoded in device memory by the plan's device path and
//   timed by the chain's CUDA events around the decoder alone.
// All take the frames of one CUDA chain step (about 2^24 LLRs). `device` receives the GPU name.
// Throws backend_unavailable without CUDA or a device.
std::vector<job> cuda_jobs(const conv_code& code, const puncture_pattern& pattern,
                           const bench_config& config, std::span<const std::int8_t> q,
                           std::span<const std::uint8_t> info, std::size_t frames,
                           std::string& device);

}  // namespace gpufec::conv::bench_detail
