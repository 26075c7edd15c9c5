// What a plan chose for the CUDA polar BP engine: the device it planned for, the kernel (register
// or memory, where the memory kernel keeps its messages), its block of slots, the persistent grid,
// the host chunks and the device memory it needs. plan_bp_cuda() (cuda/bp_plan.cu) computes it once
// from the device's limits, the occupancy API and polar/cuda/policy.hpp; the engine
// (cuda/bp_engine.cu) executes it and decides nothing. Plain C++, so every build can hold it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/cuda/launch_shape.hpp"

namespace gpufec::polar::detail {

struct cuda_plan {
  // The device planned for.
  int sm_count = 0;
  std::size_t shared_optin = 0, free_memory = 0;

  // The kernel: the register kernel (`lanes` codewords per register: 2 for fp16 pairs; its
  // registers and spills from the compiler's attributes) or the memory kernel, whose messages
  // live in shared memory, or with `global` in one region of global memory per resident slot.
  bool registers = false;
  int lanes = 1;
  bool global = false;
  int registers_per_thread = 0;
  std::size_t spilled_bytes = 0;
  // Its block: shape.Bx threads per codeword, shape.By slots; `slots` codewords a block holds at
  // once (shape.By * lanes); the grid every launch takes at most (blocks claim codewords from a
  // work counter until none is left).
  cuda::launch_shape shape;
  unsigned slots = 1, grid = 1;
  std::size_t slot_bytes = 0;  // memory kernel: one codeword's messages and decisions
  unsigned region_bytes = 0;   // register kernel: one slot's boundary columns and staging
  unsigned header_bytes = 0;   // a block's shared header before the slots
  bool poll_stop = false;      // memory kernel: looks for a stop every iteration

  // Host batches: chunks of chunk_frames frames on two streams; soft_stride soft values per frame
  // (0: bits). The device memory the plan needs (checked against free_memory).
  std::size_t soft_stride = 0, chunk_frames = 1, device_bytes = 0;

  // --- Rules ------------------------------------------------------------------------------------
  // Blocks of a launch over `frames` codewords: enough for them, at most the grid.
  unsigned blocks_for(unsigned long long frames) const;
  // What a host batch's frame brings back through the chunk pipeline, in bytes: its bits (K) or
  // soft values, and its iteration count.
  std::array<std::size_t, 2> host_output_bytes(unsigned K) const {
    return {soft_stride ? soft_stride * sizeof(float) : std::size_t{K}, sizeof(std::uint32_t)};
  }
  // "CUDA BP register kernel (fp16, 2 codewords per register), ...; host chunks of ... frames".
  std::string describe(unsigned N, unsigned m, bool replace) const;
};

}  // namespace gpufec::polar::detail
