// The tuning constants of the CUDA polar BP decoder, in one place: the plan (cuda/bp_plan.cu)
// reads them to choose the kernel, its shape, the host chunks and the stop polling; the engine
// (cuda/bp_engine.cu) executes what the plan chose. Plain C++: no CUDA types. Figures are from an
// H200 (132 SMs); bench/RESULTS.md keeps the runs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpufec::polar::policy {

// The register kernel (bp_register_kernel.cuh) holds N / 8 threads per codeword with 8 nodes of
// every 3-stage group in registers: compiled for m = 3 .. 11, so N in [8, 2048]. It runs the
// min-sum rules (fp32 or fp16) and is the automatic choice there (N = 1024, 10 iterations, 3 dB:
// 18.8 Gb/s fp16, 10.25 fp32; e239a4e, bench/RESULTS.md).
inline constexpr std::uint32_t register_min_N = 8, register_max_N = 2048;

// Host batches move in chunks of about this many LLR bytes, and at least chunk_waves waves of
// resident codewords, so one chunk's copies hide behind the other's kernel.
inline constexpr std::size_t chunk_llr_bytes = std::size_t{32} << 20;
inline constexpr std::size_t chunk_waves = 8;

// Beyond this length an iteration of the memory kernel takes long enough (>= 24 stages of N / 2
// butterflies) for one thread's poll of the stop counter to cost nothing measurable; a codeword of
// N = 2^20 at 10^4 iterations takes 101 s, which a stop then ends in 0.105 s.
inline constexpr std::uint32_t poll_stop_beyond_N = 2048;

// The memory kernel's blocks hold at least a warp where N allows (N / 2 threads per codeword at
// most).
inline constexpr unsigned memory_least_block = 32;

}  // namespace gpufec::polar::policy
