// Where the register BP kernel (bp_register_kernel.cuh) keeps each message: which thread and
// register holds which node of which column, and where a boundary column sits in shared memory.
// Everything here is a constexpr function of M = log2 N, evaluated by the compiler (the kernel's
// loops are unrolled, so every register index and shared-memory offset is a constant).
//
// Stage groups. The m stages are cut into groups of 3 (the last one shorter when 3 does not divide
// m): group g covers stages [3g, 3g + size(g)). A thread of a codeword owns 8 nodes in every group:
// register r (3 bits) sets the node bits register_bit(g, 0..2), the thread index t fills the other
// m - 3 bits in ascending order. The 8 nodes of a thread are closed under the group's butterflies
// (stage s joins j and j + 2^s, bit s being one of the register bits), so a whole group is done in
// registers, and the columns strictly inside a group are never stored anywhere else: they stay in
// the thread's registers from one iteration to the next. Only the boundary columns 3g (g >= 1),
// which two groups share, go through shared memory. A short top group takes the bits just below its
// first stage as its extra register bits (the group below's), so that the column between them
// leaves the most bits to the banks.
//
// Banks. A warp's 32 lanes run through the 5 lowest bits outside the group's register bits. A
// boundary column stores node j at address(g, j), a permutation of j's bits that puts 5 "bank
// bits" lowest, chosen among the two groups' lane bits (both groups' first, then alternately):
// then an access has 2^(5 - shared bits) ways at most, and since the map permutes disjoint bits,
// the address of (t, r) is address(t, 0) + address(0, r): a base register plus an immediate.
#pragma once

#include <cstdint>

namespace gpufec::polar::detail {

template <int M>
struct bp_register_layout {
  static_assert(M >= 3 && M <= 11, "the register BP kernel covers N = 8 .. 2048");
  static constexpr int N = 1 << M;
  static constexpr int nodes_per_thread = 8;
  static constexpr int T = N / nodes_per_thread;  // threads per codeword
  static constexpr int groups = (M + 2) / 3;

  __host__ __device__ static constexpr int first(int g) { return 3 * g; }
  __host__ __device__ static constexpr int size(int g) { return g + 1 < groups ? 3 : M - 3 * g; }
  __host__ __device__ static constexpr int top(int g) { return first(g) + size(g); }

  // The node bit that register bit k (0..2) of group g sets.
  __host__ __device__ static constexpr int register_bit(int g, int k) {
    return k < size(g) ? first(g) + k : first(g) - 1 - (k - size(g));
  }
  __host__ __device__ static constexpr unsigned register_mask(int g) {
    return (1u << register_bit(g, 0)) | (1u << register_bit(g, 1)) | (1u << register_bit(g, 2));
  }
  // The node that register r of thread t holds in group g.
  __host__ __device__ static constexpr unsigned node(int g, unsigned t, unsigned r) {
    unsigned j = 0;
    for (int k = 0; k < 3; ++k) j |= ((r >> k) & 1u) << register_bit(g, k);
    const unsigned mask = register_mask(g);
    for (int b = 0, i = 0; b < M; ++b) {
      if ((mask >> b) & 1u) continue;
      j |= ((t >> i) & 1u) << b;
      ++i;
    }
    return j;
  }
  // The node bits the lanes of a warp run through in group g.
  __host__ __device__ static constexpr unsigned lane_mask(int g) {
    unsigned mask = 0;
    for (int b = 0, n = 0; b < M && n < 5; ++b)
      if (!((register_mask(g) >> b) & 1u)) {
        mask |= 1u << b;
        ++n;
      }
    return mask;
  }
  __host__ __device__ static constexpr int bits_in(unsigned v) {
    int n = 0;
    for (; v; v &= v - 1) ++n;
    return n;
  }
  // Boundary column 3g (g = 1 .. groups - 1): the node bits that go to the bank bits.
  __host__ __device__ static constexpr unsigned bank_mask(int g) {
    const unsigned below = lane_mask(g - 1), above = lane_mask(g);
    unsigned mask = below & above;
    bool from_above = true;  // the group above touches the column three times an iteration
    while (bits_in(mask) < 5 && ((below | above) & ~mask)) {
      unsigned pool = (from_above ? above : below) & ~mask;
      if (!pool) pool = (below | above) & ~mask;
      mask |= pool & (~pool + 1);
      from_above = !from_above;
    }
    return mask;
  }
  // The index of node j in boundary column 3g: bank bits lowest, then the others, each ascending.
  __host__ __device__ static constexpr unsigned address(int g, unsigned j) {
    const unsigned banks = bank_mask(g);
    unsigned a = 0;
    int pos = 0;
    for (int b = 0; b < M; ++b)
      if ((banks >> b) & 1u) a |= ((j >> b) & 1u) << pos++;
    for (int b = 0; b < M; ++b)
      if (!((banks >> b) & 1u)) a |= ((j >> b) & 1u) << pos++;
    return a;
  }
  // The most ways a warp's access to boundary column 3g has, from below (group g - 1) or above.
  __host__ __device__ static constexpr int conflict_ways(int g, bool from_above) {
    const int lanes = bits_in(lane_mask(from_above ? g : g - 1));
    const int shared = bits_in(bank_mask(g) & lane_mask(from_above ? g : g - 1));
    return 1 << (lanes - shared);
  }
};

}  // namespace gpufec::polar::detail
