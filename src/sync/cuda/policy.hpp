// The tuning constants of the CUDA sync decoder, each with the measurement behind it, in one place:
// the plan (src/sync/plan/cuda_plan.cpp, src/sync/cuda/launch_plan.cu) reads them to choose
// shapes and rules, and the kernels take the same values for __launch_bounds__, so a block the
// plan may choose is always one the kernel was compiled for. Plain C++: no CUDA types.
//
// Where a comment cites bench/RESULTS.md, the figures were measured on an H200 (132 SMs) with
// q = 32, n = 10, N = 210, Pi = Pd = p, Ps = 0, unless it says otherwise.
#pragma once

#include <cstddef>

namespace gpufec::sync::policy {

// --- Block shapes ------------------------------------------------------------------------------
// The block size the general kernels aim for before occupancy checks shrink it (seed paper
// sec. V-B: lanes over D, then as many states as keep the block near this size).
inline constexpr int target_threads = 256;

// gamma_warp_kernel and gamma_beta_kernel: blocks of 32 to this many threads (whole warps). The
// plan tries every power of two up to it and keeps the most resident threads per SM; the kernels'
// __launch_bounds__ take the same value.
inline constexpr int gamma_max_threads = 256;
// gamma_warp_kernel asks for two resident blocks per SM up to this row width (registers capped at
// 128, no spills, ptxas -v); wider rows would spill under that cap and ask for one.
inline constexpr int gamma_two_blocks_max_width = 16;
// A warp of gamma_warp_kernel takes at most this many consecutive states m' (its window of
// received symbols holds 96 bits: 31 more than the 64 a lattice reads).
inline constexpr int gamma_warp_max_tasks = 32;
// The register row holds at most this many entries (M_n <= 32): one instantiation per width.
inline constexpr int gamma_warp_max_width = 32;
// Rows 1..4 of a lattice depend only on the codeword's first 4 bits: computed once per prefix
// (bench/RESULTS.md, 2026-11-21, lattice rows shared by prefix, 40acca4: +7-8% for batches at
// 1e-3, +12-13% at 1e-2).
inline constexpr int gamma_prefix_rows = 4;
// As many states per gamma warp as leave about this many waves of warps on the device: what a
// warp does once per (frame, i) is then shared by more lattices, and the last wave stays short.
inline constexpr int gamma_waves = 4;

// gamma_beta_frame_kernel: blocks of up to this many threads (its __launch_bounds__). The plan
// takes the fewest states per warp from frame_least_states_per_warp up that keeps
// frame_resident_warps warps resident per SM: at M_tau = 33, 9 states (4 warps) beat 11 (3), 7, 6
// and 3 by 1-8% (bench/RESULTS.md, 2026-11-21, folding by frames at p = 1e-3, 661cbf8).
inline constexpr int frame_max_threads = 512;
// Register caps (__maxnreg__) of the folded kernels, by row width W, with no spills at any width
// (ptxas -v): gamma_beta_kernel left alone takes 114 at W = 16 and keeps 16 warps per SM instead
// of gamma_warp_kernel's 20, 8% slower issue (ncu); gamma_beta_frame_kernel keeps 24 warps
// resident at W <= 11.
constexpr int fold_items_max_registers(int W) {
  return W <= 16 ? 96 : 136;
}
constexpr int fold_frames_max_registers(int W) {
  return W <= 11 ? 80 : W <= 16 ? 96 : 128;
}
inline constexpr int frame_least_states_per_warp = 8;
inline constexpr int frame_resident_warps = 16;

// fb_ring_kernel keeps up to 2^fb_max_log_ring gsum blocks in flight, within half of a block's
// shared memory (two blocks per SM).
inline constexpr int fb_max_log_ring = 3;
// fb_step_kernel (local storage): a thread per state up to this many.
inline constexpr int step_max_threads = 512;

// The L kernel sums its states in G groups, G a power of two, at most app_max_groups, with
// G * q doubles of accumulators within app_max_acc_doubles (8 KB); fixed by the geometry so that
// the sums, and every digit, do not depend on the block shape.
inline constexpr int app_max_groups = 32;
inline constexpr int app_max_acc_doubles = 1024;

// --- Chunks and parts ------------------------------------------------------------------------
// A chunk's results go through this much page-locked staging; decode() cuts a batch into steps
// whose results fit it (beyond it, copies into pageable memory held the host: 8 000 frames ran at
// 66 000-80 000 frames/s against ~116 000 once cut, bench/RESULTS.md, 2026-11-21, priorities that
// hold and lattice rows shared by prefix: the staging cliff, removed after 40acca4).
inline constexpr std::size_t staging_bytes = std::size_t{256} << 20;
// A chunk runs as up to max_parts pipelined parts of decreasing size (the smallest at least
// min_part_frames frames), so that part k's copies overlap later parts' kernels and what is left
// after the GPU is the last, smallest part's copies.
inline constexpr int max_parts = 6;
inline constexpr int min_part_frames = 32;
// Automatic storage takes the fastest mode that fits this many frames (or the whole batch when
// smaller): global, then compact, then local.
inline constexpr std::size_t storage_min_frames = 8;
// Local storage keeps gamma of a ring of this many indices per frame, each on a stream of its own
// (the seed paper's four rotating streams, sec. IV-B).
inline constexpr int local_ring_rows = 4;
// A chunk's frames are a grid dimension of 16 bits.
inline constexpr std::size_t max_chunk_frames = 65535;

// --- Folding beta into gamma -----------------------------------------------------------------
// Items fold only from this M_n (at p = 1e-2, M_n = 16, 1000 and 4000 frames fold 17% faster; at
// 1e-3, M_n = 11, 1000-4000 frames fold 2-10% slower: rounds of items too short), and from
// fold_item_waves waves of resident warps' worth of states. One wave of warps per round of items
// measured best against two and a half (bench/RESULTS.md, the 2026-11-21 entries from beta folded
// into gamma, 40e409e, to folding by frames, 661cbf8).
inline constexpr int fold_items_min_width = 16;
inline constexpr int fold_item_waves = 16;
// Frames fold below fold_items_min_width, from this many waves of the frame kernel's blocks: at
// 1e-3, 3000 and 4000 frames fold faster than the three kernels, 1000 slower (a frame's block runs
// for milliseconds, so a chunk of few waves ends with an idle tail).
inline constexpr int frame_fold_waves = 3;

}  // namespace gpufec::sync::policy
