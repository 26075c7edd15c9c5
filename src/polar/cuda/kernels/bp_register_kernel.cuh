// The register BP kernel: the schedules of bp_reference.cpp with the messages in registers. Layout
// (which thread and register holds which node, and the shared boundary columns):
// bp_register_layout.cuh. Message types and rules: bp_lane_rules.cuh. Parameters, shared-memory
// sizes and helpers: bp_register_params.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "polar/cuda/kernels/bp_kernel.cuh"
#include "polar/cuda/kernels/bp_lane_rules.cuh"
#include "polar/cuda/kernels/bp_register_layout.cuh"
#include "polar/cuda/kernels/bp_register_params.cuh"

namespace gpufec::polar::detail {

// polar_bp_register_kernel<M, Rule, LeftFirst>. Index map: a block holds blockDim.x / T slots of
// T = N / 8 threads; thread x is thread t = x mod T of slot x / T. A slot decodes Rule::lanes
// codewords at once (one per lane of a register: 1 in fp32, 2 in fp16). Thread t holds, in stage
// group g, register r of the nodes layout::node(g, t, r), r < 8: the columns inside a group in
// registers across iterations, the channel column m (L_m) and the decisions' columns 0 and m in
// registers, the boundary columns 3g (g >= 1) in the slot's shared region at layout::address(g,
// j). The two sweeps: right-to-left group by group from the top (each group's stages top-down in
// registers, then its bottom column's L to shared memory, a barrier), and left-to-right from group
// 0 (stages bottom-up, its top column's R to shared memory, a barrier).
// Early stopping rides on the iteration's second sweep. LeftFirst (the lr-rl schedule): x^ =
// hard(L_m + R_m) is decided in the top group after the first sweep (R_m is final then), v = x^
// G_N goes down group by group with L (a sign mask per register, Rule::negative_mask, XORed by the
// group's butterflies and stored beside L across a boundary), and group 0 compares it with u^ =
// hard(L_0 + R_0). Right first (rl-lr): u^ is decided in group 0 (L_0 is final after the first
// sweep), w = u^ G_N goes up with R the same way, and the top group compares w with x^.
// Frames. Each lane has a current frame and a queued one, whose LLRs wait in the slot's staging
// area (each thread copies its own top-group nodes there with cp.async, so it alone reads them
// back: no barrier). A lane that stops writes its outputs and, with the replace policy, at once
// takes its queued frame (its R messages reset, L_m from the staging) and goes on in the next
// iteration: there is no refill phase. Its slot's thread 0 then claims the next frame from the
// work counter with an atomic whose result it publishes only in the next iteration, before the
// left-to-right sweep's last barrier, after which every thread of the slot starts copying that
// frame into the staging: neither the atomic's nor the copy's latency is waited for, unless a
// frame stops after one iteration. With the block policy a stopped lane idles until every lane
// of the block has stopped, then all take their queued frames.
// Why the result is the reference's: each message is the same rule applied to the same operands as
// bp_reference (the group's butterflies are the stage's, in the stage order of the schedule; a
// stage's butterflies are independent, so their order within a stage does not matter), and the
// decisions, the check and the outputs follow decide()/decode_one(); the check's transform may go
// either way through the stages, since G_N's stage butterflies commute. Rule::saturate, applied to
// the boundary columns that Rule::saturates as they are stored, is the identity in fp32 (min-sum
// has no bound); fp16's bound: bp_lane_rules.cuh. A lane without a frame computes on whatever its
// registers hold; nothing of it is read or written out.
// Barriers: every thread runs every loop (bounds are compile-time or block-uniform) and every
// decision that leads to a barrier is uniform over the block (slot-uniform with one slot per
// block). An iteration has the sweeps' 2 (G - 1) barriers (one more for m = 3, to publish the
// claims), one for the early-stop flags, and with several slots per block one that tells whether
// any lane of the block is still live.
// Registers: the compiler keeps about 150-170 without a cap (N = 1024: 158 fp16, 153 fp32), so
// 3 blocks of 128 threads fit on an SM; a cap would spill into the iteration loop (an earlier
// version, capped at 168, ran 8% slower: bench/RESULTS.md). N = 2048 needs 256-thread blocks.
template <int M, class Rule>
inline constexpr int register_kernel_threads = (M >= 11 || Rule::lanes == 1) ? 256 : 128;
template <int M, class Rule>
inline constexpr int register_kernel_min_blocks = register_kernel_threads<M, Rule> == 128 ? 2 : 1;

template <int M, class Rule, bool LeftFirst>
__global__ void __launch_bounds__(register_kernel_threads<M, Rule>,
                                  register_kernel_min_blocks<M, Rule>)
    polar_bp_register_kernel(bp_register_params p, Rule rule) {
  using layout = bp_register_layout<M>;
  using V = typename Rule::value;
  constexpr int N = layout::N, T = layout::T, G = layout::groups, lanes = Rule::lanes;
  constexpr unsigned all_lanes = (1u << lanes) - 1, flag_words = bp_register_flag_words(M);
  extern __shared__ __align__(16) unsigned char shared[];
  const unsigned slots = blockDim.x / T, slot = threadIdx.x / T, t = threadIdx.x % T;
  long long* const queued = reinterpret_cast<long long*>(shared) + slot * lanes;  // [lane]
  unsigned* const mismatch =
      reinterpret_cast<unsigned*>(shared + 8 * lanes * slots) + slot * flag_words;  // [word]
  std::int32_t* const rank =
      reinterpret_cast<std::int32_t*>(shared + p.header_bytes - 4 * N);  // [node]
  unsigned char* region = shared + p.header_bytes + static_cast<std::size_t>(slot) * p.region_bytes;
  V* const columns = reinterpret_cast<V*>(region);  // boundary g: L at 2(g-1) N, R at (2g-1) N
  static_assert(sizeof(V) == sizeof(unsigned), "a sign word sits where R would");
  unsigned* const sign_columns = reinterpret_cast<unsigned*>(columns + 2 * (G - 1) * N);
  float* const staging = reinterpret_cast<float*>(sign_columns + (G - 1) * N);  // [lane][node]

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
    const bool frozen = p.frozen[node_base[0] + register_slot<M, 0, r>::node] != 0;
    frozen_bits |= (frozen ? 1u : 0u) << r;
    R[0][r] = frozen ? rule.frozen() : Rule::unknown();  // R_0 never changes
  });
  for (unsigned j = threadIdx.x; j < static_cast<unsigned>(N); j += blockDim.x) rank[j] = p.rank[j];

  long long frame[lanes];  // >= 0: decoding; -1: idle (block policy); -2: no frames left
  int it[lanes];
  unsigned live = 0;     // lanes decoding a frame
  unsigned claimed = 0;  // lanes whose next frame thread 0 has claimed but not yet published
  unsigned long long claim = 0;  // thread 0: the first frame of that claim

  // Thread 0 of the slot claims one frame for each lane of `mask` (consecutive, from `claim`), or
  // with `any` false marks them as having none (the counter is past the end already).
  auto claim_frames = [&](unsigned mask, bool any) {
    claimed = mask;
    if (t == 0 && mask)
      claim = any ? atomicAdd(p.next, static_cast<unsigned long long>(__popc(mask))) : p.frames;
  };
  // Thread 0 writes the claimed frames into the queue (-2: none); visible to the slot after a
  // barrier. Every thread of the slot read the entries it overwrites before the sweeps' barriers.
  auto publish = [&]() {
    if (t != 0 || !claimed) return;
    unsigned long long f = claim;
    for (int l = 0; l < lanes; ++l)
      if ((claimed >> l) & 1u) {
        queued[l] = f < p.frames ? static_cast<long long>(f) : -2;
        ++f;
      }
  };
  // Every thread copies its own nodes of the lanes' queued frames into the staging.
  auto prefetch = [&](unsigned mask) {
    for (int l = 0; l < lanes; ++l) {
      if (!((mask >> l) & 1u)) continue;
      const long long f = queued[l];
      if (f < 0) continue;
      const float* llr = p.llr + static_cast<std::size_t>(f) * N + node_base[G - 1];
      float* to = staging + l * N + node_base[G - 1];
      unrolled<0, 8>([&](auto rc) {
        constexpr unsigned j = register_slot<M, G - 1, rc()>::node;
        copy_async_4(to + j, llr + j);
      });
    }
    copy_async_commit();
  };
  // The lanes of `mask` take their queued frames: the reference's start state in those lanes
  // (L_m = the channel from the staging, R = unknown except the frozen R_0, which never changes;
  // L is written before it is read), then thread 0 claims their next frames.
  auto take = [&](unsigned mask) {
    copy_async_wait_all();
    unsigned fresh = 0;
#pragma unroll
    for (int l = 0; l < lanes; ++l) {
      if (!((mask >> l) & 1u)) continue;
      frame[l] = queued[l];
      it[l] = 0;
      if (frame[l] < 0) {
        live &= ~(1u << l);
        continue;
      }
      live |= 1u << l;
      fresh |= 1u << l;
      const float* llr = staging + l * N + node_base[G - 1];
      unrolled<0, 8>([&](auto rc) {
        constexpr int r = rc();
        const float v = llr[register_slot<M, G - 1, r>::node];
        L[M][r] = Rule::with_lane(L[M][r], Rule::from_llr(v, v, l), l);
      });
    }
    const unsigned keep = Rule::keep_mask(fresh);
    unrolled<0, G>([&](auto gc) {
      constexpr int g = gc();
#pragma unroll
      for (int c = layout::first(g) + (g > 0 ? 0 : 1); c < layout::top(g); ++c)
#pragma unroll
        for (int r = 0; r < 8; ++r) R[c][r] = Rule::masked(R[c][r], keep);
      if constexpr (g > 0)
        unrolled<0, 8>([&](auto rc) {
          constexpr int r = rc();
          V& shared_R = column_R(g)[base_above[g] + register_slot<M, g, r>::in_column_below];
          shared_R = Rule::masked(shared_R, keep);
        });
      // Left first, the first sweep reads every L but the channel's before writing it: the
      // columns inside each group and the boundary columns above all groups but the top one
      // (read back from shared memory).
      if constexpr (LeftFirst) {
#pragma unroll
        for (int c = layout::first(g) + 1; c < layout::top(g); ++c)
#pragma unroll
          for (int r = 0; r < 8; ++r) L[c][r] = Rule::masked(L[c][r], keep);
        if constexpr (g + 1 < G)
          unrolled<0, 8>([&](auto rc) {
            constexpr int r = rc();
            V& shared_L =
                column_L(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above];
            shared_L = Rule::masked(shared_L, keep);
          });
      }
    });
    // Once a lane found no frame, the counter is past the end: no more atomics.
    claim_frames(fresh, fresh == mask);
  };

  // The right-to-left sweep: L_s for s = m-1 .. 0, group by group from the top. With `carry`, the
  // sign masks v (the top group's layout on entry) go down with it, through each group's XOR
  // butterflies and the sign columns: v G_N in group 0's layout at the end. Left first, it is the
  // iteration's second sweep: the claims of the last iteration's stops are published before its
  // last barrier and start on their way into the staging after it.
  auto right_to_left = [&](bool carry, unsigned(&v)[8]) {
    unrolled<0, G>([&](auto ic) {
      constexpr int g = G - 1 - ic(), b = layout::first(g), top = layout::top(g);
      if constexpr (g + 1 < G) {  // L (and v) of the column above, which the group above wrote
        unrolled<0, 8>([&](auto rc) {
          constexpr int r = rc();
          L[top][r] = column_L(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above];
        });
        if (carry)
          unrolled<0, 8>([&](auto rc) {
            constexpr int r = rc();
            v[r] = column_sign(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above];
          });
      }
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
      if (carry) xor_butterflies(v, layout::size(g));
      if constexpr (g > 0) {
        unrolled<0, 8>([&](auto rc) {
          constexpr int r = rc();
          const unsigned at = base_above[g] + register_slot<M, g, r>::in_column_below;
          if constexpr (Rule::saturates(b))
            column_L(g)[at] = rule.saturate(L[b][r]);
          else
            column_L(g)[at] = L[b][r];
          if (carry) column_sign(g)[at] = v[r];
        });
        if constexpr (LeftFirst && g == 1) publish();
        __syncthreads();
        if constexpr (LeftFirst && g == 1)
          if (claimed) {
            prefetch(claimed);
            claimed = 0;
          }
      }
      if constexpr (LeftFirst && G == 1) {
        publish();
        __syncthreads();
        if (claimed) {
          prefetch(claimed);
          claimed = 0;
        }
      }
    });
  };
  // The left-to-right sweep: R_(s+1) for s = 0 .. m-1, group by group from the bottom. With
  // `carry`, w = u^ (group 0's layout on entry) goes up with it as u^ G_N (the top group's layout
  // at the end); with `keep_u`, group 0 also leaves u^ (or its transform, with `carry`) in the sign
  // column of boundary 1 for the outputs. Right first, it is the iteration's second sweep: the
  // claims are published before its last barrier, as above.
  auto left_to_right = [&](bool carry, bool keep_u, unsigned(&w)[8]) {
    unrolled<0, G>([&](auto gc) {
      constexpr int g = gc(), b = layout::first(g), top = layout::top(g);
      if constexpr (g > 0)
        unrolled<0, 8>([&](auto rc) {
          constexpr int r = rc();
          R[b][r] = column_R(g)[base_above[g] + register_slot<M, g, r>::in_column_below];
        });
      // L of the column above from shared memory. Right first, group 0 still holds it from the
      // sweep just before; left first, it reads it too, rather than keep 8 registers across the
      // iterations (a third resident block per SM).
      if constexpr (g + 1 < G && (g > 0 || LeftFirst))
        unrolled<0, 8>([&](auto rc) {
          constexpr int r = rc();
          L[top][r] = column_L(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above];
        });
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
          V& stored = column_R(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above];
          if constexpr (Rule::saturates(top))
            stored = rule.saturate(R[top][r]);
          else
            stored = R[top][r];
        });
      if (carry) {
        if constexpr (g > 0)
          unrolled<0, 8>([&](auto rc) {
            constexpr int r = rc();
            w[r] = column_sign(g)[base_above[g] + register_slot<M, g, r>::in_column_below];
          });
        xor_butterflies(w, layout::size(g));
      }
      if constexpr (g + 1 < G)
        if ((g == 0 && keep_u) || carry)
          unrolled<0, 8>([&](auto rc) {
            constexpr int r = rc();
            column_sign(g + 1)[base_below[g + 1] + register_slot<M, g, r>::in_column_above] = w[r];
          });
      if constexpr (!LeftFirst && g + 2 == G) publish();
      if constexpr (g + 1 < G) __syncthreads();
      if constexpr (!LeftFirst && (g + 2 == G || G == 1)) {
        if constexpr (G == 1) {
          publish();
          __syncthreads();
        }
        // The published frames start on their way into the staging.
        if (claimed) {
          prefetch(claimed);
          claimed = 0;
        }
      }
    });
  };
  // u^ of register r of group 0 as a sign mask: hard(L_0 + R_0), a frozen node deciding 0.
  auto decided_u = [&](int r) {
    return (frozen_bits >> r) & 1u ? 0u : Rule::negative_mask(Rule::variable(L[0][r], R[0][r]));
  };
  // The lanes of this slot whose check failed anywhere (bit l: lane l), from this thread's
  // mismatch signs: ORed per warp (a warp's threads of the slot when slots share a warp), one word
  // per warp, rewritten every iteration (read after the barrier, next written after the sweeps'
  // barriers; with G = 1 a slot is one thread).
  auto slot_mismatch = [&](unsigned mismatch_bits) {
    unsigned differ = 0;
#pragma unroll
    for (int l = 0; l < lanes; ++l)
      if (mismatch_bits & Rule::sign_bit(l)) differ |= 1u << l;
    if constexpr (T >= 32) {
      differ = __reduce_or_sync(~0u, differ);
    } else {
#pragma unroll
      for (int o = 1; o < T; o *= 2) differ |= __shfl_xor_sync(~0u, differ, o);
    }
    if (t % 32 == 0) mismatch[t / 32] = differ;
    __syncthreads();
    differ = 0;
#pragma unroll
    for (unsigned i = 0; i < flag_words; ++i) differ |= mismatch[i];
    return differ;
  };

  // The first frames: claimed, published, copied and taken at once.
  claim_frames(all_lanes, true);
  publish();
  __syncthreads();  // the rank table and the queue
  prefetch(all_lanes);
  claimed = 0;
  take(all_lanes);

  for (;;) {
    if (slots == 1 ? live == 0 : !__syncthreads_or(live != 0)) {
      // Nothing decoding in the block: the end, or (block policy) every lane is idle.
      if (p.replace) break;
      unsigned idle = 0;
#pragma unroll
      for (int l = 0; l < lanes; ++l)
        if (frame[l] == -1) idle |= 1u << l;
      if (!__syncthreads_or(idle != 0)) break;
      // Their queued frames were published and copied long ago.
      take(idle);
      continue;
    }

    // One iteration: the two sweeps in the schedule's order, the decisions and the G-matrix check.
    // `differ`: the lanes whose check fails (read only with early stopping). u^ (left first, in
    // group 0) or w (right first, u^ on its way up as u^ G_N): sign masks per register.
    unsigned differ = 0, u[8], w[8];
    if constexpr (LeftFirst) {
      left_to_right(false, false, w);
      // x^ = hard(L_m + R_m) in the top group, then v = x^ G_N down with the second sweep.
      unsigned v[8];
      if (p.early_stop)
#pragma unroll
        for (int r = 0; r < 8; ++r) v[r] = Rule::negative_mask(Rule::variable(L[M][r], R[M][r]));
      right_to_left(p.early_stop, v);
      // The check u^ == x^ G_N, which is u^ G_N == x^, in group 0 (u^: decided_u).
      if (p.early_stop) {
        unsigned mismatch_bits = 0;
#pragma unroll
        for (int r = 0; r < 8; ++r) mismatch_bits |= decided_u(r) ^ v[r];
        differ = slot_mismatch(mismatch_bits);
      }
    } else {
      right_to_left(false, u);
      // u^ from L_0 (final now) and R_0, as sign masks (a frozen node decides 0). They go to the
      // sign column of boundary 1, transformed by group 0's butterflies when w = u^ G_N is wanted
      // (the outputs undo them).
#pragma unroll
      for (int r = 0; r < 8; ++r)
        w[r] = (frozen_bits >> r) & 1u ? 0u : Rule::negative_mask(Rule::variable(L[0][r], R[0][r]));
      left_to_right(p.early_stop || p.systematic, true, w);
      // The top group: x^ = hard(L_m + R_m), and the G-matrix check per lane.
      if (p.early_stop) {
        unsigned mismatch_bits = 0;
#pragma unroll
        for (int r = 0; r < 8; ++r)
          mismatch_bits |= Rule::negative_mask(Rule::variable(L[M][r], R[M][r])) ^ w[r];
        differ = slot_mismatch(mismatch_bits);
      }
    }

    // Lanes that stop: outputs, then (replace) their queued frames, or (block) they idle.
    unsigned stopping = 0;
#pragma unroll
    for (int l = 0; l < lanes; ++l) {
      if (!((live >> l) & 1u)) continue;
      ++it[l];
      if (it[l] == p.max_iterations || (p.early_stop && !((differ >> l) & 1u))) stopping |= 1u << l;
    }
    if (!stopping) continue;
    // The decided bits, sign masks in the layout the outputs read: left first, u^ (group 0) or for
    // a systematic code x^ = hard(L_m + R_m) (the top group); right first, (u^ G_N) from the top
    // group's w (systematic), else u^ from group 0, back from the sign column of boundary 1 (this
    // thread's own words; with one group, w is still u^ or is made so again).
    if (p.bits) {
      if constexpr (LeftFirst) {
#pragma unroll
        for (int r = 0; r < 8; ++r)
          u[r] =
              p.systematic ? Rule::negative_mask(Rule::variable(L[M][r], R[M][r])) : decided_u(r);
      } else {
#pragma unroll
        for (int r = 0; r < 8; ++r) u[r] = w[r];
        if (!p.systematic) {
          if constexpr (G > 1)
            unrolled<0, 8>([&](auto rc) {
              constexpr int r = rc();
              u[r] = column_sign(1)[base_below[1] + register_slot<M, 0, r>::in_column_above];
            });
          if (p.early_stop || p.systematic) xor_butterflies(u, layout::size(0));
        }
      }
    }
#pragma unroll
    for (int l = 0; l < lanes; ++l) {
      if (!((stopping >> l) & 1u)) continue;
      const std::size_t f = static_cast<std::size_t>(frame[l]);
      if (p.iterations && t == 0) p.iterations[f] = static_cast<std::uint32_t>(it[l]);
      if (p.bits)
        unrolled<0, 8>([&](auto rc) {
          constexpr int r = rc();
          const unsigned j = p.systematic ? node_base[G - 1] + register_slot<M, G - 1, r>::node
                                          : node_base[0] + register_slot<M, 0, r>::node;
          const int k = rank[j];
          if (k >= 0) p.bits[f * p.K + k] = (u[r] & Rule::sign_bit(l)) != 0 ? 1 : 0;
        });
      if (p.soft) {
        float* out = p.soft + f * p.soft_stride;
        unrolled<0, 8>([&](auto rc) {
          constexpr int r = rc();
          const unsigned j = p.soft_at_top ? node_base[G - 1] + register_slot<M, G - 1, r>::node
                                           : node_base[0] + register_slot<M, 0, r>::node;
          const float v = p.soft_at_top ? Rule::to_llr(Rule::variable(L[M][r], R[M][r]), l)
                                        : Rule::to_llr(Rule::variable(L[0][r], R[0][r]), l);
          if (p.soft_stride == static_cast<unsigned>(N))
            out[j] = v;
          else if (rank[j] >= 0)
            out[rank[j]] = v;
        });
      }
      frame[l] = -1;
    }
    live &= ~stopping;
    if (p.replace) take(stopping);
  }
}

}  // namespace gpufec::polar::detail
