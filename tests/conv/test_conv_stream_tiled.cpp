// The tiled stream decoder on the CPU, and the windows its CUDA twin runs (stream_tiles.hpp): the
// windows cover the stream's tiles exactly once, in order, within the buffer they are promised;
// chunked decoding equals the tiled decoder on the whole stream as one truncated frame, bit for
// bit, for every chunking, window size, code, rate and input kind; and bad streams and options
// get the messages the other stream decoder gives.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "conv/stream/stream_tiles.hpp"
#include "conv_test_util.hpp"
#include "gpufec/common/error.hpp"
#include "stream_test_util.hpp"

namespace gpufec::conv {
namespace {

using namespace testing;

// Plays a stream of `stages` stages arriving in random steps against stream_tiling, as the
// tiled engine does, and checks every window.
void check_windows(const tile_shape& tile, const puncture_pattern& pattern, std::size_t window,
                   std::uint64_t stages, std::mt19937_64& rng) {
  SCOPED_TRACE(tile.to_string() + ", pattern " + pattern.to_string() + ", window " +
               std::to_string(window) + ", " + std::to_string(stages) + " stages");
  detail::stream_tiling tiling(tile, pattern, window);
  const auto P = static_cast<std::uint64_t>(pattern.period());
  const std::uint64_t total_values = tiling.value_index(stages);
  std::uint64_t values = 0, decided = 0, buffer_first = 0;
  std::uniform_int_distribution<std::uint64_t> step(1, 3 * tiling.max_values() / 2);
  const auto take = [&](const detail::stream_window& w) {
    EXPECT_EQ(w.origin % P, 0u);
    EXPECT_EQ(w.first_value, buffer_first) << "a window starts where the kept values start";
    EXPECT_EQ(w.origin + w.grid, decided) << "windows decide the stream in order";
    EXPECT_EQ(w.first_value, tiling.value_index(w.origin));
    EXPECT_EQ(w.values, tiling.value_index(w.origin + w.stages) - w.first_value);
    EXPECT_LE(w.values, tiling.max_values());
    EXPECT_LE(w.stages, tiling.max_stages());
    if (w.open_start()) {
      EXPECT_GE(w.grid, tile.v1) << "a tile inside the stream has its warm-up";
    }
    EXPECT_LT(w.grid, tile.v1 + P);
    decided += w.decoded;
    tiling.advance(w);
    buffer_first = tiling.value_index(tiling.origin());
  };
  while (values < total_values) {
    const std::uint64_t n = std::min(step(rng), total_values - values);
    // Values arrive as far as the buffer allows, then every ready window goes.
    values += std::min<std::uint64_t>(n, tiling.max_values() - (values - buffer_first));
    while (const auto w = tiling.next(tiling.stages_in(values), false)) {
      EXPECT_EQ(w->tiles, window);
      EXPECT_EQ(w->decoded, window * tile.f);
      EXPECT_LE(w->origin + w->stages, tiling.stages_in(values));
      take(*w);
    }
    ASSERT_LT(values - buffer_first, tiling.max_values()) << "a full buffer has a window ready";
  }
  while (const auto w = tiling.next(stages, true)) take(*w);
  EXPECT_EQ(decided, stages);
}

TEST(ConvStreamTiles, WindowsCoverTheStreamOnceInOrderWithinTheirBuffer) {
  std::mt19937_64 rng(7);
  const conv_code code(7, {0171, 0133});
  for (const auto& pattern : {puncture_pattern::none(2), puncture_pattern::parse("3/4", 2),
                              puncture_pattern::parse("7/8", 2)})
    for (const tile_shape& tile :
         {default_tile_shape(code, pattern), tile_shape{5, 40, 3, 2}, tile_shape{1, 0, 0, 0},
          tile_shape{64, 0, 70, 16}, tile_shape{7, 9, 11, 0}})
      for (std::size_t window : {1, 3, 64})
        for (std::uint64_t stages : {0, 1, 2, 13, 4000, 100000})
          check_windows(tile, pattern, window, stages, rng);
}

TEST(ConvStreamTiles, CountsStagesAsTheyArrive) {
  const auto pattern = puncture_pattern::parse("101,110", 2);  // 4 values per 3 stages: 2, 1, 1
  detail::stream_tiling tiling(tile_shape{8, 2, 2, 0}, pattern, 2);
  const std::uint64_t stages[] = {0, 0, 1, 2, 3, 3, 4, 5, 6};
  for (std::uint64_t v = 0; v < 9; ++v) {
    EXPECT_EQ(tiling.stages_in(v), stages[v]) << v;
    EXPECT_EQ(tiling.partial_values(v), v == 1 || v == 5 ? 1u : 0u) << v;
  }
  EXPECT_EQ(tiling.value_index(4), 6u);
  EXPECT_THROW(detail::stream_tiling(tile_shape{8, 2, 2, 0}, pattern, 0), invalid_argument);
}

stream_options tiled_options(const tile_shape& tile, std::size_t window_stages) {
  stream_options o;
  o.decoder = decoder_kind::tiled;
  o.tile = tile;
  o.window_stages = window_stages;
  return o;
}

TEST(ConvStreamTiled, ChunkedEqualsTheTiledDecoderOnTheWholeStream) {
  const std::vector<std::vector<std::size_t>> chunkings = {
      {std::size_t{1} << 40}, {1}, {7}, {333, 1, 4096, 2}, {1055, 1057, 2113}};
  std::size_t compared = 0;
  for (const conv_code& code :
       {conv_code(7, {0171, 0133}), conv_code(5, {023, 035}), conv_code(9, {0561, 0753})})
    for (const auto& pattern : patterns_for(code)) {
      if (pattern.period() > 3) continue;
      const std::size_t stages = 3000;
      const auto s = make_stream(code, pattern, stages, 0.8 * std::sqrt(0.5 / pattern.rate()), 51);
      const auto q = stream_quantized(s.llr);
      std::vector<tile_shape> tiles = {default_tile_shape(code, pattern)};
      if (code.K() < 9)
        tiles.insert(tiles.end(), {tile_shape{32, 10, 20, 8}, tile_shape{5, 40, 3, 2}});
      for (const tile_shape& tile : tiles) {
        const auto expected = tiled_whole(code, pattern, tile, q, stages);
        const auto expected_hard = tiled_whole(code, pattern, tile, hard_as_int8(s.coded), stages);
        for (std::size_t window : {0, 1, 700}) {
          SCOPED_TRACE(code.to_string() + ", pattern " + pattern.to_string() + ", " +
                       tile.to_string() + ", window " + std::to_string(window));
          stream_decoder dec(code, pattern, tiled_options(tile, window));
          for (const auto& sizes : chunkings) {
            EXPECT_EQ(decode_in_chunks(dec, s.llr, sizes, push_values), expected) << "float";
            EXPECT_EQ(decode_in_chunks(dec, q, sizes, push_values), expected) << "int8";
            EXPECT_EQ(decode_in_chunks(dec, s.coded, sizes, push_hard), expected_hard) << "hard";
            EXPECT_EQ(dec.bits_decided(), stages);
            EXPECT_EQ(dec.stages_received(), stages);
            ++compared;
          }
        }
      }
    }
  EXPECT_GT(compared, 100u);
}

TEST(ConvStreamTiled, ShortStreamsAndFixedScale) {
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::parse("3/4", 2);
  const tile_shape tile = default_tile_shape(code, pattern);
  for (std::size_t stages : {1, 2, 3, 10, 71, 72, 73}) {  // shorter than one overlap (72)
    SCOPED_TRACE(std::to_string(stages) + " stages");
    const auto s = make_stream(code, pattern, stages, 0.7, 52);
    stream_decoder dec(code, pattern, tiled_options(tile, 0));
    EXPECT_EQ(decode_in_chunks(dec, s.llr, {5}, push_values),
              tiled_whole(code, pattern, tile, stream_quantized(s.llr), stages));
  }
  stream_decoder empty(code, pattern, tiled_options(tile, 0));
  std::vector<std::uint8_t> none;
  empty.finish(none);
  EXPECT_TRUE(none.empty()) << "an empty stream decides nothing";
  const auto s = make_stream(code, pattern, 3000, 0.7, 53);
  stream_options o = tiled_options(tile, 300);
  o.llr_scale = 9.5;
  stream_decoder dec(code, pattern, o);
  std::vector<std::int8_t> q(s.llr.size());
  quantize_llrs(s.llr, 9.5, q);
  EXPECT_EQ(decode_in_chunks(dec, s.llr, {999}, push_values),
            tiled_whole(code, pattern, tile, q, 3000));
}

TEST(ConvStreamTiled, NoiseFreeStreamsDecodeExactly) {
  for (const auto& named : small_codes())
    for (const auto& pattern : patterns_for(named.code)) {
      if (!exact_when_noise_free(named, pattern) || catastrophic(named.code, pattern)) continue;
      SCOPED_TRACE(named.name + ", pattern " + pattern.to_string());
      const auto s = make_stream(named.code, pattern, 3000, 0, 54);
      stream_decoder dec(named.code, pattern, tiled_options(tile_shape{}, 500));
      EXPECT_EQ(decode_in_chunks(dec, s.llr, {123}, push_values), s.info);
    }
}

TEST(ConvStreamTiled, BadStreamsAndOptions) {
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::parse("3/4", 2);
  stream_decoder dec(code, pattern, tiled_options(tile_shape{}, 0));
  EXPECT_NE(dec.describe().find("tiled"), std::string::npos) << dec.describe();
  EXPECT_EQ(dec.traceback_depth(), default_tile_shape(code, pattern).v2);
  std::vector<std::uint8_t> out;
  expect_nan_named(dec);
  dec.reset();
  dec.push(std::vector<std::int8_t>(5, 3), out);  // 3 stages and a value of the fourth
  try {
    dec.finish(out);
    FAIL() << "a stream ending inside a stage was taken";
  } catch (const format_error& e) {
    EXPECT_NE(std::string(e.what()).find("ends inside a stage: 1 of the 2 values of stage 3"),
              std::string::npos)
        << e.what();
  }
  dec.reset();
  dec.finish(out);
  EXPECT_THROW(dec.push(std::vector<std::int8_t>(4, 1), out), invalid_argument);

  stream_options o = tiled_options(tile_shape{}, 0);
  o.traceback_depth = 35;
  EXPECT_THROW(stream_decoder(code, pattern, o), invalid_argument);
  o = stream_options{};
  o.tile = tile_shape{32, 8, 8, 0};
  EXPECT_THROW(stream_decoder(code, pattern, o), invalid_argument);
  o = stream_options{};
  o.where = backend::cuda;
  o.decoder = decoder_kind::reference;
  EXPECT_THROW(stream_decoder(code, pattern, o), invalid_argument);
  o = tiled_options(tile_shape{}, 0);
  o.kernel = cuda_kernel::registers;
  EXPECT_THROW(stream_decoder(code, pattern, o), invalid_argument);
  o = tiled_options(tile_shape{4, 2, 2, 5}, 0);  // f0 > f
  EXPECT_THROW(stream_decoder(code, pattern, o), invalid_argument);
}

}  // namespace
}  // namespace gpufec::conv
