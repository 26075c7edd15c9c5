// The CUDA runner of the tiled stream decoder (stream_tiles.hpp): windows of a continuous stream
// through the tiled kernels on two lanes. Window c runs on lane c mod 2 (its own stream,
// page-locked staging and device buffers): the stream decoder writes the window's values into the
// lane's page-locked staging as they arrive, run() queues the copy in, the kernel and the copy of
// the decided bits out, and switches to the other lane, first waiting for that lane's window (the
// one before) and handing its bits over. So while one window's kernel runs, the next window's
// values are staged on the host and copied in, and bits leave in stream order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "common/cuda/device_buffer.cuh"
#include "common/cuda/pinned_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "common/host_copy.hpp"
#include "conv/cuda/policy.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "conv/stream/stream_tiles.hpp"

namespace gpufec::conv::detail {
namespace {

class cuda_window_runner final : public window_runner {
 public:
  explicit cuda_window_runner(const cuda_window_setup& setup)
      : tile_(setup.tile.f ? setup.tile
                           : default_device_tile(setup.code, setup.pattern, setup.kernel)) {
    // The tile engine with a frame of one tile (what sizes its register ring) and no host-batch
    // pipeline: the windows come with their own geometry.
    const tiled_setup tiles{
        setup.code,
        setup.pattern,
        make_frame_shape(setup.code, setup.pattern, tile_.stages(), termination::truncated),
        termination::truncated,
        tile_,
        0,
        setup.kernel};
    engine_ = make_device_engine(tiles, "the CUDA conv stream decoder");
    // By default whole waves of resident tiles per window, at least two, as the host-batch
    // pipeline's chunks, and at least 32 MB of values: so a window's kernel fills the device
    // (no last wave runs part full) and the next window's copies hide behind it.
    window_tiles_ =
        tiles_for(tile_, setup.window_stages,
                  device_window_tiles(tile_, setup.pattern, engine_->plan().resident_tiles,
                                      policy::stream_window_waves));
  }

  ~cuda_window_runner() override {
    for (lane& l : lanes_)
      if (l.queue) (void)cudaStreamSynchronize(l.queue);
  }

  std::size_t window_tiles() const override { return window_tiles_; }
  tile_shape tile() const override { return tile_; }

  void allocate(const stream_tiling& tiling) override {
    for (lane& l : lanes_) {
      l.queue = cuda::stream(0);
      l.in.reserve(tiling.max_values());
      l.out.reserve(tiling.max_stages());
      l.d_in.resize(tiling.max_values());
      l.d_out.resize(tiling.max_stages());
    }
    host_bytes_ = 2 * (tiling.max_values() + tiling.max_stages());
    device_bytes_ = host_bytes_;
  }

  std::int8_t* staging() override {
    return reinterpret_cast<std::int8_t*>(lanes_[current_].in.get());
  }

  void run(const stream_window& w, std::vector<std::uint8_t>& decided) override {
    lane& l = lanes_[current_];
    try {
      GPUFEC_CUDA_CHECK(
          cudaMemcpyAsync(l.d_in.get(), l.in.get(), w.values, cudaMemcpyHostToDevice, l.queue));
      engine_->decode_window(l.d_in.get(), {w.stages, w.values, w.grid, w.tiles, w.open_start()},
                             l.d_out.get(), l.queue);
      GPUFEC_CUDA_CHECK(cudaMemcpyAsync(l.out.get(), l.d_out.get() + w.grid, w.decoded,
                                        cudaMemcpyDeviceToHost, l.queue));
    } catch (...) {
      for (lane& other : lanes_) (void)cudaStreamSynchronize(other.queue);
      throw;
    }
    l.decoded = w.decoded;
    current_ ^= 1;
    collect(lanes_[current_], decided);
  }

  void drain(std::vector<std::uint8_t>& decided) override {
    collect(lanes_[current_ ^ 1], decided);  // the window in flight, if any
  }

  std::string describe() const override {
    return cat("CUDA kernel: ", engine_->describe(),
               "; windows on 2 streams from page-locked "
               "staging");
  }
  std::size_t host_bytes() const override { return host_bytes_; }
  std::size_t device_bytes() const override { return device_bytes_ + engine_->device_bytes(); }

 private:
  struct lane {
    cuda::stream queue;
    cuda::pinned_buffer in, out;
    cuda::device_buffer<std::int8_t> d_in;
    cuda::device_buffer<std::uint8_t> d_out;
    std::size_t decoded = 0;  // bits of the window in flight (0: none)
  };

  // Waits for the lane's window and appends its bits, copied over threads: a window holds tens of
  // MB of bits (H200 host, K = 7 rate 1/2, 2^30 bits from host int8 values: 5.2 Gb/s end to end
  // against 4.3 with one thread's insert).
  void collect(lane& l, std::vector<std::uint8_t>& decided) {
    if (!l.decoded) return;
    const std::size_t n = l.decoded;
    l.decoded = 0;
    l.queue.synchronize();
    const std::size_t at = decided.size();
    decided.resize(at + n);
    host_copy(decided.data() + at, l.out.get(), n);
  }

  tile_shape tile_;
  std::unique_ptr<tiled_device_engine> engine_;
  std::size_t window_tiles_ = 1, host_bytes_ = 0, device_bytes_ = 0;
  lane lanes_[2];
  int current_ = 0;
};

std::unique_ptr<window_runner> make_cuda_window_runner(const cuda_window_setup& setup) {
  return std::make_unique<cuda_window_runner>(setup);
}

const register_cuda_backend<cuda_stream_entry> registered{&make_cuda_window_runner};

}  // namespace
}  // namespace gpufec::conv::detail
