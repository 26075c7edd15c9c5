#include "common/cuda/launch_shape.hpp"

#include <algorithm>
#include <bit>

#include "gpufec/common/error.hpp"

namespace gpufec::cuda {

int launch_shape::grid_stride_blocks(int sm_count, unsigned long long items) const {
  const unsigned long long needed = (items + threads - 1) / threads;
  const unsigned long long most =
      static_cast<unsigned long long>(std::max<long long>(1, wave(sm_count)));
  return static_cast<int>(std::max<unsigned long long>(1, std::min(needed, most)));
}

namespace {

launch_shape::frame_grid grid_of(long long wave, unsigned tx, unsigned ty, unsigned long long items,
                                 unsigned long long frames) {
  const unsigned long long most = static_cast<unsigned long long>(std::max<long long>(1, wave));
  const unsigned long long x = std::clamp<unsigned long long>((items + tx - 1) / tx, 1, most);
  const unsigned long long rows = std::max<unsigned long long>(1, (frames + ty - 1) / ty);
  const unsigned long long y =
      std::clamp<unsigned long long>(most / x, 1, std::min(rows, 65535ull));
  return {static_cast<unsigned>(x), static_cast<unsigned>(y), tx, ty};
}

}  // namespace

launch_shape::frame_grid launch_shape::frame_blocks(int sm_count, unsigned long long items,
                                                    unsigned long long frames) const {
  return grid_of(wave(sm_count), static_cast<unsigned>(threads), 1, items, frames);
}

launch_shape::frame_grid launch_shape::packed_frame_blocks(int sm_count, unsigned long long items,
                                                           unsigned long long frames) const {
  unsigned tx = 1;
  while (tx < static_cast<unsigned>(threads) && tx < items) tx *= 2;
  tx = std::bit_floor(std::min(tx, static_cast<unsigned>(threads)));  // rows of a power of two
  // Narrower rows (down to a warp) while a frame's rows would leave more than 1/32
  // of their lanes idle: 4099 items take 33 rows of 128, not 5 of 1024 with the last all but
  // empty.
  const auto idle = [&](unsigned long long w) { return (items + w - 1) / w * w - items; };
  while (tx > 32 && idle(tx) * 32 > items) tx = std::bit_floor(tx - 1);
  return grid_of(wave(sm_count), tx, static_cast<unsigned>(threads) / tx, items, frames);
}

std::string to_string(const launch_shape& s) {
  return cat("block ", s.threads, " (", s.Bx, " x ", s.By, "), shared ", s.shared, " B, ",
             s.blocks_per_sm, " blocks/SM");
}

}  // namespace gpufec::cuda
