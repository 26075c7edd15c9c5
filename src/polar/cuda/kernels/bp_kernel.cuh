// The CUDA BP memory kernel: the schedules of bp_reference.cpp on many codewords at once, every
// message in shared or global memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "polar/cuda/kernels/bp_rules.cuh"

namespace gpufec::polar::detail {

// One launch's frames and outputs, and the work counter: what both BP kernels take per call.
struct bp_batch_params {
  const float* llr = nullptr;           // [frame][N], device
  std::uint8_t* bits = nullptr;         // [frame][K] or null
  float* soft = nullptr;                // [frame][soft_stride] or null
  std::uint32_t* iterations = nullptr;  // [frame] or null
  unsigned long long frames = 0;
  unsigned long long* next = nullptr;    // the next frame to take (zeroed before each launch)
  const std::uint8_t* frozen = nullptr;  // [N]
};

// A stop: the host sets a launch's work counter to this (beyond any batch) while it runs, so that
// every slot's next claim finds no frame and the launch ends after the codewords in hand; the
// memory kernel with poll_stop also leaves between two iterations of them.
inline constexpr unsigned long long bp_stop_counter = 1ull << 62;

struct bp_kernel_params : bp_batch_params {
  const std::uint32_t* info = nullptr;  // [K], ascending
  unsigned char* scratch = nullptr;     // global layout: slot regions; null: shared layout
  std::size_t slot_bytes = 0;           // one codeword's region (see the kernel)
  unsigned N = 0, K = 0, m = 0;
  unsigned T = 0;             // threads per codeword (a power of two, <= N / 2)
  unsigned slots = 0;         // codewords per block (blockDim.x = T * slots)
  unsigned header_bytes = 0;  // shared: slot frames and mismatch flags, 16-aligned
  unsigned soft_stride = 0, soft_column = 0;
  int max_iterations = 0;
  bool early_stop = false, systematic = false, replace = true;
  bool left_first = true;  // the lr-rl schedule (else rl-lr)
  // Look for bp_stop_counter every iteration (codes long enough for one codeword's iterations to
  // take a noticeable time; shorter ones stop at their next claim).
  bool poll_stop = false;
};

// The bytes of one codeword's region: L and R, (m + 1) N floats each, then u^, x^ and u^ G_N,
// N bytes each; rounded up to 16.
inline std::size_t bp_slot_bytes(std::uint32_t N, std::uint32_t m) {
  const std::size_t bytes = 2 * static_cast<std::size_t>(m + 1) * N * sizeof(float) + 3 * N;
  return (bytes + 15) / 16 * 16;
}
inline unsigned bp_header_bytes(unsigned slots) {
  return (slots * 12 + 15) / 16 * 16;
}

// polar_bp_kernel. Index map: block b holds `slots` codeword slots; thread x of the block is
// thread t = x mod T of slot x / T. A slot takes the next frame from the work counter (replace:
// as soon as its frame is done; block: when every slot of the block is done), runs iterations on
// it and writes its outputs when it stops. Within a stage, thread t of a slot computes butterflies
// b = t, t + T, ... < N/2, butterfly b of span h = 2^s joining node j = (b >> s) 2h + (b mod h)
// and j + h. Shared memory: header (slot frame as long long, mismatch flag as int: 12 B per slot,
// rounded to 16) + (shared layout) slots * slot_bytes, slot region = L[(m+1) N] f32, R[(m+1) N]
// f32, u^[N], x^[N], w[N] u8 (w = u^ G_N). Global layout: the regions live in `scratch`, region
// of slot x / T of block b at (b slots + x / T) slot_bytes; the header stays in shared memory.
// Why the result is the CPU's: each message is written by the same f / (+) / saturate of the
// same operands in the same order as bp_reference (bp_rules.cuh), stages are separated by
// __syncthreads (all butterflies of a stage read only columns the stage does not write), and the
// decisions, the G-matrix check and the outputs follow decide()/decode_one() step for step.
// Barriers: every thread runs every loop (bounds depend on m and the plan only); work is
// predicated on the slot holding a frame, so no barrier is divergent. A stop seen by thread 0
// (poll_stop) reaches every thread through the barrier's reduction, so all leave together.
template <class Rule>
__global__ void __launch_bounds__(1024) polar_bp_kernel(bp_kernel_params p, Rule rule) {
  extern __shared__ __align__(16) unsigned char shared[];
  auto* frame_of = reinterpret_cast<long long*>(shared);
  auto* mismatch = reinterpret_cast<int*>(shared + 8 * p.slots);
  const unsigned slot = threadIdx.x / p.T, t = threadIdx.x % p.T;
  const unsigned N = p.N, m = p.m, half = N / 2;
  unsigned char* region =
      p.scratch ? p.scratch + (static_cast<std::size_t>(blockIdx.x) * p.slots + slot) * p.slot_bytes
                : shared + p.header_bytes + static_cast<std::size_t>(slot) * p.slot_bytes;
  float* L = reinterpret_cast<float*>(region);
  float* R = L + static_cast<std::size_t>(m + 1) * N;
  std::uint8_t* u_hat = reinterpret_cast<std::uint8_t*>(R + static_cast<std::size_t>(m + 1) * N);
  std::uint8_t* x_hat = u_hat + N;
  std::uint8_t* w = x_hat + N;
  float* Lm = L + static_cast<std::size_t>(m) * N;
  float* Rm = R + static_cast<std::size_t>(m) * N;

  if (threadIdx.x < p.slots) frame_of[threadIdx.x] = -1;  // -1: free, -2: no frames left
  long long frame = -1;
  int it = 0;
  __syncthreads();
  for (;;) {
    // Refill: free slots take frames from the counter.
    if (p.replace) {
      if (t == 0 && frame_of[slot] == -1) {
        const unsigned long long f = atomicAdd(p.next, 1ull);
        frame_of[slot] = f < p.frames ? static_cast<long long>(f) : -2;
      }
    } else if (__syncthreads_and(frame < 0) && threadIdx.x == 0) {
      const unsigned long long base = atomicAdd(p.next, static_cast<unsigned long long>(p.slots));
      for (unsigned s = 0; s < p.slots; ++s)
        frame_of[s] = base + s < p.frames ? static_cast<long long>(base + s) : -2;
    }
    if (p.poll_stop) {
      if (__syncthreads_or(threadIdx.x == 0 && *static_cast<volatile const unsigned long long*>(
                                                   p.next) >= bp_stop_counter))
        break;
    } else {
      __syncthreads();
    }
    const long long fetched = frame_of[slot];
    if (fetched != frame) it = 0;
    frame = fetched;
    if (!__syncthreads_or(frame >= 0)) break;
    const bool active = frame >= 0;

    if (active && it == 0) {  // a new frame: the reference's start state
      const float* llr = p.llr + static_cast<std::size_t>(frame) * N;
      for (std::size_t j = t; j < static_cast<std::size_t>(m) * N; j += p.T) {
        L[j] = Rule::unknown();
        R[j + N] = Rule::unknown();
      }
      for (unsigned j = t; j < N; j += p.T) {
        Lm[j] = Rule::from_llr(llr[j]);
        R[j] = p.frozen[j] ? Rule::frozen() : Rule::unknown();
      }
    }
    __syncthreads();

    // One iteration: R_(s+1) for s = 0 .. m-1, then L_s for s = m-1 .. 0 (lr-rl), or the two in the
    // other order (rl-lr).
    auto right_to_left = [&] {
      for (unsigned s = m; s-- > 0;) {
        if (active) {
          const unsigned h = 1u << s;
          float* Ls = L + static_cast<std::size_t>(s) * N;
          const float* Ln = Ls + N;
          const float* Rs = R + static_cast<std::size_t>(s) * N;
          for (unsigned b = t; b < half; b += p.T) {
            const unsigned j = ((b >> s) << (s + 1)) | (b & (h - 1));
            const float ln_top = Ln[j], ln_bottom = Ln[j + h], rs_top = Rs[j],
                        rs_bottom = Rs[j + h];
            Ls[j] = Rule::saturate(rule.check(ln_top, Rule::variable(ln_bottom, rs_bottom)));
            Ls[j + h] = Rule::saturate(Rule::variable(rule.check(ln_top, rs_top), ln_bottom));
          }
        }
        __syncthreads();
      }
    };
    auto left_to_right = [&] {
      for (unsigned s = 0; s < m; ++s) {
        if (active) {
          const unsigned h = 1u << s;
          const float* Ln = L + static_cast<std::size_t>(s + 1) * N;
          const float* Rs = R + static_cast<std::size_t>(s) * N;
          float* Rn = R + static_cast<std::size_t>(s + 1) * N;
          for (unsigned b = t; b < half; b += p.T) {
            const unsigned j = ((b >> s) << (s + 1)) | (b & (h - 1));
            const float ln_top = Ln[j], ln_bottom = Ln[j + h], rs_top = Rs[j],
                        rs_bottom = Rs[j + h];
            Rn[j] = Rule::saturate(rule.check(rs_top, Rule::variable(ln_bottom, rs_bottom)));
            Rn[j + h] = Rule::saturate(Rule::variable(rule.check(rs_top, ln_top), rs_bottom));
          }
        }
        __syncthreads();
      }
    };
    if (p.left_first) {
      left_to_right();
      right_to_left();
    } else {
      right_to_left();
      left_to_right();
    }
    if (active) ++it;

    // Decisions (after an iteration that may stop the frame), then w = u^ G_N by m XOR stages.
    const bool last = active && it == p.max_iterations;
    const bool check = active && p.early_stop && !last;
    const bool decide = check || last;
    if (decide) {
      for (unsigned j = t; j < N; j += p.T) {
        const std::uint8_t u = p.frozen[j] ? 0 : Rule::hard(Rule::variable(L[j], R[j]));
        u_hat[j] = u;
        w[j] = u;
        x_hat[j] = Rule::hard(Rule::variable(Lm[j], Rm[j]));
      }
      if (t == 0) mismatch[slot] = 0;
    }
    __syncthreads();
    // (lr-rl decides x^_A for a systematic code: no transform at the last iteration.)
    if (p.early_stop || (p.systematic && !p.left_first)) {
      const bool transform = check || (last && p.systematic && !p.left_first);
      for (unsigned s = 0; s < m; ++s) {
        if (transform) {
          const unsigned h = 1u << s;
          for (unsigned b = t; b < half; b += p.T) {
            const unsigned j = ((b >> s) << (s + 1)) | (b & (h - 1));
            w[j] ^= w[j + h];
          }
        }
        __syncthreads();
      }
    }
    if (p.early_stop) {
      if (check) {
        bool differ = false;
        for (unsigned j = t; j < N; j += p.T) differ |= w[j] != x_hat[j];
        if (differ) atomicOr(&mismatch[slot], 1);
      }
      __syncthreads();
    }
    const bool done = last || (check && mismatch[slot] == 0);
    if (done) {
      const std::size_t f = static_cast<std::size_t>(frame);
      if (p.iterations && t == 0) p.iterations[f] = static_cast<std::uint32_t>(it);
      if (p.bits) {
        const std::uint8_t* decided = !p.systematic ? u_hat : p.left_first ? x_hat : w;
        for (unsigned k = t; k < p.K; k += p.T) p.bits[f * p.K + k] = decided[p.info[k]];
      }
      if (p.soft) {
        float* out = p.soft + f * p.soft_stride;
        const float* Lc = L + static_cast<std::size_t>(p.soft_column) * N;
        const float* Rc = R + static_cast<std::size_t>(p.soft_column) * N;
        if (p.soft_stride == N)
          for (unsigned j = t; j < N; j += p.T) out[j] = Rule::to_llr(Rule::variable(Lc[j], Rc[j]));
        else
          for (unsigned k = t; k < p.K; k += p.T) {
            const unsigned j = p.info[k];
            out[k] = Rule::to_llr(Rule::variable(Lc[j], Rc[j]));
          }
      }
      if (t == 0) frame_of[slot] = -1;
      frame = -1;
    }
    __syncthreads();
  }
}

}  // namespace gpufec::polar::detail
