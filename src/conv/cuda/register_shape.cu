// How the register kernel runs on this device: ring, residency and the fitted default tile
// (register_shape.cuh).
#include "conv/cuda/register_shape.cuh"

#include <algorithm>
#include <numeric>

#include "conv/cuda/kernels/tiled_params.cuh"
#include "conv/cuda/policy.hpp"
#include "conv/cuda/tiled_geometry.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "gpufec/common/align.hpp"

namespace gpufec::conv::detail {

cuda::launch_shape register_residency(const register_kernel_entry& entry, bool punctured,
                                      unsigned ring, const cuda::device_limits& limits) {
  const void* kernel = entry.kernel[punctured ? 1 : 0];
  const std::size_t per_thread =
      std::size_t{ring_row_words(ring, static_cast<unsigned>(entry.words))} * sizeof(unsigned);
  cudaFuncAttributes attributes{};
  GPUFEC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const int most_threads = std::min(
      {policy::register_max_threads, limits.max_block_threads, attributes.maxThreadsPerBlock});
  cuda::shape_search search(kernel, limits.shared_optin);
  int natural = 0;
  for (int threads = 32; threads <= most_threads; threads += 32) {
    const std::size_t shared = per_thread * static_cast<std::size_t>(threads);
    if (shared > limits.shared_optin) break;
    const int warps = threads / 32, blocks = search.resident(threads, shared);
    // The most blocks whose warps are a whole number per scheduler.
    const int step = kSchedulersPerSM / std::gcd(warps, kSchedulersPerSM);
    const int even = blocks / step * step;
    if (search.offer({threads, 1, threads, shared, even}, static_cast<long long>(even) * warps))
      natural = blocks;
  }
  cuda::launch_shape best = search.best();
  if (!best || natural == best.blocks_per_sm) return best;
  // Pad the block's shared memory, to the least that keeps out the blocks beyond `even` (fewer
  // blocks fit as a block takes more).
  cuda::allow_shared(kernel, limits.shared_optin);
  std::size_t lo = best.shared, hi = limits.shared_optin;  // lo lets too many in, hi few enough
  if (cuda::resident_blocks(kernel, best.threads, hi) > best.blocks_per_sm) return best;
  while (hi - lo > 16) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (cuda::resident_blocks(kernel, best.threads, mid) > best.blocks_per_sm ? lo : hi) = mid;
  }
  best.shared = hi;
  best.blocks_per_sm = cuda::resident_blocks(kernel, best.threads, hi);
  return best;
}

std::size_t register_wave_tiles(const register_kernel_entry& entry, const cuda::launch_shape& shape,
                                const cuda::device_limits& limits) {
  return static_cast<std::size_t>(shape.wave(limits.sm_count)) *
         static_cast<std::size_t>(shape.threads / entry.lanes);
}

tile_shape fitted_register_tile(const register_kernel_entry& entry, bool punctured,
                                const tile_shape& nominal, const frame_shape& shape, bool circle,
                                int K, std::size_t frames, const cuda::device_limits& limits) {
  // Tiles and subframes start on 4-byte boundaries of the bits (a multiple of 4 stages), which
  // leave as aligned words (register_traceback.cuh): one off a boundary writes its edges by bytes
  // (K = 7 rate 1/2, 64 frames: f = 1326 90.5 Gb/s, f = 1332 103, H200).
  const std::size_t unit = std::lcm(static_cast<std::size_t>(entry.cycle), std::size_t{4});
  // Rate 1/2 unpunctured: tiles on 16 stages, whose int8 LLRs start on 32-byte sectors. At K = 7
  // they ran 3-4% faster than their neighbours in length (H200, bench/RESULTS.md 2026-11-28, 512
  // frames: f = 1104 154.4 Gb/s against 1068 148.8, 1344 154.9 against 1332 149.4, 1776 154.6
  // against 1788 141.1, f = 1800 (8 stages) between; 64 frames 1344 139.4 against 1332 135.8);
  // the cause is not located. Elsewhere it did not carry over (r = 3/4, whose 1992 stages already
  // start on sectors, 83.0 against 79.6 at 2016; r = 1/3 95.2 against 93.7), so the unit stays.
  const std::size_t tile_unit =
      !punctured && entry.beta == 2 ? std::lcm(unit, std::size_t{16}) : unit;
  tile_shape best = nominal;
  cuda::launch_shape best_shape;
  int best_warps = 0;
  for (std::size_t f0 = nominal.f0 / unit * unit; f0 >= round_up(std::size_t{36}, unit);
       f0 -= unit) {
    tile_shape t = nominal;
    t.f0 = f0;
    const cuda::launch_shape s = register_residency(
        entry, punctured, register_ring(t, shape, circle, K, static_cast<std::size_t>(entry.cycle)),
        limits);
    if (const int warps = s.blocks_per_sm * s.threads / 32; warps > best_warps) {
      best_warps = warps;
      best = t;
      best_shape = s;
    }
  }
  if (!best_shape) return nominal;
  // A batch of less than a wave leaves room on every SM whatever the ring: it keeps the default,
  // whose longer subframes trace back less (K = 7 rate 1/2, 16 and 32 frames of 2^20 bits: 58.0
  // and 79.3 Gb/s against 54.7 and 75.7 at f0 = 36, H200).
  const std::size_t wave = register_wave_tiles(entry, best_shape, limits);
  if (frames > 0 && batch_tiles(nominal.f, shape.stages, frames) < wave) return nominal;
  best.f = fitted_tile_length(nominal.f, shape.stages, frames, wave, tile_unit);
  return best;
}

}  // namespace gpufec::conv::detail
