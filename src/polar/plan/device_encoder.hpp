// The CUDA polar encoder as the backend-neutral code sees it: plain C++, registered by
// cuda/device_encoder.cu when CUDA is compiled (common/backend_registry.hpp). It writes what
// polar::encode writes, systematic or not, for any frozen set.
#pragma once

#include <memory>

#include "common/backend_registry.hpp"
#include "gpufec/common/batch.hpp"
#include "gpufec/common/cuda_stream.hpp"
#include "gpufec/polar/polar_code.hpp"

namespace gpufec::polar::detail {

class device_encoder {
 public:
  virtual ~device_encoder() = default;
  // Uniform device batches (K and N per frame), queued on `stream`. The information bytes must be
  // 0 or 1 (they are not checked on the device).
  virtual void encode(batch_view<std::uint8_t> info, batch_span<std::uint8_t> codewords,
                      cuda_stream stream) = 0;
};

struct device_encoder_entry {
  using factory = std::unique_ptr<device_encoder> (*)(const polar_code&);
};

}  // namespace gpufec::polar::detail
