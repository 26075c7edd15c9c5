// The CUDA register Viterbi kernel's own code (register_kernel.cuh, register_traceback.cuh,
// register_pack.cuh) run on the host, thread by thread (register_kernel_host.hpp), against its
// oracle, the CPU tiled decoder: the same bits on every frame. This checks the kernel's
// algorithm (metric layout, tagged decisions, ring, walks, bit output) on any machine, CI included,
// without a GPU; the GPU tests (tests/conv/cuda/) check it on the device. One lane per tile:
// K = 3, 5 and 7 (K = 9's four lanes shuffle between threads).
#include "conv/register_kernel_host.hpp"
// The kernel's headers, after the host shims above. (The byte fallback of its fetch() fills only
// the stages a tile has and reads only those, which GCC at -O3 cannot see.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "conv/cuda/kernels/register_kernel.cuh"
#pragma GCC diagnostic pop

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "conv/conv_test_util.hpp"
#include "conv/cuda/tiled_geometry.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv {
namespace {

using namespace testing;
using detail::tiled_params;
namespace regs = detail::regs;

// What the engine (src/conv/cuda/tiled_engine.cu) gives the kernel, for frames of `shape`.
struct host_launch {
  detail::puncture_tables tables;
  tiled_params p{};

  host_launch(const conv_code& code, const puncture_pattern& pattern, const frame_shape& shape,
              termination term, const tile_shape& tile, std::size_t frames, int cycle)
      : tables(detail::make_puncture_tables(code, pattern)) {
    detail::set_frame_geometry(p, code, pattern, shape, term, tile);
    p.frames = frames;
    p.phase_base = tables.phase_base.data();
    p.phase_mask = tables.phase_mask.data();
    p.ring =
        detail::register_ring(tile, shape, p.circle, code.K(), static_cast<std::size_t>(cycle));
  }
};

// The kernel's bits for `llr` ([frame][coded bit]): every tile of every frame, one after another,
// each with a ring of its own.
template <class Spec>
std::vector<std::uint8_t> emulate(const conv_code& code, const puncture_pattern& pattern,
                                  std::size_t N, termination term, const tile_shape& tile,
                                  const std::vector<std::int8_t>& llr, std::size_t frames) {
  const frame_shape shape = make_frame_shape(code, pattern, N, term);
  host_launch launch(code, pattern, shape, term, tile, frames, Spec::phases);
  std::vector<std::uint8_t> bits(frames * shape.info_bits, 2);
  launch.p.llr = llr.data();
  launch.p.bits = bits.data();
  std::vector<unsigned> ring(detail::ring_row_words(launch.p.ring, Spec::words));
  // As the kernel makes it: the reference, the ring and the unit; run() sets the rest.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
  for (std::size_t frame = 0; frame < frames; ++frame)
    for (unsigned i = 0; i < launch.p.tiles_per_frame; ++i) {
      if (pattern.punctures()) {
        regs::tile_run<Spec, true> run{launch.p, ring.data(), 1u};
        run.run(frame, i);
      } else {
        regs::tile_run<Spec, false> run{launch.p, ring.data(), 1u};
        run.run(frame, i);
      }
    }
#pragma GCC diagnostic pop
  return bits;
}

std::vector<std::uint8_t> tiled_bits(const conv_code& code, const puncture_pattern& pattern,
                                     std::size_t N, termination term, const tile_shape& tile,
                                     const std::vector<std::int8_t>& llr, std::size_t frames) {
  tiled_decoder decoder(code, pattern, N, term, tile);
  const std::size_t n = decoder.shape().coded_bits, k = decoder.shape().info_bits;
  std::vector<std::uint8_t> bits(frames * k);
  for (std::size_t f = 0; f < frames; ++f)
    decoder.decode(std::span<const std::int8_t>(llr).subspan(f * n, n),
                   std::span<std::uint8_t>(bits).subspan(f * k, k));
  return bits;
}

// Every rate, termination and a few tile shapes (whole cycles, as the engine runs this kernel;
// (22 P, 6 P, 6 P, 6 P) has the subframes and overlaps of the shape a CUDA plan fits for large
// K = 7 batches, f0 = v2 = 36), on frames whose stage counts are even and odd (N = 997: tiles
// that end inside a group).
template <class Spec>
void expect_tiled_decoder_bits(const conv_code& code) {
  const std::size_t frames = 6, P = Spec::phases;
  for (const std::size_t N : {std::size_t{997}, std::size_t{1200}})
    for (const auto& pattern : patterns_for(code))
      for (termination term : all_terminations)
        for (const tile_shape& tile :
             {default_tile_shape(code, pattern), tile_shape{17 * P, 6 * P, 6 * P, 3 * P},
              tile_shape{P, P, P, P}, tile_shape{8 * P, 2 * P, 3 * P, 0},
              tile_shape{22 * P, 6 * P, 6 * P, 6 * P}}) {
          if (!can_encode(code, pattern, N, term)) continue;
          SCOPED_TRACE(code.to_string() + ", pattern " + pattern.to_string() + ", " +
                       std::string(name_of(term)) + ", N = " + std::to_string(N) + ", " +
                       tile.to_string());
          const encoder enc(code, pattern, N, term);
          const auto batch =
              make_int8_batch(enc, frames, 0.9 * std::sqrt(0.5 / pattern.rate()), 61, 3.0);
          ASSERT_EQ(emulate<Spec>(code, pattern, N, term, tile, batch.llr, frames),
                    tiled_bits(code, pattern, N, term, tile, batch.llr, frames));
        }
}

// int8 LLRs over the whole range, -128 included: half the frames random, four in ten values -128
// (as the device test RegisterKernelTakesTheWholeInt8Range), the other half the codeword of an
// all-ones message at full strength (127 for a 0, -128 for a 1), where the best path gains the
// most a stage allows and state 0 (by which the tagged kernel renormalizes) lies far below it:
// K = 7's tagged metrics reach 30 720 (the bound in register_kernel.cuh is 36 882).
template <class Spec>
void expect_tiled_decoder_bits_on_the_whole_range(const conv_code& code) {
  const std::size_t N = 600, frames = 8, P = Spec::phases;
  for (const auto& pattern : patterns_for(code))
    for (termination term : all_terminations)
      for (const tile_shape& tile :
           {default_tile_shape(code, pattern), tile_shape{10 * P, 4 * P, 5 * P, 3 * P}}) {
        if (!can_encode(code, pattern, N, term)) continue;
        SCOPED_TRACE(code.to_string() + ", pattern " + pattern.to_string() + ", " +
                     std::string(name_of(term)) + ", " + tile.to_string());
        const encoder enc(code, pattern, N, term);
        const std::size_t n = enc.shape().coded_bits;
        std::vector<std::uint8_t> coded(n);
        enc.encode(std::vector<std::uint8_t>(enc.shape().info_bits, 1), coded);
        std::vector<std::int8_t> llr(frames * n);
        std::uint64_t x = 99 + llr.size();
        for (std::size_t i = 0; i < llr.size(); ++i) {
          x = x * 6364136223846793005ull + 1442695040888963407ull;
          const auto r = static_cast<unsigned>(x >> 33);
          llr[i] = static_cast<std::int8_t>(i / n % 2     ? (coded[i % n] ? -128 : 127)
                                            : r % 10 < 4  ? -128
                                            : r % 10 == 4 ? 127
                                            : r % 10 == 5 ? -127
                                                          : static_cast<int>((r >> 8) % 256) - 128);
        }
        ASSERT_EQ(emulate<Spec>(code, pattern, N, term, tile, llr, frames),
                  tiled_bits(code, pattern, N, term, tile, llr, frames));
      }
}

TEST(ConvRegisterEmulation, TheWholeInt8RangeEqualsTheTiledDecoder) {
  expect_tiled_decoder_bits_on_the_whole_range<regs::code_spec<7, 2, 0171, 0133>>(
      conv_code(7, {0171, 0133}));
  expect_tiled_decoder_bits_on_the_whole_range<regs::code_spec<7, 3, 0133, 0171, 0165>>(
      conv_code(7, {0133, 0171, 0165}));
  expect_tiled_decoder_bits_on_the_whole_range<regs::code_spec<5, 2, 023, 035>>(
      conv_code(5, {023, 035}));
  expect_tiled_decoder_bits_on_the_whole_range<regs::code_spec<3, 2, 07, 05>>(
      conv_code(3, {07, 05}));
}

TEST(ConvRegisterEmulation, K7EqualsTheTiledDecoder) {
  expect_tiled_decoder_bits<regs::code_spec<7, 2, 0171, 0133>>(conv_code(7, {0171, 0133}));
}
TEST(ConvRegisterEmulation, K7WithThe80211OrderEqualsTheTiledDecoder) {
  expect_tiled_decoder_bits<regs::code_spec<7, 2, 0133, 0171>>(conv_code(7, {0133, 0171}));
}
TEST(ConvRegisterEmulation, K7RateOneThirdEqualsTheTiledDecoder) {
  expect_tiled_decoder_bits<regs::code_spec<7, 3, 0133, 0171, 0165>>(
      conv_code(7, {0133, 0171, 0165}));
}
TEST(ConvRegisterEmulation, K5AndK3EqualTheTiledDecoder) {
  expect_tiled_decoder_bits<regs::code_spec<5, 2, 023, 035>>(conv_code(5, {023, 035}));
  expect_tiled_decoder_bits<regs::code_spec<3, 2, 07, 05>>(conv_code(3, {07, 05}));
}

}  // namespace
}  // namespace gpufec::conv
