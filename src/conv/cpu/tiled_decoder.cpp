// The tiled decoder: the GPU kernel's algorithm (tiles with overlaps, optional parallel traceback)
// run tile by tile on the CPU with the reference recursion. See gpufec/conv/tiling.hpp.
#include <algorithm>
#include <charconv>

#include "conv/cpu/reference_core.hpp"
#include "conv/model/llr_input.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "gpufec/common/align.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/conv/reference.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv {

std::string tile_shape::to_string() const {
  return cat("f=", f, " v1=", v1, " v2=", v2, " f0=", f0);
}

void validate(const tile_shape& tile) {
  require(tile.f >= 1, "tile: f = 0; a tile must decode at least one stage");
  require(tile.f0 <= tile.f, "tile: f0 = ", tile.f0, " exceeds f = ", tile.f,
          " (a traceback subframe lies inside its tile; f0 = 0 traces each tile back once)");
  require(tile.f <= max_tile_stages && tile.v1 <= max_tile_stages && tile.v2 <= max_tile_stages &&
              tile.stages() <= max_tile_stages,
          "tile: v1 + f + v2 = ", tile.v1, " + ", tile.f, " + ", tile.v2,
          " stages exceed the most a tile may run, ", max_tile_stages);
}

tile_shape parse_tile_shape(std::string_view text) {
  std::size_t values[4] = {0, 0, 0, 0};
  int count = 0;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    require(count < 4 && !item.empty() && ec == std::errc{} && end == item.data() + item.size(),
            "tile \"", text, "\": expected f,v1,v2 or f,v1,v2,f0 (non-negative integers)");
    values[count++] = value;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  require(count >= 3, "tile \"", text, "\": expected f,v1,v2 or f,v1,v2,f0 (", count,
          " values given)");
  const tile_shape tile{values[0], values[1], values[2], values[3]};
  validate(tile);
  return tile;
}

tile_shape default_tile_shape(const conv_code& code, const puncture_pattern& pattern) {
  // Up to K = 7, and at K = 9 on four lanes, the CUDA register kernel runs the tiles: long tiles
  // (little overlap per decoded bit) with subframes of about 64 stages, whose survivors fit its
  // per-thread ring; at K = 8 the shared-memory kernel keeps a whole tile's survivors, so tiles
  // stay short. docs/conv.md gives the BER loss of each against full ML decoding.
  const std::size_t depth = default_traceback_depth(code, pattern);
  if (code.K() <= 7) {  // whole cycles of K-1 stages, which the register kernel needs
    const auto cycle = static_cast<std::size_t>(code.K() - 1);
    const std::size_t f0 = round_up(std::size_t{64}, cycle), v = round_up(depth, cycle);
    return tile_shape{16 * f0, v, v, f0};
  }
  if (code.K() == 9) {
    // The four-lane register kernel's cycles of 6 stages; K = 9 converges more slowly than K = 7:
    // v2 of 4/3 the depth (rate 1/2: 60 stages, 0.005 dB against 0.021 with 48; docs/conv.md).
    const std::size_t cycle = 6, f0 = 66;
    return tile_shape{16 * f0, round_up(depth, cycle), round_up((4 * depth + 2) / 3, cycle), f0};
  }
  return tile_shape{256, depth, depth, 0};
}

namespace detail {

std::size_t fitted_tile_length(std::size_t nominal, std::size_t N, std::size_t frames,
                               std::size_t wave, std::size_t unit) {
  if (frames == 0 || wave == 0 || N <= nominal) return nominal;
  const std::size_t most = batch_tiles(nominal, N, frames) / wave;  // whole waves at `nominal`
  std::size_t first = 0;  // the shortest length that fits `most` waves
  for (std::size_t waves = most; waves >= 1 && 2 * waves >= most; --waves) {
    const std::size_t per_frame = waves * wave / frames;  // tiles per frame that fill them
    if (per_frame <= 1) break;
    const std::size_t f = round_up((N + per_frame - 1) / per_frame, unit);
    if (!first) first = f;
    const std::size_t tiles = batch_tiles(f, N, frames);
    if (10 * tiles >= (10 * waves - 1) * wave) return f;  // its last wave at least 90% full
  }
  return first ? first : nominal;
}

tile_scratch::tile_scratch(const conv_code& code, const tile_shape& tile)
    : tile_llr(tile.stages() * static_cast<std::size_t>(code.beta())),
      decisions(tile.stages() * code.states()),
      metric(code.states()),
      next(code.states()),
      boundary_best(tile.stages() + 1) {}

void decode_tile(const conv_code& code, const tile_shape& tile, const tile_grid& grid,
                 const double* llr, std::size_t i, tile_scratch& scratch,
                 std::uint8_t* stage_bits) {
  const std::size_t N = grid.N;
  const auto beta = static_cast<std::size_t>(code.beta());
  const unsigned S = code.states();
  // Decoded stages [first, last); run stages [lo, hi), widened by the overlaps: clipped to the
  // frame, or around the circle of a tail-biting frame.
  const std::size_t first = grid.grid + i * tile.f, last = std::min(first + tile.f, N);
  const auto v1 = static_cast<std::ptrdiff_t>(tile.v1);
  const std::ptrdiff_t lo = grid.circle
                                ? static_cast<std::ptrdiff_t>(first) - v1
                                : static_cast<std::ptrdiff_t>(first - std::min(first, tile.v1));
  const std::size_t hi = grid.circle ? last + tile.v2 : std::min(last + tile.v2, N);
  const auto stages = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(hi) - lo);
  const auto n = static_cast<std::ptrdiff_t>(N);
  for (std::size_t e = 0; e < stages; ++e) {
    const std::ptrdiff_t t = ((lo + static_cast<std::ptrdiff_t>(e)) % n + n) % n;
    std::copy_n(llr + static_cast<std::size_t>(t) * beta, beta, scratch.tile_llr.data() + e * beta);
  }

  const bool known_start = !grid.circle && !grid.open_start && lo == 0;
  const bool known_end = grid.zero_tail && hi == N;
  std::fill(scratch.metric.begin(), scratch.metric.end(),
            known_start ? excluded_metric<double>() : 0.0);
  scratch.metric[0] = 0;

  // The decoded part relative to the tile, and where each subframe's traceback starts.
  const std::size_t begin = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(first) - lo);
  const std::size_t end = begin + (last - first);
  const std::size_t sub = tile.f0 ? tile.f0 : end - begin;
  // Forward, pausing at each subframe's traceback start to note the best state there.
  std::size_t done = 0;
  for (std::size_t a = begin; a < end; a += sub) {
    const std::size_t start = std::min(std::min(a + sub, end) + tile.v2, stages);
    if (start == stages) break;
    viterbi_forward(code, scratch.tile_llr.data() + done * beta, start - done,
                    scratch.metric.data(), scratch.next, scratch.decisions.data() + done * S);
    scratch.boundary_best[start] = best_state(scratch.metric.data(), S);
    done = start;
  }
  viterbi_forward(code, scratch.tile_llr.data() + done * beta, stages - done, scratch.metric.data(),
                  scratch.next, scratch.decisions.data() + done * S);
  scratch.boundary_best[stages] = known_end ? 0u : best_state(scratch.metric.data(), S);

  // Each subframe traced back from its start; only its own stages are kept.
  for (std::size_t a = begin; a < end; a += sub) {
    const std::size_t b = std::min(a + sub, end);
    const std::size_t start = std::min(b + tile.v2, stages);
    unsigned state = scratch.boundary_best[start];
    for (std::size_t t = start; t-- > a;) {
      const unsigned predecessor = (state >> 1) | (scratch.decisions[t * S + state] ? S / 2 : 0u);
      if (t < b)
        stage_bits[first + (t - begin)] =
            static_cast<std::uint8_t>(code.input_bit(predecessor, state & 1u));
      state = predecessor;
    }
  }
}

}  // namespace detail

tiled_decoder::tiled_decoder(const conv_code& code, const puncture_pattern& pattern,
                             std::size_t info_bits, termination term, const tile_shape& tile)
    : code_(code),
      pattern_(pattern),
      term_(term),
      shape_(make_frame_shape(code, pattern, info_bits, term)),
      tile_((validate(tile), tile)),
      scratch_(code, tile) {}  // the frame-sized buffers on first use: a plan that only reports
                               // holds none

void tiled_decoder::decode(std::span<const std::int8_t> llrs, std::span<std::uint8_t> bits,
                           const stop_token& stop) {
  detail::require_frame_length(llrs.size(), shape_, term_, pattern_, "LLRs");
  detail::require_bits_room(bits.size(), shape_);
  const auto beta = static_cast<std::size_t>(code_.beta());
  llr_.resize(shape_.stages * beta);
  stage_bits_.resize(shape_.stages);
  std::size_t k = 0;
  for (std::size_t i = 0; i < llr_.size(); ++i)
    llr_[i] = pattern_.sends(static_cast<int>(i % beta), i / beta) ? llrs[k++] : 0.0;
  const detail::tile_grid grid{shape_.stages, 0, term_ == termination::tail_biting,
                               term_ == termination::zero_tail, false};
  for (std::size_t i = 0; i < tiles(); ++i) {
    if (i % 16 == 0 && stop.requested()) throw stopped();  // 16 tiles: well under a millisecond
    detail::decode_tile(code_, tile_, grid, llr_.data(), i, scratch_, stage_bits_.data());
  }
  std::copy_n(stage_bits_.begin(), shape_.info_bits, bits.begin());
}

}  // namespace gpufec::conv
