// The tiled stream decoder's windows (stream_tiles.hpp) and their CPU runner, the tiled decoder's
// tiles run window by window.
#include "conv/stream/stream_tiles.hpp"

#include <algorithm>
#include <cmath>

#include "conv/cuda/policy.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::conv::detail {

stream_tiling::stream_tiling(const tile_shape& tile, const puncture_pattern& pattern,
                             std::size_t window_tiles)
    : tile_(tile), window_tiles_(window_tiles) {
  validate(tile_);
  require(window_tiles >= 1, "a stream window holds at least one tile (window_tiles = 0)");
  period_ = static_cast<std::size_t>(pattern.period());
  per_period_ = static_cast<std::size_t>(pattern.sent_per_period());
  for (std::size_t q = 0; q <= period_; ++q)
    sent_before_.push_back(q == period_ ? per_period_ : pattern.sent_before(q));
  // A full buffer always holds a ready window: with origin > t0 f - v1 - P (origin a multiple of
  // P at most v1 + P - 1 stages before tile t0's decoded part), whole stages past
  // W f + v1 + v2 + 2P reach (t0 + W) f + v2.
  const std::size_t spanned = window_tiles_ * tile_.f + tile_.v1 + tile_.v2 + 2 * period_;
  max_values_ = ((spanned + period_ - 1) / period_ + 1) * per_period_;
  max_stages_ = (max_values_ / per_period_ + 1) * period_;
}

std::uint64_t stream_tiling::stages_in(std::uint64_t values) const {
  const std::uint64_t rest = values % per_period_;
  std::size_t phases = 0;
  while (phases < period_ && sent_before_[phases + 1] <= rest) ++phases;
  return values / per_period_ * period_ + phases;
}

std::size_t stream_tiling::partial_values(std::uint64_t values) const {
  const std::uint64_t stages = stages_in(values);
  return static_cast<std::size_t>(values - value_index(stages));
}

std::uint64_t stream_tiling::value_index(std::uint64_t stage) const {
  return stage / period_ * per_period_ + sent_before_[stage % period_];
}

std::uint64_t stream_tiling::origin() const {
  const std::uint64_t first = next_tile_ * tile_.f;
  const std::uint64_t from = first > tile_.v1 ? first - tile_.v1 : 0;
  return from / period_ * period_;
}

std::optional<stream_window> stream_tiling::next(std::uint64_t received, bool ended) const {
  const std::uint64_t t0 = next_tile_, f = tile_.f;
  std::uint64_t tiles = 0, end = 0;
  if (ended) {  // the rest, clipped to the stream as a truncated frame's last tiles are
    const std::uint64_t total = (received + f - 1) / f;
    if (total <= t0) return std::nullopt;
    tiles = total - t0;
    end = received;
  } else {  // tile j is ready once its right overlap is in: (j + 1) f + v2 <= received
    if (received < tile_.v2 + (t0 + window_tiles_) * f) return std::nullopt;
    tiles = window_tiles_;
    end = (t0 + tiles) * f + tile_.v2;
  }
  stream_window w;
  w.origin = origin();
  w.first_value = value_index(w.origin);
  w.stages = static_cast<std::size_t>(end - w.origin);
  w.values = static_cast<std::size_t>(value_index(end) - w.first_value);
  w.grid = static_cast<std::size_t>(t0 * f - w.origin);
  w.tiles = static_cast<std::size_t>(tiles);
  w.decoded = static_cast<std::size_t>(std::min(tiles * f, end - t0 * f));
  return w;
}

std::size_t tiles_for(const tile_shape& tile, std::size_t window_stages, std::size_t fallback) {
  return window_stages ? std::max<std::size_t>(1, (window_stages + tile.f - 1) / tile.f) : fallback;
}

std::size_t device_window_tiles(const tile_shape& tile, const puncture_pattern& pattern,
                                std::size_t resident, std::size_t least_waves) {
  const double values_per_stage =
      static_cast<double>(pattern.sent_per_period()) / static_cast<double>(pattern.period());
  const auto by_bytes =
      static_cast<std::size_t>(std::ceil(static_cast<double>(policy::host_chunk_llr_bytes) /
                                         (values_per_stage * static_cast<double>(tile.f))));
  const std::size_t wave = std::max<std::size_t>(resident, 1);
  return std::max(least_waves * wave, (by_bytes + wave - 1) / wave * wave);
}

namespace {

class cpu_window_runner final : public window_runner {
 public:
  cpu_window_runner(const conv_code& code, const puncture_pattern& pattern, const tile_shape& tile,
                    std::size_t window_stages)
      : code_(code),
        pattern_(pattern),
        tile_(tile.f ? tile : default_tile_shape(code, pattern)),
        window_tiles_(tiles_for(tile_, window_stages, 64)),
        scratch_(code, tile_) {}

  std::size_t window_tiles() const override { return window_tiles_; }
  tile_shape tile() const override { return tile_; }
  void allocate(const stream_tiling& tiling) override {
    values_.resize(tiling.max_values());
    llr_.resize(tiling.max_stages() * static_cast<std::size_t>(code_.beta()));
    bits_.resize(tiling.max_stages());
  }
  std::int8_t* staging() override { return values_.data(); }

  void run(const stream_window& w, std::vector<std::uint8_t>& decided) override {
    // Depunctured from phase 0: a window begins at a multiple of the period.
    const auto beta = static_cast<std::size_t>(code_.beta());
    const auto P = static_cast<std::size_t>(pattern_.period());
    std::size_t k = 0;
    for (std::size_t t = 0; t < w.stages; ++t)
      for (std::size_t b = 0; b < beta; ++b)
        llr_[t * beta + b] = pattern_.sends(static_cast<int>(b), t % P) ? values_[k++] : 0.0;
    const tile_grid grid{w.stages, w.grid, false, false, w.open_start()};
    for (std::size_t i = 0; i < w.tiles; ++i)
      decode_tile(code_, tile_, grid, llr_.data(), i, scratch_, bits_.data());
    const auto from = bits_.begin() + static_cast<std::ptrdiff_t>(w.grid);
    decided.insert(decided.end(), from, from + static_cast<std::ptrdiff_t>(w.decoded));
  }
  void drain(std::vector<std::uint8_t>&) override {}

  std::string describe() const override {
    return "the CUDA kernel's algorithm on the CPU, one thread";
  }
  std::size_t host_bytes() const override {
    return values_.size() + 8 * llr_.size() + bits_.size() + 8 * scratch_.tile_llr.size() +
           scratch_.decisions.size();
  }
  std::size_t device_bytes() const override { return 0; }

 private:
  conv_code code_;
  puncture_pattern pattern_;
  tile_shape tile_;
  std::size_t window_tiles_;
  tile_scratch scratch_;
  std::vector<std::int8_t> values_;
  std::vector<double> llr_;
  std::vector<std::uint8_t> bits_;
};

}  // namespace

std::unique_ptr<window_runner> make_cpu_window_runner(const conv_code& code,
                                                      const puncture_pattern& pattern,
                                                      const tile_shape& tile,
                                                      std::size_t window_stages) {
  return std::make_unique<cpu_window_runner>(code, pattern, tile, window_stages);
}

}  // namespace gpufec::conv::detail
