// The CUDA tiled Viterbi engine as the plan sees it: plain C++ (no CUDA types), so the plan builds
// in any build. plan_tiled_cuda (cuda/tiled_plan.cu) makes every choice into a cuda_plan
// (plan/cuda_plan.hpp); the engine (cuda/tiled_engine.cu) executes it. Both register when CUDA is
// compiled (common/backend_registry.hpp); make_device_engine asks for them through cuda_factory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/backend_registry.hpp"
#include "conv/plan/cuda_plan.hpp"
#include "gpufec/common/cuda_stream.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/puncture.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv::detail {

struct tiled_setup {
  conv_code code;
  puncture_pattern pattern;
  frame_shape shape;  // streams: a truncated frame of one tile (the windows bring their own)
  termination term = termination::zero_tail;
  tile_shape tile;            // f = 0: the default of the kernel that runs (the plan's tile)
  std::size_t max_batch = 1;  // 0: windows of a stream only (no host-batch pipeline)
  cuda_kernel kernel = cuda_kernel::automatic;
  bool fit_tile = true;       // tile.f = 0: fitted to the device and the batch (decoder_options)
  cuda_test_switches test{};  // decoder_options::cuda_test
};

// A window of a continuous stream decoded as one frame (stream_tiles.hpp): `stages` stages of
// `values` values from a multiple of the puncturing period; tiles decode from window stage
// `grid` on; open_start: the window begins inside the stream.
struct window_geometry {
  std::size_t stages = 0, values = 0, grid = 0, tiles = 0;
  bool open_start = false;
};

// Decides exactly as tiled_decoder (tiling.hpp) on the same int8 LLRs.
class tiled_device_engine {
 public:
  virtual ~tiled_device_engine() = default;
  // `frames` frames of int8 LLRs in device memory (stride shape.coded_bits) -> decided bits in
  // device memory (stride shape.info_bits), queued on `stream`; frames <= max_batch is not
  // required (device batches are the caller's memory).
  virtual void decode_device(const std::int8_t* llr, std::size_t frames, std::uint8_t* bits,
                             cuda_stream stream) = 0;
  // The same from and to host memory (at most max_batch frames), through the engine's own device
  // buffers; returns when the bits are in `bits`.
  virtual void decode_host(const std::int8_t* llr, std::size_t frames, std::uint8_t* bits) = 0;
  // Float LLRs in device memory, quantized on the device exactly as the host float path does
  // (quantize_llrs with `fixed_scale`, or 0: auto_llr_scale per frame, the same sums in the same
  // order), then decoded; in chunks through the engine's scratch. Waits for the stream and throws
  // invalid_argument naming the first frame and position of a NaN or infinite LLR.
  virtual void decode_device_float(const float* llr, std::size_t frames, double fixed_scale,
                                   std::uint8_t* bits, cuda_stream stream) = 0;
  // Hard bits (0/1, non-zero = 1) in device memory as +-1, then decoded; queued on `stream`.
  virtual void decode_device_hard(const std::uint8_t* hard, std::size_t frames, std::uint8_t* bits,
                                  cuda_stream stream) = 0;
  // One stream window: its int8 values in device memory -> its stages' bits (the decoded ones,
  // [grid, grid + decoded), are written), queued on `stream`.
  virtual void decode_window(const std::int8_t* llr, const window_geometry& window,
                             std::uint8_t* bits, cuda_stream stream) = 0;
  // Waits until the work queued on `stream` is done (reporting a kernel fault).
  virtual void wait(cuda_stream stream) = 0;
  // What it runs: the plan it was made with (its tile, the tiles of a wave).
  virtual const cuda_plan& plan() const = 0;
  // The plan's description: "registers: four threads per tile, ...".
  virtual std::string describe() const = 0;
  virtual std::size_t device_bytes() const = 0;
};

// The tile shape the CUDA decoder runs when given none, before a plan fits it (fit_tile,
// fitted_register_tile): the default shape, long tiles with subframes, where the register kernel
// is compiled for the code and `kernel` allows it; else the shared-memory kernel's own,
// (policy::shared_kernel_f, D, D, 0). Streams run it as it is (the same decisions on every
// device). Defined with the plan (cuda/tiled_plan.cu): for CUDA code only.
tile_shape default_device_tile(const conv_code& code, const puncture_pattern& pattern,
                               cuda_kernel kernel);

// Every choice of the engine for `setup` on the current device (cuda/tiled_plan.cu). Throws
// invalid_argument for what the CUDA decoder does not run (frames of more than 2^32 LLRs, K > 9,
// a tile whose slot does not fit shared memory, the register kernel asked for a code it lacks).
cuda_plan plan_tiled_cuda(const tiled_setup& setup);

// Tiles of f stages that `frames` frames of N stages are cut into.
inline std::size_t batch_tiles(std::size_t f, std::size_t N, std::size_t frames) {
  return frames * ((N + f - 1) / f);
}

// The tile length for a batch: `frames` frames of N stages, which at the `nominal` length need
// T >= `wave` tiles, fill whole waves of `wave` tiles: f is the shortest multiple of `unit` whose
// tiles fit in w waves and fill the last one at least 90%, for w from floor(T / wave) down to half
// that (about the nominal length, up to twice it); if none does, the shortest that fits
// floor(T / wave) waves. Rounding f up to the unit can leave the last wave part full, which costs
// nearly a whole one (K = 7 rate 1/2, 256 frames of 2^20 bits on an H200: 4.8 waves of 1104 stages
// 144 Gb/s, 3.94 of 1344 151; 1024 frames: 19.2 waves of 1104 155, 11.9 of 1776 158;
// bench/RESULTS.md 2026-11-28). A batch of less than a wave keeps the nominal length (shorter
// tiles that fill the wave measured slower for K = 5: 110 against 140 Gb/s, bench/RESULTS.md
// 2026-11-27), as do frames of one nominal tile and frames = 0 (streams, whose windows are whole
// waves).
std::size_t fitted_tile_length(std::size_t nominal, std::size_t N, std::size_t frames,
                               std::size_t wave, std::size_t unit);

struct cuda_tiled_backend {
  cuda_plan (*plan)(const tiled_setup&);
  std::unique_ptr<tiled_device_engine> (*engine)(const tiled_setup&, const cuda_plan&);
};
struct cuda_tiled_entry {
  using factory = const cuda_tiled_backend*;
};

// The plan for `setup` on the current device, no engine made; throws backend_unavailable naming
// `who` without CUDA or a device.
inline cuda_plan plan_device_engine(const tiled_setup& setup, std::string_view who) {
  return cuda_factory<cuda_tiled_entry>(who)->plan(setup);
}

// The engine for `setup`, planned on the current device; throws backend_unavailable naming `who`
// without CUDA or a device.
inline std::unique_ptr<tiled_device_engine> make_device_engine(const tiled_setup& setup,
                                                               std::string_view who) {
  const cuda_tiled_backend* backend = cuda_factory<cuda_tiled_entry>(who);
  return backend->engine(setup, backend->plan(setup));
}

}  // namespace gpufec::conv::detail
