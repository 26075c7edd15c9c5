// The CUDA BP engine as the plan sees it: plain C++ (no CUDA types), so the plan builds in any
// build. plan_bp_cuda (cuda/bp_plan.cu) makes every choice into a cuda_plan (plan/cuda_plan.hpp);
// the engine (cuda/bp_engine.cu) executes it. Both register when CUDA is compiled
// (common/backend_registry.hpp); make_bp_device_engine asks for them through cuda_factory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/backend_registry.hpp"
#include "gpufec/common/cuda_stream.hpp"
#include "polar/cpu/engine.hpp"
#include "polar/plan/cuda_plan.hpp"

namespace gpufec::polar::detail {

// Decides as bp_reference does (same schedule, same float operations; docs/polar.md, CUDA).
// decode() (polar_engine) takes host buffers of any number of frames up to the plan's max_batch
// and returns when the outputs are in them.
class bp_device_engine : public polar_engine {
 public:
  // `r`'s pointers are device memory; queued on `stream` (asynchronous).
  virtual void decode_device(const decode_request& r, cuda_stream stream) = 0;
  // Waits for the work queued on `stream`; a `stop` (null: none) that comes first ends the
  // launch early (its outputs not to be used) and throws gpufec::stopped.
  virtual void wait(cuda_stream stream, const stop_token* stop) = 0;
  // The iterations of the device-path frames decoded without an iterations array since the last
  // call, summed (waits for the device).
  virtual std::uint64_t device_iterations() = 0;
  // The device path timed on `frames` host frames copied to the device once: the median of
  // `repeats` decode calls after a warm-up (CUDA events, decoder only), outputs copied back.
  virtual double time_device(const decode_request& host, int repeats) = 0;
  // "layout shared, 512 threads per codeword, 1 codeword per block, ...".
  virtual std::string describe() const = 0;
  virtual std::size_t device_bytes() const = 0;
  // What it runs: the plan it was made with (its host chunks, the preferred batch).
  virtual const cuda_plan& plan() const = 0;
};

// Every choice of the engine for `code` and `options` on the current device, for host batches of
// up to max_batch frames (cuda/bp_plan.cu). Throws out_of_memory when the device cannot hold it.
cuda_plan plan_bp_cuda(const polar_code& code, const decoder_options& options,
                       std::size_t max_batch);
// The kernels the plan sizes and the engine launches, as launchable pointers: the register kernel
// for the code's m, the options' precision, rule and schedule (null: none compiled), and the
// memory kernel of an update rule (cuda/bp_engine.cu, which instantiates it).
const void* register_bp_kernel(const polar_code& code, const decoder_options& options);
const void* memory_bp_kernel(update_rule update);

struct cuda_bp_backend {
  cuda_plan (*plan)(const polar_code&, const decoder_options&, std::size_t max_batch);
  std::unique_ptr<bp_device_engine> (*engine)(const polar_code&, const decoder_options&,
                                              const cuda_plan&);
};
struct cuda_bp_entry {
  using factory = const cuda_bp_backend*;
};

// The engine for `code` and `options`, planned on the current device; throws backend_unavailable
// naming `who` without CUDA or a device.
inline std::unique_ptr<bp_device_engine> make_bp_device_engine(const polar_code& code,
                                                               const decoder_options& options,
                                                               std::size_t max_batch,
                                                               std::string_view who) {
  const cuda_bp_backend* backend = cuda_factory<cuda_bp_entry>(who);
  return backend->engine(code, options, backend->plan(code, options, max_batch));
}

}  // namespace gpufec::polar::detail
