// Host batches through the GPU in chunks of frames, two lanes at a time: chunk c runs on lane
// c mod 2 (its own stream and device buffers), so while one lane's kernel runs, the other lane's
// copies move over the link. Memory is bounded by the chunk size, whatever the batch; a batch of
// fewer than four chunks is cut into four. A family's engine gives the bytes each frame carries
// in and out (one input, up to two outputs: decisions and, say, iteration counts) and a launch
// function; the pipeline does the rest. Pieces other than whole frames (windows of one long
// frame) run the same way through run_pieces, and a stream whose pieces arrive one at a time
// (windows of a continuous stream) through input_staging / submit / drain. Every family's host
// path runs through this one pipeline (conv batches and streams, polar BP); sync's engine cuts a
// chunk into parts of decreasing size inside one CUDA graph instead (sync/cuda/pipeline.cu).
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
#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>

#include "common/cuda/device_buffer.cuh"
#include "common/cuda/pinned_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "common/host_copy.hpp"
#include "gpufec/common/align.hpp"
#include "gpufec/common/page_locked.hpp"

namespace gpufec::cuda {

class chunk_pipeline {
 public:
  static constexpr std::size_t kOutputs = 2;
  using output_bytes = std::array<std::size_t, kOutputs>;
  using host_outputs = std::array<unsigned char*, kOutputs>;

  // Chunks of at most `chunk_frames` frames of `in_bytes` in and out_bytes[k] out of output k.
  chunk_pipeline(std::size_t chunk_frames, std::size_t in_bytes, output_bytes out_bytes)
      : chunk_(std::max<std::size_t>(chunk_frames, 1)), in_bytes_(in_bytes), out_bytes_(out_bytes) {
    const std::size_t out_total = lay_out(chunk_, out_bytes_, out_at_);
    for (lane& l : lanes_) {
      l.queue = stream(0);
      l.d_in.resize(chunk_ * in_bytes_);
      l.d_out.resize(out_total);
    }
  }
  chunk_pipeline(std::size_t chunk_frames, std::size_t in_bytes, std::size_t out_bytes)
      : chunk_pipeline(chunk_frames, in_bytes, output_bytes{out_bytes, 0}) {}

  std::size_t chunk_frames() const { return chunk_; }
  // Device bytes (the page-locked staging doubles them on the host, allocated on first use).
  std::size_t device_bytes() const {
    return 2 * (lanes_[0].d_in.bytes() + lanes_[0].d_out.bytes());
  }
  // What device_bytes() is for these arguments, before making one (a plan's memory count).
  static std::size_t device_bytes_for(std::size_t chunk_frames, std::size_t in_bytes,
                                      output_bytes out_bytes) {
    const std::size_t chunk = std::max<std::size_t>(chunk_frames, 1);
    output_bytes at{};
    return 2 * (chunk * in_bytes + lay_out(chunk, out_bytes, at));
  }
  std::size_t host_bytes() const {
    return lanes_[0].in.bytes() + lanes_[0].out.bytes() + lanes_[1].in.bytes() +
           lanes_[1].out.bytes();
  }
  cudaStream_t lane_stream(int lane) const { return lanes_[lane].queue; }

  // Output k of a piece: `bytes` bytes of the device's output from `skip` on go to out[k] + at.
  struct output_range {
    std::size_t at = 0, bytes = 0, skip = 0;
  };
  // One piece of a run: `in_bytes` bytes from in + in_at go over the link, the launch is told
  // `frames`, then each output's range comes back. Pieces may read overlapping input (windows of
  // one long frame share their overlaps).
  struct piece {
    std::size_t in_at = 0, in_bytes = 0;
    std::array<output_range, kOutputs> out{};
    std::size_t frames = 0;
  };
  // What a launch works on: the lane's device input and outputs (null: an output not wanted),
  // the piece's frames, and the lane (0 or 1) and its stream.
  struct lane_work {
    const unsigned char* in = nullptr;
    std::array<unsigned char*, kOutputs> out{};
    std::size_t frames = 0;
    int lane = 0;
    cudaStream_t stream = nullptr;
  };
  // How the pipeline waits for a lane unless told otherwise.
  struct synchronize {
    void operator()(cudaStream_t s) const { GPUFEC_CUDA_CHECK(cudaStreamSynchronize(s)); }
  };

  // Runs `frames` frames from `in` (frames * in_bytes) to out[k] (frames * out_bytes[k]; null:
  // not wanted), calling launch(lane_work) once per chunk; waits for a lane through
  // wait(stream); returns when the outputs hold every result. A failure (a launch or copy error,
  // or what launch or wait throws) leaves no work queued behind.
  template <class Launch, class Wait = synchronize>
  void run(const unsigned char* in, std::size_t frames, host_outputs out, Launch&& launch,
           Wait&& wait = {}) {
    // A batch of fewer than kLeastChunks full chunks is cut into that many, so that its copies
    // still overlap kernels.
    const std::size_t chunk =
        std::min(chunk_, std::max<std::size_t>((frames + kLeastChunks - 1) / kLeastChunks, 1));
    std::size_t first = 0;
    output_bytes totals{};
    for (std::size_t k = 0; k < kOutputs; ++k) totals[k] = frames * out_bytes_[k];
    run_pieces(
        in, frames * in_bytes_, out, totals,
        [&]() -> std::optional<piece> {
          if (first >= frames) return std::nullopt;
          piece p;
          p.frames = std::min(chunk, frames - first);
          p.in_at = first * in_bytes_;
          p.in_bytes = p.frames * in_bytes_;
          for (std::size_t k = 0; k < kOutputs; ++k)
            p.out[k] = {first * out_bytes_[k], p.frames * out_bytes_[k], 0};
          first += p.frames;
          return p;
        },
        [&](const lane_work& w, const piece&) { launch(w); }, wait);
  }

  // Runs the pieces next() gives until it gives none, from `in` (in_total bytes) to out[k]
  // (out_total[k] bytes): each piece's input at most chunk_frames * in_bytes, its output k (skip
  // included) at most chunk_frames * out_bytes[k]. launch(lane_work, piece) queues its work;
  // returns when the outputs hold every result.
  template <class Next, class Launch, class Wait = synchronize>
  void run_pieces(const unsigned char* in, std::size_t in_total, host_outputs out,
                  output_bytes out_total, Next&& next, Launch&& launch, Wait&& wait = {}) {
    const bool staged_in = !page_locked(in, in_total);
    host_outputs direct{};  // the outputs copied straight to the caller
    bool staged_out = false;
    for (std::size_t k = 0; k < kOutputs; ++k) {
      if (!out[k]) continue;
      if (page_locked(out[k], out_total[k]))
        direct[k] = out[k];
      else
        staged_out = true;
    }
    for (lane& l : lanes_) {
      if (staged_in) l.in.reserve(chunk_ * in_bytes_);
      if (staged_out) l.out.reserve(l.d_out.bytes());
      l.pending = {};
    }
    const auto to_caller = [&](std::size_t k, const unsigned char* staged, const output_range& r) {
      host_copy(out[k] + r.at, staged, r.bytes);
    };
    current_ = 0;
    try {
      while (const std::optional<piece> p = next()) {
        bool fits = p->in_bytes <= chunk_ * in_bytes_;
        for (std::size_t k = 0; k < kOutputs; ++k)
          fits = fits && p->out[k].skip + p->out[k].bytes <= chunk_ * out_bytes_[k];
        if (!fits) throw std::logic_error("chunk_pipeline: a piece exceeds the lane's buffers");
        lane& l = lanes_[current_];
        // The lane's staging is free again once its piece in flight is done (staged copies).
        if (staged_in || staged_out) finish(l, wait, to_caller);
        const unsigned char* from = in + p->in_at;
        if (staged_in) {
          host_copy(l.in.get(), from, p->in_bytes);
          from = l.in.get();
        }
        host_outputs to{};
        for (std::size_t k = 0; k < kOutputs; ++k)
          if (out[k]) to[k] = direct[k] ? direct[k] + p->out[k].at : l.out.get() + out_at_[k];
        queue(l, from, *p, to, direct, launch);
        current_ ^= 1;
      }
      for (lane& l : lanes_) finish(l, wait, to_caller);
    } catch (...) {
      abandon();
      throw;
    }
  }

  // Reserves both lanes' page-locked staging now (else on first use).
  void reserve_staging() {
    for (lane& l : lanes_) {
      l.in.reserve(chunk_ * in_bytes_);
      l.out.reserve(l.d_out.bytes());
    }
  }
  // A stream of pieces that arrive one at a time: the caller writes a piece's input (at most
  // chunk_frames * in_bytes) into input_staging(), the current lane's page-locked buffer, then
  // submit() queues its copy in, launch(lane_work, piece) and its outputs' copies back, moves to
  // the other lane, waits for that lane's piece and hands its outputs to sink(k, bytes, range) in
  // submission order. The staging just submitted stays readable (not writable) until the next
  // submit(). drain(sink) hands over the piece still in flight.
  unsigned char* input_staging() {
    lane& l = lanes_[current_];
    l.in.reserve(chunk_ * in_bytes_);
    return l.in.get();
  }
  template <class Launch, class Sink>
  void submit(const piece& p, Launch&& launch, Sink&& sink) {
    lane& l = lanes_[current_];
    try {
      l.out.reserve(l.d_out.bytes());
      host_outputs to{};
      for (std::size_t k = 0; k < kOutputs; ++k)
        if (out_bytes_[k]) to[k] = l.out.get() + out_at_[k];
      queue(l, l.in.get(), p, to, host_outputs{}, launch);
    } catch (...) {
      abandon();
      throw;
    }
    current_ ^= 1;
    finish(lanes_[current_], synchronize{}, sink);
  }
  template <class Sink>
  void drain(Sink&& sink) {
    finish(lanes_[current_], synchronize{}, sink);
    finish(lanes_[current_ ^ 1], synchronize{}, sink);
  }

  // Waits for both lanes, whatever they hold (a failure's way out; the destructor's).
  void abandon() noexcept {
    for (lane& l : lanes_)
      if (l.queue) (void)cudaStreamSynchronize(l.queue);
  }
  ~chunk_pipeline() { abandon(); }
  chunk_pipeline(const chunk_pipeline&) = delete;
  chunk_pipeline& operator=(const chunk_pipeline&) = delete;

 private:
  struct lane {
    stream queue;
    pinned_buffer in, out;
    device_buffer<unsigned char> d_in, d_out;
    piece pending;  // the staged outputs in flight (bytes 0: none)
  };

  // Where each output's region of a lane starts (`at`), one after another, each on 16 bytes
  // whatever the one before holds (bytes, then words); returns their total.
  static std::size_t lay_out(std::size_t chunk, const output_bytes& out_bytes, output_bytes& at) {
    std::size_t end = 0;
    for (std::size_t k = 0; k < kOutputs; ++k) {
      at[k] = k ? align16(end) : 0;
      end = at[k] + chunk * out_bytes[k];
    }
    return end;
  }

  // Queues piece p on lane l: its input from `from` (page-locked), the launch, and each wanted
  // output (to[k] non-null) back to to[k]; the outputs not in `direct` stay pending in the lane's
  // staging until finish().
  template <class Launch>
  void queue(lane& l, const unsigned char* from, const piece& p, const host_outputs& to,
             const host_outputs& direct, Launch&& launch) {
    GPUFEC_CUDA_CHECK(
        cudaMemcpyAsync(l.d_in.get(), from, p.in_bytes, cudaMemcpyHostToDevice, l.queue));
    lane_work w;
    w.in = l.d_in.get();
    w.frames = p.frames;
    w.lane = static_cast<int>(&l - lanes_);
    w.stream = l.queue;
    for (std::size_t k = 0; k < kOutputs; ++k)
      if (to[k]) w.out[k] = l.d_out.get() + out_at_[k];
    launch(w, p);
    l.pending = {};
    for (std::size_t k = 0; k < kOutputs; ++k) {
      if (!to[k] || !p.out[k].bytes) continue;
      GPUFEC_CUDA_CHECK(cudaMemcpyAsync(to[k], w.out[k] + p.out[k].skip, p.out[k].bytes,
                                        cudaMemcpyDeviceToHost, l.queue));
      if (!direct[k]) l.pending.out[k] = p.out[k];
    }
  }

  // Waits for lane l and hands its staged outputs in flight to sink(k, staged bytes, range).
  template <class Wait, class Sink>
  void finish(lane& l, Wait&& wait, Sink&& sink) {
    wait(static_cast<cudaStream_t>(l.queue));
    for (std::size_t k = 0; k < kOutputs; ++k) {
      const output_range r = l.pending.out[k];
      l.pending.out[k] = {};
      if (r.bytes) sink(k, static_cast<const unsigned char*>(l.out.get()) + out_at_[k], r);
    }
  }

  // Whether [p, p + bytes) is page-locked host memory, judged by its first and last bytes (a range
  // that only begins or ends in a registration is staged).
  static bool page_locked(const void* p, std::size_t bytes) {
    return bytes > 0 && is_page_locked(p) &&
           is_page_locked(static_cast<const unsigned char*>(p) + bytes - 1);
  }

  static constexpr std::size_t kLeastChunks = 4;
  std::size_t chunk_ = 1, in_bytes_ = 0;
  output_bytes out_bytes_{}, out_at_{};
  lane lanes_[2];
  int current_ = 0;
};

}  // namespace gpufec::cuda
