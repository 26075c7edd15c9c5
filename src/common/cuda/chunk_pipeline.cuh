// Host batches through the GPU in chunks of frames, two lanes at a time: chunk c runs on lane
// c mod 2 (its own stream and device buffers), so while one lane's kernel runs, the other lane's
// copies move over the link. Memory is bounded by the chunk size, whatever the batch; a batch of
// fewer than four chunks is cut into four. A family's engine gives the bytes each frame carries
// in and out and a launch function; the pipeline does the rest. Pieces other than whole frames
// (windows of one long frame) run the same way through run_pieces.
//
// Where the copies run from. Page-locked caller memory (cudaHostAlloc, cudaHostRegister) is
// copied straight from and to, at the link's rate, and the host thread only queues work: a lane's
// stream orders its next chunk's copy behind its last one's, so nothing waits but the end.
// Pageable memory is staged through the lane's page-locked buffers by host copies (a pageable
// copy would be synchronous and staged by the driver at a fraction of the link's rate); those
// copies, which the host's memory bandwidth bounds (about 17 GB/s on 16 cores of the H200 host
// against 55 GB/s each way over its link), then bound the whole.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "common/cuda/device_buffer.cuh"
#include "common/cuda/pinned_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "common/host_copy.hpp"
#include "gpufec/common/page_locked.hpp"

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
  // Device bytes (the page-locked staging doubles them on the host, allocated on first use by a
  // pageable batch).
  std::size_t device_bytes() const { return 2 * chunk_ * (in_bytes_ + out_bytes_); }

  // One piece of a run: `in_bytes` bytes from in + in_at go over the link, the launch is told
  // `frames`, then `out_bytes` bytes of the device's output from out_skip on go to out + out_at.
  // Pieces may read overlapping input (windows of one long frame share their overlaps).
  struct piece {
    std::size_t in_at = 0, in_bytes = 0, out_at = 0, out_bytes = 0, out_skip = 0, frames = 0;
  };

  // Runs `frames` frames from `in` (frames * in_bytes) to `out` (frames * out_bytes), calling
  // launch(d_in, d_out, frames_in_chunk, stream) once per chunk; returns when `out` holds every
  // result. A failure (a launch or copy error) leaves no work queued behind.
  template <class Launch>
  void run(const unsigned char* in, std::size_t frames, unsigned char* out, Launch&& launch) {
    // A batch of fewer than kLeastChunks full chunks is cut into that many, so that its copies
    // still overlap kernels.
    const std::size_t chunk =
        std::min(chunk_, std::max<std::size_t>((frames + kLeastChunks - 1) / kLeastChunks, 1));
    std::size_t first = 0;
    run_pieces(
        in, frames * in_bytes_, out, frames * out_bytes_,
        [&]() -> std::optional<piece> {
          if (first >= frames) return std::nullopt;
          const std::size_t n = std::min(chunk, frames - first);
          const piece p{first * in_bytes_, n * in_bytes_, first * out_bytes_, n * out_bytes_, 0, n};
          first += n;
          return p;
        },
        [&](const unsigned char* d_in, unsigned char* d_out, const piece& p, cudaStream_t queue) {
          launch(d_in, d_out, p.frames, queue);
        });
  }

  // Runs the pieces next() gives until it gives none, from `in` (in_total bytes) to `out`
  // (out_total bytes): each piece's input at most chunk_frames * in_bytes, its output (out_skip
  // included) at most chunk_frames * out_bytes. launch(d_in, d_out, piece, stream) queues its
  // work; returns when `out` holds every result.
  template <class Next, class Launch>
  void run_pieces(const unsigned char* in, std::size_t in_total, unsigned char* out,
                  std::size_t out_total, Next&& next, Launch&& launch) {
    const bool staged_in = !page_locked(in, in_total);
    const bool staged_out = !page_locked(out, out_total);
    for (lane& l : lanes_) {
      if (staged_in) l.in.reserve(chunk_ * in_bytes_);
      if (staged_out) l.out.reserve(chunk_ * out_bytes_);
      l.pending = {};
    }
    try {
      for (std::size_t c = 0;; ++c) {
        const std::optional<piece> p = next();
        if (!p) break;
        if (p->in_bytes > chunk_ * in_bytes_ || p->out_skip + p->out_bytes > chunk_ * out_bytes_)
          throw std::logic_error("chunk_pipeline: a piece exceeds the lane's buffers");
        lane& l = lanes_[c % 2];
        // The lane's staging is free again once its piece in flight is done (staged copies).
        if (staged_in || staged_out) finish(l, out);
        const unsigned char* from = in + p->in_at;
        if (staged_in) {
          host_copy(l.in.get(), from, p->in_bytes);
          from = l.in.get();
        }
        GPUFEC_CUDA_CHECK(
            cudaMemcpyAsync(l.d_in.get(), from, p->in_bytes, cudaMemcpyHostToDevice, l.queue));
        launch(static_cast<const unsigned char*>(l.d_in.get()), l.d_out.get(), *p,
               static_cast<cudaStream_t>(l.queue));
        if (p->out_bytes)
          GPUFEC_CUDA_CHECK(cudaMemcpyAsync(staged_out ? l.out.get() : out + p->out_at,
                                            l.d_out.get() + p->out_skip, p->out_bytes,
                                            cudaMemcpyDeviceToHost, l.queue));
        l.pending = staged_out ? *p : piece{};  // a direct piece has nothing left to move
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
    piece pending;  // the staged piece in flight (out_bytes 0: none)
  };

  // Waits for the lane's piece in flight and moves its staged results to `out`.
  void finish(lane& l, unsigned char* out) {
    l.queue.synchronize();
    if (!l.pending.out_bytes) return;
    host_copy(out + l.pending.out_at, l.out.get(), l.pending.out_bytes);
    l.pending = {};
  }

  // Whether [p, p + bytes) is page-locked host memory, judged by its first and last bytes (a range
  // that only begins or ends in a registration is staged).
  static bool page_locked(const void* p, std::size_t bytes) {
    return bytes > 0 && is_page_locked(p) &&
           is_page_locked(static_cast<const unsigned char*>(p) + bytes - 1);
  }

  static constexpr std::size_t kLeastChunks = 4;
  std::size_t chunk_ = 1, in_bytes_ = 0, out_bytes_ = 0;
  lane lanes_[2];
};

}  // namespace gpufec::cuda
