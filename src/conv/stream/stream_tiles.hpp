// The tiled stream decoder's plan of work (plain C++, tested on the CPU): a continuous stream is
// decoded as one truncated frame that never ends, on the tiled decoder's global tile grid
// anchored at stage 0 (tiling.hpp): tile j decodes stream stages [j f, (j+1) f) and runs from
// j f - v1 (clipped at 0, where it knows its start state) to (j+1) f + v2. Tile j can be decoded
// as soon as stage (j+1) f + v2 - 1 has arrived, and decoding it then gives the same bits as
// decoding the whole stream at once, because its run is the same whatever comes later; at the end
// of the stream the last tiles are clipped to it, as a truncated frame's are. So the bits do not
// depend on how the stream arrives, and equal tiled_decoder's on the whole stream.
//
// Ready tiles go out in windows of `window_tiles` tiles: a window is the stretch of the stream
// its tiles run over, starting at a multiple of the puncturing period (so a window's values are
// punctured as a frame's, phase 0 at its stage 0) at most v1 + P - 1 stages before its first
// tile's decoded part. A window is decoded like a frame of its own (the CUDA kernels take it as
// one frame: tiled_params grid and open_start), and the values from the next window's origin on
// are kept for it. Memory is the window, whatever the stream's length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/backend_registry.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/puncture.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv::detail {

// One window: stream stages [origin, origin + stages), decoding tiles whose decoded parts cover
// stream stages [origin + grid, origin + grid + decoded).
struct stream_window {
  std::uint64_t origin = 0;       // a multiple of the pattern's period
  std::uint64_t first_value = 0;  // the stream index of the first value of stage `origin`
  std::size_t stages = 0, values = 0;
  std::size_t grid = 0;     // window stage where the first tile's decoded part begins
  std::size_t tiles = 0;    // tiles decoded (the last may be clipped by the stream's end)
  std::size_t decoded = 0;  // stages decided: tiles f, or fewer at the stream's end
  bool open_start() const { return origin > 0; }
};

class stream_tiling {
 public:
  // Throws invalid_argument for a bad tile shape, or window_tiles = 0.
  stream_tiling(const tile_shape& tile, const puncture_pattern& pattern, std::size_t window_tiles);

  const tile_shape& tile() const { return tile_; }
  std::size_t window_tiles() const { return window_tiles_; }
  // The most values and stages a window (or the values kept for the next one) spans: with this
  // many values buffered a window is always ready.
  std::size_t max_values() const { return max_values_; }
  std::size_t max_stages() const { return max_stages_; }

  // Whole stages among the stream's first `values` values, and the values of a stage begun.
  std::uint64_t stages_in(std::uint64_t values) const;
  std::size_t partial_values(std::uint64_t values) const;
  // Values sent for stages [0, stage) of the stream.
  std::uint64_t value_index(std::uint64_t stage) const;

  // The next window once `received` whole stages have arrived: window_tiles ready tiles, or with
  // `ended` (the stream is exactly `received` stages) all the tiles left; none when fewer are
  // ready (or, at the end, none are left).
  std::optional<stream_window> next(std::uint64_t received, bool ended) const;
  // Marks a window from next() as decoded.
  void advance(const stream_window& w) { next_tile_ += w.tiles; }
  // Where the next window begins: its values are all the stream still needs.
  std::uint64_t origin() const;
  void reset() { next_tile_ = 0; }

 private:
  tile_shape tile_;
  std::size_t window_tiles_ = 1, period_ = 1, per_period_ = 1;
  std::vector<std::size_t> sent_before_;  // [phase 0..P]: values of the period before the phase
  std::size_t max_values_ = 0, max_stages_ = 0;
  std::uint64_t next_tile_ = 0;
};

// Decodes windows: the CPU's tiled decoder, or the CUDA kernels (which may still be decoding
// when run() returns). The values of a window go to staging() before run().
class window_runner {
 public:
  virtual ~window_runner() = default;
  // Tiles per window: from the window_stages asked for, or the runner's own choice.
  virtual std::size_t window_tiles() const = 0;
  // The tile shape it runs: the one asked for, or (f = 0) the CUDA kernel's own default.
  virtual tile_shape tile() const = 0;
  // Sizes the buffers for windows of `tiling` (once, before any run).
  virtual void allocate(const stream_tiling& tiling) = 0;
  // Room for max_values() values: where the next window's values are written.
  virtual std::int8_t* staging() = 0;
  // Decodes window `w` (its values at staging()[0, w.values)). Appends to `decided` the bits of
  // earlier windows that are done (in stream order); afterwards staging() may be another buffer,
  // free to write, and the one just run may still be read: its values stay until the next run().
  virtual void run(const stream_window& w, std::vector<std::uint8_t>& decided) = 0;
  // Appends the bits of every window run so far, waiting for them.
  virtual void drain(std::vector<std::uint8_t>& decided) = 0;
  virtual std::string describe() const = 0;
  virtual std::size_t host_bytes() const = 0;
  virtual std::size_t device_bytes() const = 0;
};

// Tiles per window for `window_stages` stages (0: `fallback` tiles).
std::size_t tiles_for(const tile_shape& tile, std::size_t window_stages, std::size_t fallback);

// A device's windows: whole waves of its `resident` tiles, at least `least_waves` of them, and at
// least policy::host_chunk_llr_bytes of values (32 MB), so that a window's kernel fills the device
// and the next window's copies (tens of MB) hide behind it.
std::size_t device_window_tiles(const tile_shape& tile, const puncture_pattern& pattern,
                                std::size_t resident, std::size_t least_waves);

// The runner of the CPU tiled decoder (window_stages 0: 64 tiles; tile.f = 0: the default shape).
std::unique_ptr<window_runner> make_cpu_window_runner(const conv_code& code,
                                                      const puncture_pattern& pattern,
                                                      const tile_shape& tile,
                                                      std::size_t window_stages);

// The CUDA runner: the tiled kernels on windows, two lanes (streams, page-locked staging and
// device buffers) so that one window's copies overlap the other's kernel.
struct cuda_window_setup {
  conv_code code;
  puncture_pattern pattern;
  tile_shape tile;  // f = 0: the default of the kernel that runs (default_device_tile)
  cuda_kernel kernel = cuda_kernel::automatic;
  std::size_t window_stages = 0;  // 0: the engine's choice
};
struct cuda_stream_entry {
  using factory = std::unique_ptr<window_runner> (*)(const cuda_window_setup&);
};

}  // namespace gpufec::conv::detail
