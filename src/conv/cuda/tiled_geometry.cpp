// The CUDA tiled kernels' parameters from the code, the frames and the tile (tiled_geometry.hpp).
#include "conv/cuda/tiled_geometry.hpp"

#include <algorithm>

#include "gpufec/common/align.hpp"

namespace gpufec::conv::detail {

puncture_tables make_puncture_tables(const conv_code& code, const puncture_pattern& pattern) {
  const auto period = static_cast<std::size_t>(pattern.period());
  puncture_tables t{std::vector<int>(period), std::vector<std::uint8_t>(period)};
  for (std::size_t q = 0; q < period; ++q) {
    t.phase_base[q] = static_cast<int>(pattern.sent_before(q));
    for (int b = 0; b < code.beta(); ++b)
      if (pattern.sends(b, q)) t.phase_mask[q] |= static_cast<std::uint8_t>(1u << b);
  }
  return t;
}

void set_frame_geometry(tiled_params& p, const conv_code& code, const puncture_pattern& pattern,
                        const frame_shape& shape, termination term, const tile_shape& tile) {
  p.N = static_cast<unsigned>(shape.stages);
  p.info_bits = static_cast<unsigned>(shape.info_bits);
  p.coded_bits = static_cast<unsigned>(shape.coded_bits);
  p.tiles_per_frame = static_cast<unsigned>((shape.stages + tile.f - 1) / tile.f);
  p.f = static_cast<unsigned>(tile.f);
  p.v1 = static_cast<unsigned>(tile.v1);
  p.v2 = static_cast<unsigned>(tile.v2);
  p.sub = static_cast<unsigned>(tile.f0 ? tile.f0 : tile.f);
  p.S = static_cast<int>(code.states());
  p.beta = code.beta();
  p.period = pattern.period();
  p.sent_per_period = pattern.sent_per_period();
  p.circle = term == termination::tail_biting;
  p.zero_tail = term == termination::zero_tail;
  p.grid = 0;
  p.open_start = false;
}

unsigned register_ring(const tile_shape& tile, const frame_shape& shape, bool circle, int K,
                       std::size_t cycle) {
  const std::size_t sub = tile.f0 ? tile.f0 : tile.f;
  const std::size_t longest = circle ? std::min(tile.f, shape.stages) + tile.v1 + tile.v2
                                     : std::min(tile.stages(), shape.stages);
  const auto back = static_cast<std::size_t>(K - 1);
  const std::size_t walked = std::min(sub + tile.v2, longest);
  return static_cast<unsigned>(round_up(std::max(walked > back ? walked - back : 0, cycle), cycle));
}

}  // namespace gpufec::conv::detail
