// The register BP kernel's parameters and the shared memory it needs (which the engine sizes on
// the host), with the kernel's helpers: a compile-time loop, a register's slot in the layout as
// constants, and cp.async copies (bp_register_kernel.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "polar/cuda/kernels/bp_kernel.cuh"
#include "polar/cuda/kernels/bp_register_layout.cuh"

namespace gpufec::polar::detail {

// f(integral_constant<int, I>) for I = Begin .. End - 1, in order: a loop whose index is a
// compile-time constant in the body (the layout's offsets below become immediates).
template <int Begin, int End, class F>
__device__ __forceinline__ void unrolled(F&& f) {
  if constexpr (Begin < End) {
    f(std::integral_constant<int, Begin>{});
    unrolled<Begin + 1, End>(f);
  }
}

// Register r of group g, as compile-time constants: its node with thread bits 0 (add the thread's
// node_base[g]), and its index offset in the boundary column above the group (g + 1) and in the
// one below it (g).
template <int M, int g, int r>
struct register_slot {
  using layout = bp_register_layout<M>;
  static constexpr unsigned node = layout::node(g, 0, r);
  static constexpr unsigned in_column_above =
      g + 1 < layout::groups ? layout::address(g + 1, node) : 0;
  static constexpr unsigned in_column_below = g > 0 ? layout::address(g, node) : 0;
};

struct bp_register_params : bp_batch_params {
  const std::int32_t* rank = nullptr;  // [N]: k for the k-th information position, else -1
  unsigned K = 0;
  unsigned header_bytes = 0;  // per block: bp_register_header_bytes
  unsigned region_bytes = 0;  // per slot: bp_register_region_bytes
  unsigned soft_stride = 0;   // 0, K (information LLRs) or N (codeword LLRs)
  bool soft_at_top = false;   // soft values from column m (codeword, or systematic) or column 0
  int max_iterations = 0;
  bool early_stop = false, systematic = false, replace = true;
};

// Mismatch words per slot: one per warp of the slot (one when slots share a warp).
__host__ __device__ constexpr unsigned bp_register_flag_words(int m) {
  return m >= 8 ? 1u << (m - 8) : 1u;
}
// Shared memory of a block before the slots' regions: per slot its lanes' queued frames (8 B
// each) and its mismatch words, then the rank table (4 B per node); 16-aligned.
inline unsigned bp_register_header_bytes(unsigned slots, int lanes, int m) {
  const unsigned per_slot = 8 * static_cast<unsigned>(lanes) + 4 * bp_register_flag_words(m);
  return (slots * per_slot + 15) / 16 * 16 + 4 * (1u << m);
}
// Shared memory of one slot: L and R of every boundary column (value_bytes each), a 4-byte sign
// word per node of every boundary column (u^ on its way to the outputs, w = u^ G_N on its way up
// for early stopping and systematic codes) in the R column's layout, then the staging of each
// lane's next frame (N floats per lane).
inline unsigned bp_register_region_bytes(int m, unsigned value_bytes, int lanes) {
  const unsigned N = 1u << m, boundaries = static_cast<unsigned>((m + 2) / 3 - 1);
  return (boundaries * (2 * N * value_bytes + 4 * N) + static_cast<unsigned>(lanes) * N * 4 + 15) /
         16 * 16;
}

// 4 bytes from global to shared memory without a register (cp.async); the copies this thread
// issued go as a group (commit), and wait_all waits for all of them.
__device__ __forceinline__ void copy_async_4(void* shared_to, const void* global_from) {
  const auto to = static_cast<unsigned>(__cvta_generic_to_shared(shared_to));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(global_from));
}
__device__ __forceinline__ void copy_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void copy_async_wait_all() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

}  // namespace gpufec::polar::detail
