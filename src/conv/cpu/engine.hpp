// The CPU side of conv::decoder_plan: one interface, three decoders behind it (the reference, the
// fast Highway decoder, the tiled decoder). The plan chooses the decoder, the threads and the
// frames per task and makes the engine for them; an engine only decodes. Making one is cheap:
// the frame-sized buffers are made by the decodes that use them, so the plan checks
// scratch_bytes() against the machine's memory before the first decode. Batches arrive checked
// (sizes, host memory); a bad frame is reported as one invalid_argument naming the lowest frame at
// fault; a requested stop throws gpufec::stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gpufec/common/batch.hpp"
#include "gpufec/common/stop_token.hpp"
#include "gpufec/conv/decoder.hpp"

namespace gpufec::conv::detail {

class cpu_engine {
 public:
  virtual ~cpu_engine() = default;
  // Float LLRs (the fast and tiled decoders make each frame int8: by the setup's llr_scale, or
  // 0: the frame's automatic scale), int8 LLRs, hard bits (0/1; non-zero is 1).
  virtual void decode(batch_view<float> received, batch_span<std::uint8_t> bits,
                      const stop_token& stop) = 0;
  virtual void decode(batch_view<std::int8_t> received, batch_span<std::uint8_t> bits,
                      const stop_token& stop) = 0;
  virtual void decode_hard(batch_view<std::uint8_t> received, batch_span<std::uint8_t> bits,
                           const stop_token& stop) = 0;
  // What the decodes hold at most, all threads together.
  virtual std::size_t scratch_bytes() const = 0;
  // The SIMD target and layout (fast decoder); empty for the others.
  virtual std::string kernel() const { return {}; }
};

// What every engine is made from: the plan's description and its choices.
struct cpu_engine_setup {
  conv_code code;
  puncture_pattern pattern;
  std::size_t frame_bits = 0;
  termination term = termination::zero_tail;
  int threads = 1;       // the engine's threads, a decoder's scratch each
  double llr_scale = 0;  // float input made int8: the scale, 0 = per frame (automatic)
};

std::unique_ptr<cpu_engine> make_reference_engine(const cpu_engine_setup& setup,
                                                  const reference_options& options);
// `run`: the most frames one task decodes (at most kFastRun; fewer for small batches).
std::unique_ptr<cpu_engine> make_fast_engine(const cpu_engine_setup& setup, std::size_t wrap_stages,
                                             std::size_t run);
std::unique_ptr<cpu_engine> make_tiled_engine(const cpu_engine_setup& setup,
                                              const tile_shape& tile);

// Frames per task of the fast decoder: runs of 16 frames let each pair's traceback overlap the
// next pair's ACS (fast_frame_decoder::decode_run), all but one walk in 8.
inline constexpr std::size_t kFastRun = 16;

}  // namespace gpufec::conv::detail
