// Tiles with overlaps (the paper's section III and IV-D): how the GPU decoder cuts a frame into
// independent pieces, and the tiled decoder, which runs exactly that algorithm on the CPU. The
// tiled decoder is the GPU kernel's oracle (the kernel must give its decisions bit for bit) and
// the tool that measures what tiling costs in BER against full maximum-likelihood decoding
// (bench/conv_tiles, docs/conv.md).
//
// A frame of N trellis stages is cut into tiles of f decoded stages: tile i decodes stages
// [i f, min((i + 1) f, N)). It runs the Viterbi recursion over those stages widened by v1 stages
// on the left (the metrics warm up from all states equal) and v2 on the right (the survivor paths
// converge before the decoded part), clipped to the frame; a tail-biting frame is a circle, so its
// tiles wrap around it instead. Where a tile reaches the frame's known start (state 0) or a
// zero-tail frame's known end (state 0) it uses them; elsewhere it starts from all states at
// metric 0 and traces back from its best end state (the lowest-numbered among equals).
//
// Parallel traceback (section IV-D): with f0 > 0 the decoded part of a tile is cut into subframes
// of f0 stages, each traced back by its own thread from the state that was best at stage
// min(subframe end + v2, tile end) during the forward pass (the paper's second, better variant:
// only one state per subframe is stored, not the metrics). f0 = 0 traces each tile back once.
//
// Arithmetic: int8 LLRs (float LLRs quantized as for the fast decoder, hard bits as +-1), branch
// metrics and ties as the reference decoder (reference.hpp); all sums are exact integers, so the
// decisions do not depend on how a machine renormalizes its path metrics. One tile that covers the
// frame (f >= N, v1, v2 >= 0) is the reference decoder itself, ties included, and for tail-biting
// with v1 = v2 = W it is the reference's wrap-around method with W stages on each side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpufec/common/stop_token.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/puncture.hpp"

namespace gpufec::conv {

struct tile_shape {
  std::size_t f = 0;   // decoded stages per tile
  std::size_t v1 = 0;  // left overlap: warm-up stages before the decoded part
  std::size_t v2 = 0;  // right overlap: traceback convergence stages after it
  std::size_t f0 = 0;  // parallel traceback: decoded stages per subframe; 0 = one per tile

  std::size_t stages() const { return v1 + f + v2; }  // the most a tile runs
  // "f=256 v1=32 v2=48 f0=0".
  std::string to_string() const;
  friend bool operator==(const tile_shape&, const tile_shape&) = default;
};

// The largest tile the decoders accept (the GPU keeps a tile's survivors on chip).
inline constexpr std::size_t max_tile_stages = 1u << 16;

// Throws invalid_argument naming the field: f = 0, f0 > f, or more than max_tile_stages stages.
void validate(const tile_shape& tile);

// "f,v1,v2" or "f,v1,v2,f0" (decimal); throws invalid_argument quoting the text.
tile_shape parse_tile_shape(std::string_view text);

// The default shape for a code and pattern, with D = the traceback depth 2.5 K / (1 - R)
// (default_traceback_depth): K <= 7: f0 = 64 and v1 = v2 = D, each rounded up to a multiple of
// K-1, and f = 16 f0 (the CUDA register kernel's shape: 1056, 36, 36, 66 for K = 7 at rate 1/2);
// K = 9: f = 1056, f0 = 66, v1 = D and v2 = 4 D / 3, rounded up to whole 6-stage cycles (the
// four-lane register kernel's: 1056, 48, 60, 66 at rate 1/2); K = 8: f = 256, v1 = v2 = D, f0 = 0.
// docs/conv.md gives the BER loss measured against full ML decoding that supports them. (A CUDA
// plan or stream given no shape runs this one where the register kernel is compiled for the code,
// a plan fitted to the device and its batch unless decoder_options::fit_tile is false, and the
// shared-memory kernel's own, 256, D, D, 0, elsewhere: decoder_plan::summary().tile,
// stream_decoder::tile().)
tile_shape default_tile_shape(const conv_code& code, const puncture_pattern& pattern);

namespace detail {
// Where a run of tiles lies: a frame (grid 0, its start known unless it is a circle) or a window
// of a continuous stream (stream_tiles.hpp: tiles from window stage `grid` on, the start unknown
// when the window begins inside the stream). Tile i decodes [grid + i f, grid + (i+1) f) of N.
struct tile_grid {
  std::size_t N = 0, grid = 0;
  bool circle = false, zero_tail = false, open_start = false;
};
// One tile's working memory (the most a tile runs).
struct tile_scratch {
  tile_scratch(const conv_code& code, const tile_shape& tile);
  std::vector<double> tile_llr;         // [tile stage][b]
  std::vector<std::uint8_t> decisions;  // [tile stage][state]
  std::vector<double> metric, next;     // [state]
  std::vector<unsigned> boundary_best;  // [tile stage + 1]: best state there (f0 > 0)
};
// Runs tile `i` of `grid` over `llr` ([stage][b], depunctured, grid.N stages) and writes its
// decoded stages' input bits to stage_bits[stage].
void decode_tile(const conv_code& code, const tile_shape& tile, const tile_grid& grid,
                 const double* llr, std::size_t i, tile_scratch& scratch, std::uint8_t* stage_bits);
}  // namespace detail

class tiled_decoder {
 public:
  // Throws invalid_argument for a bad frame (make_frame_shape) or tile shape.
  tiled_decoder(const conv_code& code, const puncture_pattern& pattern, std::size_t info_bits,
                termination term, const tile_shape& tile);

  const frame_shape& shape() const { return shape_; }
  const tile_shape& tile() const { return tile_; }
  // The number of tiles a frame is cut into.
  std::size_t tiles() const { return (shape_.stages + tile_.f - 1) / tile_.f; }

  // One frame of shape().coded_bits int8 LLRs -> shape().info_bits decided bits. Throws
  // invalid_argument for wrong sizes, gpufec::stopped when `stop` is requested (checked between
  // tiles). Allocates nothing.
  void decode(std::span<const std::int8_t> llrs, std::span<std::uint8_t> bits,
              const stop_token& stop = {});

 private:
  conv_code code_;
  puncture_pattern pattern_;
  termination term_;
  frame_shape shape_;
  tile_shape tile_;
  std::vector<double> llr_;  // [stage][b] of the frame, depunctured
  detail::tile_scratch scratch_;
  std::vector<std::uint8_t> stage_bits_;  // [stage]: decided input bit of every frame stage
};

}  // namespace gpufec::conv
