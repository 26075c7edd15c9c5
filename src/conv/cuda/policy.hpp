// The tuning constants of the CUDA conv decoder, each with the measurement behind it, in one place:
// the plan (cuda/tiled_plan.cu, register_shape.cu) reads them to choose kernels, shapes, chunks and
// windows; the engine (cuda/tiled_engine.cu) executes what the plan chose. Plain C++: no CUDA
// types. Figures are from an H200 (132 SMs), K = 7 (171,133) rate 1/2, unless a comment says
// otherwise; bench/RESULTS.md keeps the runs.
#pragma once

#include <cstddef>

namespace gpufec::conv::policy {

// --- Kernels ----------------------------------------------------------------------------------
// The shared-memory kernel keeps a whole tile's survivors, so it runs short tiles of this many
// stages (and traceback depths of the code's default both sides): long tiles leave it few warps
// (K = 9 (753,561): 1.44 Gb/s at f = 256 against 0.63 on the register kernel's long tiles).
inline constexpr std::size_t shared_kernel_f = 256;
// It runs a warp per tile; blocks of 1, 2, 4, ... up to this many warps are scored by the
// occupancy API, most resident warps first.
inline constexpr int shared_kernel_max_warps = 32;
// The register kernel's blocks: whole warps up to this many threads (register_residency).
inline constexpr int register_max_threads = 512;

// --- Launches ---------------------------------------------------------------------------------
// A launch takes at most this many waves of resident blocks; a grid-stride loop over the tiles
// takes the rest (fewer, longer-lived blocks for batches of millions of tiles).
inline constexpr long long launch_waves = 8;
// Waves of resident tiles a device batch should hold (the plan's preferred batch): one wave (64
// frames of 2^20 bits) 140.5 Gb/s, 8 waves (512) 155.5, 16 waves (1024) 158.1 (8ba8614, e116c41).
inline constexpr std::size_t preferred_waves = 8;

// --- Host batches -----------------------------------------------------------------------------
// Host batches cross the link in chunks of about this many LLR bytes, one chunk's copies
// overlapped with the other's kernel (chunk_pipeline.cuh). 64 frames of 2^20 bits from
// page-locked memory (link floor 26.5 Gb/s): chunks of 4, 8, 16, 34 and 68 frames gave 15.3, 19.9,
// 20.5, 18.9 and 15.1 Gb/s, the smallest starving the kernel, the largest overlapping nothing.
inline constexpr std::size_t host_chunk_llr_bytes = std::size_t{32} << 20;
// A host frame of more tiles than this many waves (and host_chunk_llr_bytes of LLRs) goes in
// windows (stream_tiles.hpp), so the device holds two windows whatever the frame's length.
inline constexpr std::size_t host_window_waves = 1;
// A continuous stream's windows: at least this many waves each (the plan of a stream's engine,
// cuda/tiled_plan.cu; its runner, cuda/stream_runner.cu, takes them unless told a length).
inline constexpr std::size_t stream_window_waves = 2;
// The device float and hard paths quantize in chunks of at least this many waves of tiles (and
// host_chunk_llr_bytes of LLRs): there the kernel's waves count, not the link.
inline constexpr std::size_t quantizer_waves = 2;

}  // namespace gpufec::conv::policy
