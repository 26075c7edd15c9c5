// What the CUDA BP engine (bp_engine.cu) keeps beside its launches: a stop that ends launches
// already running, and the sum of the iterations its device-path frames ran.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <span>
#include <thread>
#include <utility>

#include "common/cuda/check.cuh"
#include "common/cuda/device_buffer.cuh"
#include "common/cuda/pinned_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "gpufec/common/stop_token.hpp"
#include "polar/cuda/kernels/bp_kernel.cuh"

namespace gpufec::polar::detail {

// A launch that may be running: its stream and its work counter (device memory).
struct in_flight {
  cudaStream_t stream;
  unsigned long long* counter;
};

// Waits for streams; a stop that comes first sets the work counters of the launches in flight to
// bp_stop_counter (from a stream of its own, beside them), so that they take no more frames and
// end within a codeword's iterations (the memory kernel with poll_stop: one iteration).
class launch_stopper {
 public:
  launch_stopper() : control_(0) {
    stop_value_.reserve(sizeof bp_stop_counter);
    std::memcpy(stop_value_.get(), &bp_stop_counter, sizeof bp_stop_counter);
  }

  // Waits for `stream` (`stop` null or never possible: a plain synchronize). On a stop: the
  // counters of `on_stop` are set again until each of their streams is idle (a launch queued
  // behind the one running zeroes its counter when it starts), then `stopped` is thrown.
  void wait(cudaStream_t stream, const stop_token* stop, std::span<const in_flight> on_stop) {
    if (!stop || !stop->possible()) {
      GPUFEC_CUDA_CHECK(cudaStreamSynchronize(stream));
      return;
    }
    // Yield for the first millisecond (a chunk often ends within it: a sleep would overshoot),
    // then sleep between looks.
    constexpr auto poll = std::chrono::microseconds(50);
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
    while (!idle(stream)) {
      if (stop->requested()) {
        for (bool busy = true; busy;) {
          busy = false;
          for (const in_flight& l : on_stop) {
            if (idle(l.stream)) continue;
            busy = true;
            GPUFEC_CUDA_CHECK(cudaMemcpyAsync(l.counter, stop_value_.get(), sizeof bp_stop_counter,
                                              cudaMemcpyHostToDevice, control_));
          }
          control_.synchronize();
          if (busy) std::this_thread::sleep_for(poll);
        }
        throw stopped();
      }
      if (std::chrono::steady_clock::now() < spin_until)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(poll);
    }
  }

 private:
  static bool idle(cudaStream_t s) {
    const cudaError_t q = cudaStreamQuery(s);
    if (q == cudaErrorNotReady) return false;
    GPUFEC_CUDA_CHECK(q);
    return true;
  }

  cuda::stream control_;            // the stop's writes, beside the running launches
  cuda::pinned_buffer stop_value_;  // bp_stop_counter, the source of those writes
};

// iteration_sum_kernel: a grid-stride loop over frames f = blockIdx.x * blockDim.x + threadIdx.x
// (+ the grid per round); each warp sums its frames' iterations by shuffles and lane 0 adds the
// sum to *total.
__global__ void iteration_sum_kernel(const std::uint32_t* __restrict__ iterations,
                                     unsigned long long frames, unsigned long long* total) {
  unsigned long long mine = 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long f =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       f < frames; f += stride)
    mine += iterations[f];
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if (threadIdx.x % warpSize == 0 && mine) atomicAdd(total, mine);
}

// The iterations run by frames decoded without an iterations array of the caller's: their
// per-frame counts go to slots(), summed on the device by add() (queued after the launch), or
// counted on the host by add_all() when every frame runs them all; take() returns the sum so far.
class iteration_tally {
 public:
  std::uint32_t* slots(std::size_t frames) {
    if (counts_.size() < frames) counts_.resize(frames);
    return counts_.get();
  }
  void add(std::size_t frames, int sm_count, cudaStream_t stream) {
    if (!total_.get()) {
      total_.resize(1);
      GPUFEC_CUDA_CHECK(cudaMemsetAsync(total_.get(), 0, sizeof(unsigned long long), stream));
    }
    const auto blocks = static_cast<unsigned>(
        std::clamp<unsigned long long>((frames + 255) / 256, 1, 4ull * sm_count));
    iteration_sum_kernel<<<blocks, 256, 0, stream>>>(counts_.get(), frames, total_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("iteration_sum_kernel");
  }
  void add_all(std::size_t frames, int iterations) {
    host_ += frames * static_cast<std::uint64_t>(iterations);
  }
  // Waits for the device.
  std::uint64_t take() {
    std::uint64_t sum = std::exchange(host_, 0);
    if (total_.get()) {
      unsigned long long total = 0;
      GPUFEC_CUDA_CHECK(cudaDeviceSynchronize());
      GPUFEC_CUDA_CHECK(cudaMemcpy(&total, total_.get(), sizeof total, cudaMemcpyDeviceToHost));
      total_.zero();
      sum += total;
    }
    return sum;
  }

 private:
  cuda::device_buffer<std::uint32_t> counts_;      // per frame of the last call
  cuda::device_buffer<unsigned long long> total_;  // their sums since the last take
  std::uint64_t host_ = 0;                         // frames that ran every iteration
};

}  // namespace gpufec::polar::detail
