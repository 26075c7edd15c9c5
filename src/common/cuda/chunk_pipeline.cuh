// Host batches through the GPU in chunks of frames, two lanes at a time: chunk c runs on lane
// c mod 2 (its own stream, page-locked staging and device buffers), so while one lane's kernel
// runs, the other lane's copies move over the link and the host stages the next chunk's input
// into page-locked memory (pageable copies would be synchronous and staged by the driver). Memory
// is bounded by the chunk size, whatever the batch. A family's engine gives the bytes each frame
// carries in and out and a launch function; the pipeline does the rest.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "common/cuda/device_buffer.cuh"
#include "common/cuda/pinned_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "common/host_copy.hpp"

namespace gpufec::cuda {

class chunk_pipeline {
 public:
  chunk_pipeline() = default;
  // Chunks of at most `chunk_frames` frames of `in_bytes` in and `out_bytes` out each.
  chunk_pipeline(std::size_t chunk_frames, std::size_t in_bytes, std::size_t out_bytes)
      : chunk_(std::max<std::size_t>(chunk_frames, 1)), in_bytes_(in_bytes), out_bytes_(out_bytes) {
    for (lane& l : lanes_) {
      l.queue = stream(0);
      l.d_in.resize(chunk_ * in_bytes_);
      l.d_out.resize(chunk_ * out_bytes_);
    }
  }

  std::size_t chunk_frames() const { return chunk_; }
  // Device bytes (the page-locked staging doubles them on the host, allocated on first use).
  std::size_t device_bytes() const { return 2 * chunk_ * (in_bytes_ + out_bytes_); }

  // Runs `frames` frames from `in` (frames * in_bytes) to `out` (frames * out_bytes), calling
  // launch(d_in, d_out, frames_in_chunk, stream) once per chunk; returns when `out` holds every
  // result. A failure (a launch or copy error) leaves no work queued behind.
  template <class Launch>
  void run(const unsigned char* in, std::size_t frames, unsigned char* out, Launch&& launch) {
    for (lane& l : lanes_) {
      l.in.reserve(chunk_ * in_bytes_);
      l.out.reserve(chunk_ * out_bytes_);
      l.frames = 0;
    }
    try {
      std::size_t c = 0;
      for (std::size_t first = 0; first < frames; first += chunk_, ++c) {
        lane& l = lanes_[c % 2];
        finish(l, out);
        const std::size_t n = std::min(chunk_, frames - first);
        host_copy(l.in.get(), in + first * in_bytes_, n * in_bytes_);
        GPUFEC_CUDA_CHECK(cudaMemcpyAsync(l.d_in.get(), l.in.get(), n * in_bytes_,
                                          cudaMemcpyHostToDevice, l.queue));
        launch(static_cast<const unsigned char*>(l.d_in.get()), l.d_out.get(), n,
               static_cast<cudaStream_t>(l.queue));
        GPUFEC_CUDA_CHECK(cudaMemcpyAsync(l.out.get(), l.d_out.get(), n * out_bytes_,
                                          cudaMemcpyDeviceToHost, l.queue));
        l.first = first;
        l.frames = n;
      }
      for (lane& l : lanes_) finish(l, out);
    } catch (...) {
      for (lane& l : lanes_) (void)cudaStreamSynchronize(l.queue);
      throw;
    }
  }

 private:
  struct lane {
    stream queue;
    pinned_buffer in, out;
    device_buffer<unsigned char> d_in, d_out;
    std::size_t first = 0, frames = 0;  // the chunk in flight
  };

  // Waits for the lane's chunk in flight and moves its results to `out`.
  void finish(lane& l, unsigned char* out) {
    if (!l.frames) return;
    l.queue.synchronize();
    host_copy(out + l.first * out_bytes_, l.out.get(), l.frames * out_bytes_);
    l.frames = 0;
  }

  std::size_t chunk_ = 1, in_bytes_ = 0, out_bytes_ = 0;
  lane lanes_[2];
};

}  // namespace gpufec::cuda
