// The register BP kernel (issue 25): the schedule of bp_reference.cpp with the messages in
// registers. Layout (which thread and register holds which node, and the shared boundary columns):
// bp_register_layout.cuh. Message types and rules: bp_lane_rules.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "polar/cuda/bp_kernel.cuh"
#include "polar/cuda/bp_lane_rules.cuh"
#include "polar/cuda/bp_register_layout.cuh"

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
  unsigned header_bytes = 0;  // per block: slot frames (8 B per lane) and mismatch flags
  unsigned region_bytes = 0;  // per slot: the boundary columns (bp_register_region_bytes)
  unsigned soft_stride = 0;   // 0, K (information LLRs) or N (codeword LLRs)
  bool soft_at_top = false;   // soft values from column m (codeword, or systematic) or column 0
  int max_iterations = 0;
  bool early_stop = false, systematic = false, replace = true;
};

// Shared memory of one slot: L and R of every boundary column (value_bytes each), then a 4-byte
// sign word per node of every boundary column (u^ on its way to the outputs, w = u^ G_N on its way
// up for early stopping and systematic codes), in the R column's layout.
inline unsigned bp_register_region_bytes(int m, unsigned value_bytes) {
  const unsigned N = 1u << m, boundaries = static_cast<unsigned>((m + 2) / 3 - 1);
  return (boundaries * (2 * N * value_bytes + 4 * N) + 15) / 16 * 16;
}
inline unsigned bp_register_header_bytes(unsigned slots, int lanes) {
  return (slots * (8 * lanes + 4) + 15) / 16 * 16;
}

// polar_bp_register_kernel<M, Rule>. Index map: a block holds blockDim.x / T slots of
// T = N / 8 threads; thread x is thread t = x mod T of slot x / T. A slot decodes Rule::lanes
// codewords at once (one per lane of a register: 1 in fp32, 2 in fp16), each lane taking frames
// from the work counter on its own (replace: as soon as its frame is done; block: when every lane
// of the block is done). Thread t holds, in stage group g, register r of the nodes
// layout::node(g, t, r), r < 8: the columns inside a group in registers across iterations, the
// channel column m (L_m) and the decisions' columns 0 and m in registers, the boundary columns 3g
// (g >= 1) in the slot's shared region at layout::address(g, j). One iteration: the right-to-left
// sweep group by group from the top (each group's stages top-down in registers, then its bottom
// column's L to shared memory, a barrier), then the left-to-right sweep from group 0 (stages
// bottom-up, its top column's R to shared memory, a barrier). Early stopping rides on the second
// sweep: u^ is decided in group 0 (L_0 is final after the first sweep), w = u^ G_N goes up group by
// group with R (a sign word per register, Rule::sign_word, XORed by the group's butterflies and
// stored beside R across a boundary), and the top group compares w with x^ = hard(L_m + R_m).
// Why the result is the reference's: each message is the same rule applied to the same operands as
// bp_reference (the group's butterflies are the stage's, in the stage order of the schedule; a
// stage's butterflies are independent, so their order within a stage does not matter), and the
// decisions, the check and the outputs follow decide()/decode_one(). Rule::saturate, applied to
// the boundary columns that Rule::saturates as they are stored, is the identity in fp32 (min-sum
// has no bound); fp16's bound: bp_lane_rules.cuh.
// Barriers: every thread runs every loop (bounds are compile-time or block-uniform); work is
// predicated on the slot having a frame, so no barrier is divergent. An iteration has the sweeps'
// 2 (G - 1) barriers, one for the early-stop flags and one that tells the block whether a lane
// stopped; only then does the block go through the refill (three more).
// Registers: both precisions run best with all the registers they want (about 220-240, 8 warps per
// SM). Capped at 168 for a third block, fp16 spilled into its iteration loop and ran 8% slower at
// N = 1024 (H100, bench/RESULTS.md); N = 2048 needs 256-thread blocks.
template <int M, class Rule>
inline constexpr int register_kernel_threads = (M >= 11 || Rule::lanes == 1) ? 256 : 128;
template <int M, class Rule>
inline constexpr int register_kernel_min_blocks = register_kernel_threads<M, Rule> == 128 ? 2 : 1;

template <int M, class Rule>
__global__ void __launch_bounds__(register_kernel_threads<M, Rule>,
                                  register_kernel_min_blocks<M, Rule>)
    polar_bp_register_kernel(bp_register_params p, Rule rule) {
  using layout = bp_register_layout<M>;
  using V = typename Rule::value;
  constexpr int N = layout::N, T = layout::T, G = layout::groups, lanes = Rule::lanes;
  extern __shared__ __align__(16) unsigned char shared[];
  const unsigned slots = blockDim.x / T, slot = threadIdx.x / T, t = threadIdx.x % T;
  auto* frame_of = reinterpret_cast<long long*>(shared);  // [slot][lane]
  auto* mismatch = reinterpret_cast<int*>(shared + 8 * lanes * slots);
  unsigned char* region = shared + p.header_bytes + static_cast<std::size_t>(slot) * p.region_bytes;
  V* const columns = reinterpret_cast<V*>(region);  // boundary g: L at 2(g-1) N, R at (2g-1) N
  static_assert(sizeof(V) == sizeof(unsigned), "a sign word sits where R would");
  unsigned* const sign_columns = reinterpret_cast<unsigned*>(columns + 2 * (G - 1) * N);

  // This thread's node bits in each group, and its register 0's index in each boundary column
  // seen from the group below it (its top column) and from the group above (its bottom column).
  unsigned node_base[G], base_below[G > 1 ? G : 1], base_above[G > 1 ? G : 1];
#pragma unroll
  for (int g = 0; g < G; ++g) node_base[g] = layout::node(g, t, 0);
#pragma unroll
  for (int g = 1; g < G; ++g) {
    base_below[g] = layout::address(g, node_base[g - 1]);
    base_above[g] = layout::address(g, node_base[g]);
  }
  auto column_L = [&](int g) { return columns + (2 * (g - 1)) * N; };
  auto column_R = [&](int g) { return columns + (2 * g - 1) * N; };
  auto column_sign = [&](int g) { return sign_columns + (g - 1) * N; };
  // A group's XOR butterflies w[r] ^= w[r + 2^k] on sign words (undone by doing them again).
  auto xor_butterflies = [](unsigned(&w)[8], int stages) {
#pragma unroll
    for (int k = 0; k < 3; ++k)
#pragma unroll
      for (int r = 0; r < 8; ++r)
        if (k < stages && !((r >> k) & 1)) w[r] ^= w[r | (1 << k)];
  };

  V L[M + 1][8], R[M + 1][8];  // column c, register r (in the layout of the group using it)
  unsigned frozen_bits = 0;    // group 0's nodes
  unrolled<0, 8>([&](auto rc) {
    constexpr int r = rc();
    const bool frozen = p.frozen[node_base[0] | register_slot<M, 0, r>::node] != 0;
    frozen_bits |= (frozen ? 1u : 0u) << r;
    R[0][r] = frozen ? rule.frozen() : Rule::unknown();
  });

  for (unsigned i = threadIdx.x; i < slots * lanes; i += blockDim.x)
    frame_of[i] = -1;  // -1: free, -2: no frames left
  long long frame[lanes];
  int it[lanes];
#pragma unroll
  for (int l = 0; l < lanes; ++l) frame[l] = -1, it[l] = 0;
  __syncthreads();

  for (;;) {
    // Refill: free lanes take frames from the counter.
    if (p.replace) {
      if (t == 0)
        for (int l = 0; l < lanes; ++l)
          if (frame_of[slot * lanes + l] == -1) {
            const unsigned long long f = atomicAdd(p.next, 1ull);
            frame_of[slot * lanes + l] = f < p.frames ? static_cast<long long>(f) : -2;
          }
    } else {
      bool all_free = true;
      for (int l = 0; l < lanes; ++l) all_free &= frame[l] < 0;
      if (__syncthreads_and(all_free) && threadIdx.x == 0) {
        const unsigned long long n = static_cast<unsigned long long>(slots) * lanes;
        const unsigned long long base = atomicAdd(p.next, n);
        for (unsigned long long i = 0; i < n; ++i)
          frame_of[i] = base + i < p.frames ? static_cast<long long>(base + i) : -2;
      }
    }
    __syncthreads();
    unsigned fresh = 0, live = 0;  // lanes starting a frame; lanes holding one
#pragma unroll
    for (int l = 0; l < lanes; ++l) {
      const long long fetched = frame_of[slot * lanes + l];
      if (fetched != frame[l] && fetched >= 0) fresh |= 1u << l, it[l] = 0;
      frame[l] = fetched;
      if (fetched >= 0) live |= 1u << l;
    }
    if (!__syncthreads_or(live != 0)) break;

      // A new frame: the reference's start state in its lane (L_m = channel, R = unknown except
      // the frozen R_0, which never changes; L is written before it is read).
#pragma unroll
    for (int l = 0; l < lanes; ++l) {
      if (!((fresh >> l) & 1u)) continue;
      const float* llr = p.llr + static_cast<std::size_t>(frame[l]) * N + node_base[G - 1];
      unrolled<0, 8>([&](auto rc) {
        constexpr int r = rc();
        const float v = llr[register_slot<M, G - 1, r>::node];
        L[M][r] = Rule::with_lane(L[M][r], Rule::from_llr(v, v, l), l);
      });
      unrolled<0, G>([&](auto gc) {
        constexpr int g = gc();
#pragma unroll
        for (int c = layout::first(g) + (g > 0 ? 0 : 1); c < layout::top(g); ++c)
#pragma unroll
          for (int r = 0; r < 8; ++r) R[c][r] = Rule::with_lane(R[c][r], Rule::unknown(), l);
        if constexpr (g > 0)
          unrolled<0, 8>([&](auto rc) {
            constexpr int r = rc();
            V& shared_R = column_R(g)[base_above[g] + register_slot<M, g, r>::in_column_below];
            shared_R = Rule::with_lane(shared_R, Rule::unknown(), l);
          });
      });
    }
    __syncthreads();

    // Iterations until a lane of the block stops (then the refill above). The flags are reset
    // after the previous iteration's last read (the barrier ending it) and before this one's
    // writes (behind the sweeps' barriers; a slot without boundaries is one thread).
    for (bool stopped = false; !stopped;) {
      if (t == 0) mismatch[slot] = 0;

      // Right-to-left sweep: L_s for s = m-1 .. 0, group by group from the top.
      unrolled<0, G>([&](auto ic) {
        constexpr int g = G - 1 - ic(), b = layout::first(g), top = layout::top(g);
        if (live) {
          if constexpr (g + 1 < G)  // L of the column above, which the group above just wrote
            unrolled<0, 8>([&](auto rc) {
              constexpr int r = rc();
              L[top][r] =
                  column_L(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above];
            });
          if constexpr (g > 0 && g + 1 < G)  // the top group kept R of its bottom column
            unrolled<0, 8>([&](auto rc) {
              constexpr int r = rc();
              R[b][r] = column_R(g)[base_above[g] + register_slot<M, g, r>::in_column_below];
            });
#pragma unroll
          for (int s = top - 1; s >= b; --s) {
            const int k = s - b;
#pragma unroll
            for (int r = 0; r < 8; ++r) {
              if ((r >> k) & 1) continue;
              const int r1 = r | (1 << k);
              const V ln_top = L[s + 1][r], ln_bottom = L[s + 1][r1];
              const V rs_top = R[s][r], rs_bottom = R[s][r1];
              L[s][r] = rule.check(ln_top, Rule::variable(ln_bottom, rs_bottom));
              L[s][r1] = Rule::variable(rule.check(ln_top, rs_top), ln_bottom);
            }
          }
          if constexpr (g > 0)
            unrolled<0, 8>([&](auto rc) {
              constexpr int r = rc();
              V& stored = column_L(g)[base_above[g] + register_slot<M, g, r>::in_column_below];
              if constexpr (Rule::saturates(b))
                stored = rule.saturate(L[b][r]);
              else
                stored = L[b][r];
            });
        }
        if constexpr (g > 0) __syncthreads();
      });

      // u^ from L_0 (final now) and R_0, as sign words (a frozen node decides 0). They go to the
      // sign column of boundary 1, transformed by group 0's butterflies when w = u^ G_N is wanted
      // (the outputs undo them).
      unsigned w[8];
#pragma unroll
      for (int r = 0; r < 8; ++r)
        w[r] = (frozen_bits >> r) & 1u ? 0u : Rule::sign_word(Rule::variable(L[0][r], R[0][r]));
      const bool transform = p.early_stop || p.systematic;

      // Left-to-right sweep: R_(s+1) for s = 0 .. m-1, group by group from the bottom; w = u^ G_N
      // goes up with it.
      unrolled<0, G>([&](auto gc) {
        constexpr int g = gc(), b = layout::first(g), top = layout::top(g);
        if (live) {
          if constexpr (g > 0) {
            unrolled<0, 8>([&](auto rc) {
              constexpr int r = rc();
              R[b][r] = column_R(g)[base_above[g] + register_slot<M, g, r>::in_column_below];
            });
            // Group 0 still holds L of its top column from the first sweep.
            if constexpr (g + 1 < G)
              unrolled<0, 8>([&](auto rc) {
                constexpr int r = rc();
                L[top][r] =
                    column_L(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above];
              });
          }
#pragma unroll
          for (int s = b; s < top; ++s) {
            const int k = s - b;
#pragma unroll
            for (int r = 0; r < 8; ++r) {
              if ((r >> k) & 1) continue;
              const int r1 = r | (1 << k);
              const V ln_top = L[s + 1][r], ln_bottom = L[s + 1][r1];
              const V rs_top = R[s][r], rs_bottom = R[s][r1];
              R[s + 1][r] = rule.check(rs_top, Rule::variable(ln_bottom, rs_bottom));
              R[s + 1][r1] = Rule::variable(rule.check(rs_top, ln_top), rs_bottom);
            }
          }
          if constexpr (g + 1 < G)
            unrolled<0, 8>([&](auto rc) {
              constexpr int r = rc();
              V& stored =
                  column_R(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above];
              if constexpr (Rule::saturates(top))
                stored = rule.saturate(R[top][r]);
              else
                stored = R[top][r];
            });
          if (transform) {
            if constexpr (g > 0)
              unrolled<0, 8>([&](auto rc) {
                constexpr int r = rc();
                w[r] = column_sign(g)[base_above[g] + register_slot<M, g, r>::in_column_below];
              });
            xor_butterflies(w, layout::size(g));
          }
          if constexpr (g + 1 < G)
            if (g == 0 || transform)
              unrolled<0, 8>([&](auto rc) {
                constexpr int r = rc();
                column_sign(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above] =
                    w[r];
              });
        }
        if constexpr (g + 1 < G) __syncthreads();
      });

      // The top group: x^ = hard(L_m + R_m), and the G-matrix check per lane.
      unsigned differ = 0;  // lanes whose check fails
      if (p.early_stop) {
        unsigned mismatch_bits = 0;
#pragma unroll
        for (int r = 0; r < 8; ++r)
          mismatch_bits |= Rule::sign_word(Rule::variable(L[M][r], R[M][r])) ^ w[r];
#pragma unroll
        for (int l = 0; l < lanes; ++l)
          if (mismatch_bits & Rule::sign_bit(l)) differ |= 1u << l;
        if (live && differ) atomicOr(&mismatch[slot], static_cast<int>(differ));
        __syncthreads();
        differ = static_cast<unsigned>(mismatch[slot]);
      }

      // Lanes that stop: outputs, then the lane is free.
      unsigned stopping = 0;
#pragma unroll
      for (int l = 0; l < lanes; ++l) {
        if (!((live >> l) & 1u)) continue;
        ++it[l];
        const bool last = it[l] == p.max_iterations;
        if (!(last || (p.early_stop && !((differ >> l) & 1u)))) continue;
        const std::size_t f = static_cast<std::size_t>(frame[l]);
        if (p.iterations && t == 0) p.iterations[f] = static_cast<std::uint32_t>(it[l]);
        if (p.bits) {
          // Systematic: (u^ G_N)_A from the top group's w; else u^_A from group 0, back from the
          // sign column of boundary 1 (this thread's own words; with one group, w is still u^ or
          // is made so again).
          unsigned u[8];
#pragma unroll
          for (int r = 0; r < 8; ++r) u[r] = w[r];
          if (!p.systematic) {
            if constexpr (G > 1)
              unrolled<0, 8>([&](auto rc) {
                constexpr int r = rc();
                u[r] = column_sign(1)[base_below[1] + register_slot<M, 0, r>::in_column_above];
              });
            if (transform) xor_butterflies(u, layout::size(0));
          }
          unrolled<0, 8>([&](auto rc) {
            constexpr int r = rc();
            const unsigned j = p.systematic ? node_base[G - 1] | register_slot<M, G - 1, r>::node
                                            : node_base[0] | register_slot<M, 0, r>::node;
            const int k = p.rank[j];
            if (k >= 0) p.bits[f * p.K + k] = (u[r] & Rule::sign_bit(l)) != 0 ? 1 : 0;
          });
        }
        if (p.soft) {
          float* out = p.soft + f * p.soft_stride;
          unrolled<0, 8>([&](auto rc) {
            constexpr int r = rc();
            const unsigned j = p.soft_at_top ? node_base[G - 1] | register_slot<M, G - 1, r>::node
                                             : node_base[0] | register_slot<M, 0, r>::node;
            const float v = p.soft_at_top ? Rule::to_llr(Rule::variable(L[M][r], R[M][r]), l)
                                          : Rule::to_llr(Rule::variable(L[0][r], R[0][r]), l);
            if (p.soft_stride == static_cast<unsigned>(N))
              out[j] = v;
            else if (p.rank[j] >= 0)
              out[p.rank[j]] = v;
          });
        }
        if (t == 0) frame_of[slot * lanes + l] = -1;
        frame[l] = -1;
        stopping |= 1u << l;
      }
      stopped = __syncthreads_or(stopping != 0);
    }
  }
}

}  // namespace gpufec::polar::detail
