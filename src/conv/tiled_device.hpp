// The CUDA tiled Viterbi engine as the plan sees it: plain C++ (no CUDA types), so the plan builds
// in any build. The engine itself (cuda/tiled_kernel.cu) registers its factory when CUDA is
// compiled (common/backend_registry.hpp); the plan asks for it through cuda_factory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/backend_registry.hpp"
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
  frame_shape shape;
  termination term = termination::zero_tail;
  tile_shape tile;
  std::size_t max_batch = 1;
  cuda_kernel kernel = cuda_kernel::automatic;
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
  // Waits until the work queued on `stream` is done (reporting a kernel fault).
  virtual void wait(cuda_stream stream) = 0;
  // "warps of one tile each, 4 tiles per block of 128 threads, 22 KiB shared, 3 blocks/SM".
  virtual std::string describe() const = 0;
  virtual std::size_t device_bytes() const = 0;
};

struct cuda_tiled_entry {
  using factory = std::unique_ptr<tiled_device_engine> (*)(const tiled_setup&);
};

}  // namespace gpufec::conv::detail
