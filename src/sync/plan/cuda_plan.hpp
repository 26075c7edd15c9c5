// What a plan chose for the CUDA sync engine: the device's limits it planned for, the storage and
// chunk, every kernel's shape, and the rules a decode call applies to its frame count (parts,
// folding, states per warp). plan_cuda() (src/sync/cuda/launch_plan.cu) computes it once from the
// device and the occupancy API; describe() prints it; the engine executes it and decides nothing.
// Plain C++, so every build can hold and print it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/cuda/launch_shape.hpp"
#include "sync/plan/geometry.hpp"

namespace gpufec::sync::detail {

using cuda::launch_shape;

struct cuda_plan {
  // The device planned for.
  int sm_count = 0;
  std::size_t shared_optin = 0;  // bytes of shared memory a block may opt in to
  int max_block_threads = 0;
  bool bulk_copies = false;  // sm_90: TMA bulk copies and mbarrier waits
  int least_priority = 0, greatest_priority = 0;
  std::size_t free_memory = 0;  // bytes free when planned
  std::size_t budget = 0;       // bytes the chunk's buffers may take

  // Sizes.
  int q = 0, N = 0, M = 0, Mn = 0;
  std::size_t max_batch = 1;
  std::size_t capacity = 0;  // received symbols kept per frame: tau + m_tau^+
  bool f64_lattice = false;

  // Storage and chunk: frames whose buffers the engine allocates (a batch runs in chunks).
  storage_mode storage = storage_mode::global;  // resolved, never automatic
  bool storage_automatic = true;                // the options left it to the plan
  std::size_t chunk = 0;

  // gamma: the register-row kernel of width gamma_width (0: the general gamma_kernel), and
  // whether the channel has no substitutions (its variant).
  int gamma_width = 0;
  bool gamma_nosub = false;
  launch_shape gamma;
  // alpha/beta: fb_ring_kernel<fb_width> (0: fb_kernel) with 2^fb_log_ring gsum blocks in flight.
  int fb_width = 0, fb_log_ring = 0;
  launch_shape fb;
  launch_shape step;  // fb_step_kernel, local storage only
  // L: G state groups and symbols per lane; the shape for large launches and wider ones for small
  // launches (widest first: a launch takes the widest whose one wave holds all its blocks).
  int app_groups = 1, app_symbols_per_lane = 1;
  launch_shape app;
  std::vector<launch_shape> app_wide;
  // Folding beta into gamma (empty shapes: not for this geometry, storage or device).
  launch_shape fold_items, fold_frames, app_from_v;
  int frame_states_per_warp = 0;
  fold_kernel fold = fold_kernel::automatic;  // decoder_options::fold
  int fold_min_frames_option = 0;             // decoder_options::fold_min_frames (0: the rule)

  // --- Rules for a call of `count` frames (a chunk at most). ----------------------------------
  bool stores_gamma() const { return storage != storage_mode::compact; }
  bool ring() const { return storage == storage_mode::local; }
  // Rows of R and gsum kept per frame: every index, or the ring of local storage.
  int stored_rows() const;
  // Folding: which kernel, from how many frames (0: never), and whether a chunk folds.
  bool folds_by_frames() const;
  int fold_min_frames() const;
  bool chunk_folds(int count) const;
  long long resident_fold_warps() const;
  // Parts of a chunk of `count` frames: weights P, P-1, ..., 1, the smallest at least
  // policy::min_part_frames (one part when folded by items or in local storage).
  int parts_for(int count) const;
  // States per warp of a gamma launch over `frames` frames and `indices` indices, and per item of
  // the items-folding kernel.
  int gamma_states_per_warp(int frames, int indices) const;
  int fold_states_per_warp(int frames) const;
  // The L shape for a launch of `blocks` blocks.
  const launch_shape& app_shape_for(long long blocks) const;

  // One line per kernel (block, grid, shared memory, occupancy) and one for storage and chunk.
  std::vector<std::string> describe(std::size_t allocated_bytes) const;
};

}  // namespace gpufec::sync::detail
