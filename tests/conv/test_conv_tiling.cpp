// The tiled decoder (the GPU kernel's algorithm on the CPU): one tile over the whole frame is the
// reference decoder, ties included; every tile and every traceback subframe decides the
// maximum-likelihood path of its own window, checked by brute force over all paths of the window;
// at high SNR the default shape decides as full decoding does; and the shape's text form and
// validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "conv/plan/cuda_engine.hpp"
#include "conv_test_util.hpp"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/reference.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv {
namespace {

using namespace testing;

// Frame f of `seed`: random bits, encoded, BPSK over AWGN at `sigma`, quantized to int8 with a
// coarse scale so that ties between paths happen.
struct noisy_frame {
  std::vector<std::uint8_t> info;
  std::vector<std::int8_t> llr;
};
noisy_frame make_frame(const encoder& enc, double sigma, std::uint64_t seed, std::uint64_t f,
                       double scale) {
  noisy_frame out;
  out.info = random_bits(seed, f, enc.shape().info_bits);
  std::vector<std::uint8_t> coded(enc.shape().coded_bits);
  enc.encode(out.info, coded);
  const auto llr = awgn_llrs(coded, sigma, seed, f);
  out.llr.resize(llr.size());
  quantize_llrs(llr, scale, out.llr);
  return out;
}

TEST(ConvTiling, OneTileOverTheFrameIsTheReferenceDecoder) {
  const std::size_t N = 151, frames = 6;
  std::size_t differs_from_sent = 0;
  for (const auto& [name, code] : all_codes())
    for (const auto& pattern : patterns_for(code))
      for (termination term : all_terminations) {
        if (!can_encode(code, pattern, N, term)) continue;
        SCOPED_TRACE(name + ", pattern " + pattern.to_string() + ", " + std::string(name_of(term)));
        const encoder enc(code, pattern, N, term);
        const std::size_t W = default_traceback_depth(code, pattern);
        // One tile: f covers the frame; the overlaps matter only around a tail-biting circle,
        // where v1 = v2 = W is the reference's wrap-around.
        tiled_decoder tiled(code, pattern, N, term, {enc.shape().stages, W, W, 0});
        reference_decoder reference(code, pattern, N, term);
        ASSERT_EQ(tiled.tiles(), 1u);
        const double sigma = 0.9 * std::sqrt(0.5 / pattern.rate());
        for (std::size_t f = 0; f < frames; ++f) {
          const auto frame = make_frame(enc, sigma, 31, f, 3.0);
          std::vector<std::uint8_t> a(N), b(N);
          tiled.decode(frame.llr, a);
          reference.decode(std::span<const std::int8_t>(frame.llr), b);
          EXPECT_EQ(a, b) << "frame " << f;
          differs_from_sent += a != frame.info;
        }
      }
  EXPECT_GT(differs_from_sent, 50u) << "too little noise to exercise the decisions";
}

// The best path through stages `window` (frame stage indices, in order) of a depunctured frame:
// from state 0 or from any state, to state 0 or to any; its input bits and how much better it is
// than the runner-up (0: a tie).
struct window_path {
  std::vector<std::uint8_t> bits;
  double margin = 0;
};
// `keep` = [first, last) are the window positions whose bits are compared: the margin is to the
// best path whose bits there differ.
window_path brute_force(const conv_code& code, const std::vector<double>& llr,
                        const std::vector<std::size_t>& window, bool start_zero, bool end_zero,
                        std::size_t first, std::size_t last) {
  const int beta = code.beta();
  const std::size_t L = window.size();
  double best = -std::numeric_limits<double>::infinity(), rival = best;
  window_path out;
  std::vector<std::uint8_t> bits(L);
  // Two passes: the best path, then the best of those that decide [first, last) otherwise.
  for (int pass = 0; pass < 2; ++pass)
    for (unsigned s0 = 0; s0 < (start_zero ? 1u : code.states()); ++s0)
      for (std::uint64_t x = 0; x < (std::uint64_t{1} << L); ++x) {
        unsigned state = s0;
        double metric = 0;
        for (std::size_t t = 0; t < L; ++t) {
          const auto w = static_cast<unsigned>((x >> t) & 1u);
          const unsigned label = code.label(state, w);
          for (int b = 0; b < beta; ++b) {
            const double l = llr[window[t] * static_cast<std::size_t>(beta) + b];
            metric += ((label >> b) & 1u) ? -l : l;
          }
          bits[t] = static_cast<std::uint8_t>(code.input_bit(state, w));
          state = code.next_state(state, w);
        }
        if (end_zero && state != 0) continue;
        if (pass == 0 && metric > best) {
          best = metric;
          out.bits = bits;
        } else if (pass == 1 && metric > rival &&
                   !std::equal(bits.begin() + first, bits.begin() + last,
                               out.bits.begin() + first)) {
          rival = metric;
        }
      }
  out.margin = best - rival;
  return out;
}

// Tile i and subframe [a, b) of it, as tiling.hpp defines them, checked against brute force over
// the subframe's window [lo, min(b + v2, hi)).
TEST(ConvTiling, EveryTracebackDecidesTheBestPathOfItsWindow) {
  const std::size_t N = 17, frames = 3;
  std::size_t compared = 0, ties = 0;
  const std::vector<named_code> codes = {
      {"K3 (7,5)", conv_code(3, {07, 05})},
      {"K3 RSC (7,5)", conv_code::recursive_systematic(3, {07, 05})},
      {"K4 (13,15,17)", conv_code(4, {013, 015, 017})}};
  for (const auto& [name, code] : codes)
    for (const auto& pattern : patterns_for(code))
      for (termination term : all_terminations)
        for (const tile_shape& tile : {tile_shape{4, 2, 4, 0}, tile_shape{5, 1, 3, 2}}) {
          if (!can_encode(code, pattern, N, term)) continue;
          SCOPED_TRACE(name + ", pattern " + pattern.to_string() + ", " +
                       std::string(name_of(term)) + ", " + tile.to_string());
          const encoder enc(code, pattern, N, term);
          tiled_decoder tiled(code, pattern, N, term, tile);
          const std::size_t S = enc.shape().stages, beta = static_cast<std::size_t>(code.beta());
          const bool circle = term == termination::tail_biting;
          for (std::size_t f = 0; f < frames; ++f) {
            const auto frame = make_frame(enc, 0.8 * std::sqrt(0.5 / pattern.rate()), 32, f, 8.0);
            std::vector<std::uint8_t> decided(N);
            tiled.decode(frame.llr, decided);
            std::vector<double> llr(S * beta);
            for (std::size_t i = 0, k = 0; i < llr.size(); ++i)
              llr[i] = pattern.sends(static_cast<int>(i % beta), i / beta) ? frame.llr[k++] : 0;
            for (std::size_t first = 0; first < S; first += tile.f) {
              const std::size_t last = std::min(first + tile.f, S);
              const auto lo =
                  static_cast<std::ptrdiff_t>(first) -
                  static_cast<std::ptrdiff_t>(circle ? tile.v1 : std::min(first, tile.v1));
              const std::size_t hi = circle ? last + tile.v2 : std::min(last + tile.v2, S);
              const std::size_t sub = tile.f0 ? tile.f0 : tile.f;
              for (std::size_t a = first; a < last; a += sub) {
                const std::size_t b = std::min(a + sub, last), end = std::min(b + tile.v2, hi);
                std::vector<std::size_t> window;
                for (auto t = lo; t < static_cast<std::ptrdiff_t>(end); ++t)
                  window.push_back(static_cast<std::size_t>((t + static_cast<std::ptrdiff_t>(S)) %
                                                            static_cast<std::ptrdiff_t>(S)));
                const bool start_zero = !circle && lo == 0;
                const bool end_zero = term == termination::zero_tail && end == S;
                const auto from = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(a) - lo);
                const auto to =
                    static_cast<std::size_t>(static_cast<std::ptrdiff_t>(std::min(b, N)) - lo);
                const auto best =
                    brute_force(code, llr, window, start_zero, end_zero, from, std::max(from, to));
                if (best.margin == 0) {
                  ++ties;
                  continue;
                }
                for (std::size_t t = a; t < std::min(b, N); ++t)
                  EXPECT_EQ(
                      decided[t],
                      best.bits[static_cast<std::size_t>(static_cast<std::ptrdiff_t>(t) - lo)])
                      << "frame " << f << ", stage " << t;
                ++compared;
              }
            }
          }
        }
  // Ties are common (a free start or end, bits punctured away): most windows must still count.
  EXPECT_GT(compared, 3 * ties) << ties << " windows with ties";
  EXPECT_GT(compared, 800u);
}

// At 5 dB the default tiles decide as full maximum-likelihood decoding on every frame, for the
// rate-1/2 code and its 3/4 puncturing (whose overlaps are twice as long), in all terminations.
TEST(ConvTiling, DefaultTilesDecideAsFullDecodingAtHighSnr) {
  const conv_code code(7, {0171, 0133});
  const std::size_t N = 3000, frames = 4;
  std::size_t tracebacks = 0;  // independent tracebacks, each from its own best state
  for (const char* rate : {"1/2", "3/4"})
    for (termination term : all_terminations) {
      const auto pattern = puncture_pattern::standard(rate, 2);
      SCOPED_TRACE(std::string(rate) + ", " + std::string(name_of(term)));
      const encoder enc(code, pattern, N, term);
      const tile_shape tile = default_tile_shape(code, pattern);
      ASSERT_GT(tile.f0, 0u);
      tiled_decoder tiled(code, pattern, N, term, tile);
      reference_decoder reference(code, pattern, N, term);
      tracebacks += frames * tiled.tiles() * ((tile.f + tile.f0 - 1) / tile.f0);
      const double sigma = channel::sigma_from_ebn0(5.0, pattern.rate());
      for (std::size_t f = 0; f < frames; ++f) {
        const auto frame = make_frame(enc, sigma, 33, f, 8.0);
        std::vector<std::uint8_t> a(N), b(N);
        tiled.decode(frame.llr, a);
        reference.decode(std::span<const std::int8_t>(frame.llr), b);
        EXPECT_EQ(a, b) << "frame " << f;
      }
    }
  EXPECT_GT(tracebacks, 250u);
}

TEST(ConvTiling, ShapeTextAndValidation) {
  EXPECT_EQ(parse_tile_shape("256,35,35"), (tile_shape{256, 35, 35, 0}));
  EXPECT_EQ(parse_tile_shape("300,20,45,32"), (tile_shape{300, 20, 45, 32}));
  EXPECT_EQ(parse_tile_shape("300,20,45,32").to_string(), "f=300 v1=20 v2=45 f0=32");
  const auto message = [](const char* text) {
    try {
      parse_tile_shape(text);
    } catch (const invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("256,35").find("expected f,v1,v2 or f,v1,v2,f0 (2 values given)"),
            std::string::npos)
      << message("256,35");
  EXPECT_NE(message("a,1,2").find("tile \"a,1,2\": expected"), std::string::npos);
  EXPECT_NE(message("1,2,3,4,5").find("expected"), std::string::npos);
  EXPECT_NE(message("-1,2,3").find("expected"), std::string::npos);
  EXPECT_NE(message("0,2,3").find("f = 0"), std::string::npos);
  EXPECT_NE(message("8,2,3,9").find("f0 = 9 exceeds f = 8"), std::string::npos);
  EXPECT_NE(message("65536,1,1").find("exceed the most a tile may run, 65536"), std::string::npos)
      << message("65536,1,1");
  EXPECT_EQ(message("65534,1,1"), "accepted");

  const conv_code code(7, {0171, 0133});
  EXPECT_EQ(default_tile_shape(code, puncture_pattern::none(2)), (tile_shape{1056, 36, 36, 66}));
  EXPECT_EQ(default_tile_shape(code, puncture_pattern::standard("3/4", 2)),
            (tile_shape{1056, 72, 72, 66}));
  EXPECT_EQ(default_tile_shape(conv_code(5, {023, 035}), puncture_pattern::none(2)),
            (tile_shape{1024, 28, 28, 64}));
  // K = 9: whole 6-stage cycles (the four-lane register kernel), v2 4/3 of the depth 45.
  const conv_code k9(9, {0561, 0753});
  EXPECT_EQ(default_tile_shape(k9, puncture_pattern::none(2)), (tile_shape{1056, 48, 60, 66}));
  EXPECT_EQ(default_tile_shape(conv_code(8, {0371, 0247}), puncture_pattern::none(2)),
            (tile_shape{256, 40, 40, 0}));
}

// The CUDA plan's default tile length for a batch (the register kernel, conv/plan/cuda_engine.hpp):
// the shortest multiple of the unit that fits a batch of at least a wave of tiles in whole waves,
// at most as many as the nominal length fills, the last at least 90% full; the nominal length for
// less than a wave.
TEST(ConvTiling, TileLengthFitsTheBatchToWholeWaves) {
  const std::size_t N = std::size_t{1} << 20, wave = 132 * 12 * 32;  // an H200, 12 warps per SM
  // 64 frames: 63 552 tiles of 1056 stages, 1.25 waves; 1332 stages fill one (50 432 tiles).
  EXPECT_EQ(detail::fitted_tile_length(1056, N, 64, wave, 12), 1332u);
  // 512 frames: 10.03 waves at 1056; 1068 fills 10 (491 520 tiles), 1056 would need 11.
  EXPECT_EQ(detail::fitted_tile_length(1056, N, 512, wave, 12), 1068u);
  // Less than a wave (one frame), frames of one nominal tile, streams (no batch): nominal.
  EXPECT_EQ(detail::fitted_tile_length(1056, N, 1, wave, 12), 1056u);
  EXPECT_EQ(detail::fitted_tile_length(1056, 200, 100000, wave, 12), 1056u);
  EXPECT_EQ(detail::fitted_tile_length(1056, N, 0, wave, 12), 1056u);
  // The register kernel's unit at K = 7, 48 stages (tiles on 16 stages, register_shape.cu): 1344
  // for 64 frames (one wave, 49 984 tiles, 98.6% of it). 256 frames: 1104 would fill 4.80 of 5
  // waves, 1344 fills 3.94 of 4. 512: 1104 9.59 of 10, 1200 8.83, 1344 7.89, 1536 6.90 (89.9%),
  // 1776 5.97. 1024: 1104 19.19, 1152 18.40, 1200 17.66, 1248 16.99 of 17.
  EXPECT_EQ(detail::fitted_tile_length(1056, N, 64, wave, 48), 1344u);
  EXPECT_EQ(detail::fitted_tile_length(1056, N, 256, wave, 48), 1344u);
  EXPECT_EQ(detail::fitted_tile_length(1056, N, 512, wave, 48), 1776u);
  EXPECT_EQ(detail::fitted_tile_length(1056, N, 1024, wave, 48), 1248u);
  // More frames than a wave has tiles: a tile per frame at most... here two per frame still fit.
  EXPECT_EQ(detail::fitted_tile_length(1056, 2000, 60000, wave, 12), 1056u);
  // Any batch, against a search over every length: a multiple of the unit, the shortest whose
  // last wave is at least 90% full in at most floor(T / wave) waves and at least half as many,
  // else the shortest that fits floor(T / wave) waves.
  std::uint64_t x = 12345;
  const auto next = [&](std::uint64_t n) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    return (x >> 33) % n;
  };
  int fitted = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const std::size_t unit = 4 * (1 + next(3)), nominal = unit * (20 + next(200));
    const std::size_t n = 1 + next(1u << 21), frames = 1 + next(2000), w = 32 * (4 + next(2000));
    SCOPED_TRACE(::testing::Message() << "N " << n << " frames " << frames << " wave " << w
                                      << " unit " << unit << " nominal " << nominal);
    const std::size_t f = detail::fitted_tile_length(nominal, n, frames, w, unit);
    const auto tiles = [&](std::size_t len) { return frames * ((n + len - 1) / len); };
    if (tiles(nominal) < w || n <= nominal) {
      EXPECT_EQ(f, nominal);
      continue;
    }
    if (f == nominal) continue;  // a tile per frame would not fill the waves
    ++fitted;
    EXPECT_EQ(f % unit, 0u);
    EXPECT_LE(f, 3 * nominal);  // about twice at most (half the waves, rounded)
    const std::size_t most = tiles(nominal) / w;
    std::size_t shortest = unit;  // the shortest length that fits `most` waves
    while (tiles(shortest) > most * w) shortest += unit;
    const auto full = [&](std::size_t len) {  // in most..most/2 waves, the last 90% full
      const std::size_t t = tiles(len), used = (t + w - 1) / w;
      return used <= most && 2 * used >= most && 10 * t >= (10 * used - 1) * w;
    };
    std::size_t expected = shortest;
    for (std::size_t len = shortest;
         2 * ((tiles(len) + w - 1) / w) >= most && (n + len - 1) / len >= 2; len += unit)
      if (full(len)) {
        expected = len;
        break;
      }
    EXPECT_EQ(f, expected);
  }
  EXPECT_GT(fitted, 500);
}

TEST(ConvTiling, PlanChoosesTheTiledDecoderAndRefusesMisplacedOptions) {
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::none(2);
  decoder_options options;
  options.decoder = decoder_kind::tiled;
  options.tile = {64, 16, 40, 16};
  const decoder_plan plan(code, pattern, 1000, termination::tail_biting, options);
  EXPECT_EQ(plan.summary().decoder, decoder_kind::tiled);
  EXPECT_EQ(plan.summary().tile, options.tile);
  EXPECT_EQ(plan.summary().wrap_stages, 0u);
  const std::string text = plan.describe();
  EXPECT_NE(text.find("tiled (the CUDA kernel's algorithm on the CPU: f=64 v1=16 v2=40 f0=16, "
                      "parallel traceback by subframes of 16 stages, 16 tiles per frame)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("wrap-around"), std::string::npos) << text;

  decoder_options defaults;
  defaults.decoder = decoder_kind::tiled;
  EXPECT_EQ(decoder_plan(code, pattern, 1000, termination::zero_tail, defaults).summary().tile,
            default_tile_shape(code, pattern));

  decoder_options misplaced;
  misplaced.tile = {64, 16, 40, 0};
  EXPECT_THROW(decoder_plan(code, pattern, 1000, termination::zero_tail, misplaced),
               invalid_argument);
  options.wrap_stages = 20;
  EXPECT_THROW(decoder_plan(code, pattern, 1000, termination::tail_biting, options),
               invalid_argument);
}

// A zero-sending cycle found where one exists: the textbook catastrophic code (1 + D, 1 + D^2),
// and K = 9 (561,753) under the DVB-S 3/4 pattern (made for K = 7), where every third input bit
// can flip forever unseen; the standard codes and their standard puncturings have none.
TEST(ConvTiling, CatastrophicCodesAreRecognized) {
  EXPECT_TRUE(catastrophic(conv_code(3, {06, 05}), puncture_pattern::none(2)));
  const conv_code k9(9, {0561, 0753});
  EXPECT_FALSE(catastrophic(k9, puncture_pattern::none(2)));
  EXPECT_TRUE(catastrophic(k9, puncture_pattern::standard("3/4", 2)));
  const conv_code k7(7, {0171, 0133});
  for (const char* rate : {"1/2", "2/3", "3/4", "5/6", "7/8"})
    EXPECT_FALSE(catastrophic(k7, puncture_pattern::standard(rate, 2))) << rate;
  EXPECT_FALSE(
      catastrophic(conv_code::recursive_systematic(4, {013, 015}), puncture_pattern::none(2)));
  decoder_options tiled;
  tiled.decoder = decoder_kind::tiled;
  const decoder_plan plan(k9, puncture_pattern::standard("3/4", 2), 100, termination::truncated,
                          tiled);
  EXPECT_NE(plan.describe().find("warning: the code is catastrophic under this pattern"),
            std::string::npos)
      << plan.describe();
}

}  // namespace
}  // namespace gpufec::conv
