// The CUDA runner of the tiled stream decoder (stream_tiles.hpp): windows of a continuous stream
// through the tiled kernels on the two lanes of the chunk pipeline (common/cuda/chunk_pipeline.cuh,
// its streaming side). The stream decoder writes a window's values into the current lane's
// page-locked staging as they arrive; run() submits the window (copy in, the kernel, the copy of
// the decided bits out), which moves to the other lane, first waiting for that lane's window (the
// one before) and handing its bits over. So while one window's kernel runs, the next window's
// values are staged on the host and copied in, and bits leave in stream order.
#include <optional>
#include <vector>

#include "common/cuda/chunk_pipeline.cuh"
#include "common/host_copy.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "conv/stream/stream_tiles.hpp"

namespace gpufec::conv::detail {
namespace {

// Appends a window's bits, copied over threads: a window holds tens of MB of bits (H200 host,
// K = 7 rate 1/2, 2^30 bits from host int8 values: 5.2 Gb/s end to end against 4.3 with one
// thread's insert).
auto append_to(std::vector<std::uint8_t>& decided) {
  return [&decided](std::size_t, const unsigned char* bits,
                    const cuda::chunk_pipeline::output_range& r) {
    const std::size_t at = decided.size();
    decided.resize(at + r.bytes);
    host_copy(decided.data() + at, bits, r.bytes);
  };
}

class cuda_window_runner final : public window_runner {
 public:
  explicit cuda_window_runner(const cuda_window_setup& setup)
      : tile_(setup.tile.f ? setup.tile
                           : default_device_tile(setup.code, setup.pattern, setup.kernel)) {
    // The tile engine with a frame of one tile (what sizes its register ring) and no host-batch
    // pipeline: the windows come with their own geometry, as many tiles as the plan chose unless
    // the caller asked for a window length.
    const tiled_setup tiles{
        setup.code,
        setup.pattern,
        make_frame_shape(setup.code, setup.pattern, tile_.stages(), termination::truncated),
        termination::truncated,
        tile_,
        0,
        setup.kernel};
    engine_ = make_device_engine(tiles, "the CUDA conv stream decoder");
    window_tiles_ = tiles_for(tile_, setup.window_stages, engine_->plan().window_tiles);
  }

  std::size_t window_tiles() const override { return window_tiles_; }
  tile_shape tile() const override { return tile_; }

  void allocate(const stream_tiling& tiling) override {
    lanes_.emplace(1, tiling.max_values(), tiling.max_stages());
    lanes_->reserve_staging();
  }

  std::int8_t* staging() override {
    return reinterpret_cast<std::int8_t*>(lanes_->input_staging());
  }

  void run(const stream_window& w, std::vector<std::uint8_t>& decided) override {
    cuda::chunk_pipeline::piece p;
    p.in_bytes = w.values;
    p.out[0] = {0, w.decoded, w.grid};
    p.frames = 1;
    lanes_->submit(
        p,
        [&](const cuda::chunk_pipeline::lane_work& work, const cuda::chunk_pipeline::piece&) {
          engine_->decode_window(reinterpret_cast<const std::int8_t*>(work.in),
                                 {w.stages, w.values, w.grid, w.tiles, w.open_start()}, work.out[0],
                                 work.stream);
        },
        append_to(decided));
  }

  void drain(std::vector<std::uint8_t>& decided) override { lanes_->drain(append_to(decided)); }

  std::string describe() const override {
    return cat("CUDA kernel: ", engine_->describe(),
               "; windows on 2 streams from page-locked "
               "staging");
  }
  std::size_t host_bytes() const override { return lanes_ ? lanes_->host_bytes() : 0; }
  std::size_t device_bytes() const override {
    return (lanes_ ? lanes_->device_bytes() : 0) + engine_->device_bytes();
  }

 private:
  tile_shape tile_;
  std::unique_ptr<tiled_device_engine> engine_;
  std::size_t window_tiles_ = 1;
  std::optional<cuda::chunk_pipeline> lanes_;
};

std::unique_ptr<window_runner> make_cuda_window_runner(const cuda_window_setup& setup) {
  return std::make_unique<cuda_window_runner>(setup);
}

const register_cuda_backend<cuda_stream_entry> registered{&make_cuda_window_runner};

}  // namespace
}  // namespace gpufec::conv::detail
