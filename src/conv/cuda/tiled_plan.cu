// plan_tiled_cuda (plan/cuda_engine.hpp): every choice of the CUDA tiled Viterbi engine, made once
// from the device's limits, the occupancy API and conv/cuda/policy.hpp. The tile (the options',
// else the kernel's default, fitted to the device and the batch), the kernel (the register kernel,
// kernels/register_kernel.cuh, for the compiled feedforward codes on tiles of whole cycles whose
// ring fits; else the shared-memory kernel, kernels/shared_kernel.cuh), its block, the tiles of a
// wave, and how host batches and the device float and hard paths are cut.
#include <algorithm>
#include <climits>

#include "common/cuda/chunk_pipeline.cuh"
#include "common/cuda/occupancy.cuh"
#include "conv/cuda/kernels/shared_kernel.cuh"
#include "conv/cuda/policy.hpp"
#include "conv/cuda/register_shape.cuh"
#include "conv/cuda/register_table.hpp"
#include "conv/cuda/tiled_geometry.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "conv/stream/stream_tiles.hpp"
#include "gpufec/common/align.hpp"

namespace gpufec::conv::detail {
namespace {

// default_device_tile once the register kernel has been looked up.
tile_shape default_tile_for(const register_kernel_entry* entry, const conv_code& code,
                            const puncture_pattern& pattern, cuda_kernel kernel) {
  if (kernel != cuda_kernel::shared_memory && entry) return default_tile_shape(code, pattern);
  const std::size_t depth = default_traceback_depth(code, pattern);
  return {policy::shared_kernel_f, depth, depth, 0};
}

// The shared-memory kernel's slot (a warp's tile): its branch-metric table, survivors, path
// metrics and subframe bests, each on 16 bytes.
void set_shared_layout(tiled_params& p, const conv_code& code, const tile_shape& tile) {
  const std::size_t most = tile.stages(), sub = tile.f0 ? tile.f0 : tile.f;
  const unsigned S = code.states();
  p.labels = 1 << code.beta();
  p.words = static_cast<int>((S + 31) / 32);
  p.dtab_bytes = static_cast<unsigned>(align16(most * p.labels * sizeof(short)));
  p.surv_bytes = static_cast<unsigned>(align16(most * p.words * sizeof(unsigned)));
  p.pm_bytes = static_cast<unsigned>(align16(2 * S * sizeof(int)));
  p.slot_bytes = p.dtab_bytes + p.surv_bytes + p.pm_bytes +
                 static_cast<unsigned>(align16(((tile.f + sub - 1) / sub) * sizeof(int)));
}

// The shared-memory kernel's block: 1, 2, 4, ... warps, the most resident warps per SM.
cuda::launch_shape shared_kernel_shape(unsigned slot_bytes, const cuda::device_limits& limits) {
  cuda::shape_search search(tiled_viterbi_kernel, limits.shared_optin);
  for (int warps = 1; warps <= policy::shared_kernel_max_warps; warps *= 2) {
    const std::size_t shared = static_cast<std::size_t>(warps) * slot_bytes;
    if (shared > limits.shared_optin || 32 * warps > limits.max_block_threads) break;
    const int blocks = search.resident(32 * warps, shared);
    search.offer({32 * warps, 32, warps, shared, blocks}, static_cast<long long>(blocks) * warps);
  }
  require(search.best().threads > 0, "the CUDA conv kernel cannot be resident with ", slot_bytes,
          " bytes of shared memory per tile");
  return search.best();
}

}  // namespace

tile_shape default_device_tile(const conv_code& code, const puncture_pattern& pattern,
                               cuda_kernel kernel) {
  return default_tile_for(find_register_kernel(code), code, pattern, kernel);
}

cuda_plan plan_tiled_cuda(const tiled_setup& setup) {
  const conv_code& code = setup.code;
  const puncture_pattern& pattern = setup.pattern;
  const frame_shape& fs = setup.shape;
  const register_kernel_entry* entry = find_register_kernel(code);  // null: not compiled for it
  const cuda::device_limits limits = cuda::current_device_limits();
  cuda_plan plan;
  plan.sm_count = limits.sm_count;
  plan.shared_optin = limits.shared_optin;

  plan.tile = setup.tile;
  if (plan.tile.f == 0) {
    plan.tile = default_tile_for(entry, code, pattern, setup.kernel);
    plan.source = cuda_plan::tile_source::kernel_default;
    if (setup.fit_tile && entry && setup.kernel != cuda_kernel::shared_memory) {
      const tile_shape nominal = plan.tile;
      plan.tile = fitted_register_tile(*entry, pattern.punctures(), nominal, fs,
                                       setup.term == termination::tail_biting, code.K(),
                                       setup.max_batch, limits);
      if (!(plan.tile == nominal)) plan.source = cuda_plan::tile_source::fitted;
    }
  }
  const tile_shape& tile = plan.tile;
  validate(tile);
  // The kernels index a frame's stages and LLRs with 32 bits (a batch's frames with 64).
  require(fs.coded_bits <= UINT_MAX && fs.stages <= UINT_MAX,
          "the CUDA conv decoder takes frames of up to ", UINT_MAX,
          " LLRs and stages (this one: ", fs.coded_bits, " LLRs over ", fs.stages,
          " stages); decode a longer one as a stream (stream_decoder, decode --term stream)");
  require(code.states() <= 32u * kMaxWords, "the CUDA conv decoder takes up to ", 32 * kMaxWords,
          " states (K <= 9)");

  tiled_params& p = plan.params;
  set_shared_layout(p, code, tile);
  require(p.slot_bytes <= limits.shared_optin, "a tile of ", tile.stages(),
          " stages of K = ", code.K(), " needs ", p.slot_bytes,
          " bytes of shared memory; this device gives a block ", limits.shared_optin,
          " (shorten f, v1 or v2)");
  set_frame_geometry(p, code, pattern, fs, setup.term, tile);
  p.checks = setup.test.register_checks;
  // The register kernel's ring: whole cycles (K - 1 stages, 6 on four lanes).
  p.ring = register_ring(tile, fs, p.circle, code.K(),
                         static_cast<std::size_t>(entry ? entry->cycle : code.K() - 1));

  // The register kernel where it is compiled for the code, the tile is whole cycles and a warp
  // per scheduler fits with its ring (register_residency).
  if (entry && setup.kernel != cuda_kernel::shared_memory) {
    const auto cycle = static_cast<std::size_t>(entry->cycle);
    const bool whole_cycles =
        tile.f % cycle == 0 && tile.f0 % cycle == 0 && tile.v1 % cycle == 0 && tile.v2 % cycle == 0;
    if (whole_cycles) {
      const cuda::launch_shape shape =
          register_residency(*entry, pattern.punctures(), p.ring, limits);
      if (shape) {
        plan.registers = true;
        plan.lanes = entry->lanes;
        plan.shape = shape;
      }
    }
  }
  require(setup.kernel != cuda_kernel::registers || plan.registers,
          "the CUDA register kernel is compiled for K = 7 (171,133), (133,171) and "
          "(133,171,165), K = 9 (561,753) and (557,663,711), K = 5 (23,35) and K = 3 (7,5), "
          "feedforward, on tiles whose f, f0, v1 and v2 are whole cycles (K-1 stages; 6 for "
          "K = 9) and whose ring of f0 + v2 - (K-1) stages fits shared memory (",
          code.to_string(), ", tile ", tile.to_string(), ")");
  if (!plan.registers) plan.shape = shared_kernel_shape(p.slot_bytes, limits);

  plan.resident_tiles =
      static_cast<std::size_t>(plan.shape.wave(limits.sm_count)) *
      static_cast<std::size_t>(plan.registers ? plan.shape.threads / plan.lanes : plan.shape.By);
  const std::size_t host_chunk =
      std::max<std::size_t>(policy::host_chunk_llr_bytes / fs.coded_bits, 1);
  plan.quantizer_frames =
      std::min(std::max((policy::quantizer_waves * plan.resident_tiles + p.tiles_per_frame - 1) /
                            p.tiles_per_frame,
                        host_chunk),
               std::max<std::size_t>(setup.max_batch, 1));
  // The code's tables the kernels read (the engine uploads them), then the host pipeline's lanes.
  const puncture_tables tables = make_puncture_tables(code, pattern);
  plan.device_bytes = tables.phase_base.size() * sizeof(int) + tables.phase_mask.size() +
                      2 * std::size_t{code.states()};
  if (setup.max_batch == 0) {
    // A stream's engine: windows only, by default whole waves of resident tiles, at least
    // policy::stream_window_waves, as the host-batch pipeline's chunks, and at least 32 MB of
    // values: so a window's kernel fills the device (no last wave runs part full) and the next
    // window's copies hide behind it.
    plan.window_tiles =
        device_window_tiles(tile, pattern, plan.resident_tiles, policy::stream_window_waves);
    return plan;
  }
  plan.host_batches = true;
  // A frame of more tiles than a window goes in windows instead, as a stream's do: the device
  // holds two windows whatever the frame's length, and every tile runs as in the whole frame, so
  // the bits are the same. (Tail-biting frames wrap around: they go whole.) A test may set the
  // window (cuda_test_switches).
  const std::size_t window_tiles =
      setup.test.host_window_tiles
          ? setup.test.host_window_tiles
          : device_window_tiles(tile, pattern, plan.resident_tiles, policy::host_window_waves);
  if (!p.circle && p.tiles_per_frame > window_tiles) {
    plan.window_tiles = window_tiles;
    const stream_tiling windows(tile, pattern, window_tiles);
    plan.device_bytes +=
        cuda::chunk_pipeline::device_bytes_for(1, windows.max_values(), {windows.max_stages(), 0});
  } else {
    plan.chunk_frames = std::min(host_chunk, setup.max_batch);
    plan.device_bytes +=
        cuda::chunk_pipeline::device_bytes_for(plan.chunk_frames, fs.coded_bits, {fs.info_bits, 0});
  }
  return plan;
}

}  // namespace gpufec::conv::detail
