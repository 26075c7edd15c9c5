#include "common/backend_registry.hpp"

#include <atomic>

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec {
namespace {
std::atomic<bool> compiled{false};  // constant-initialized: safe before any registration
}  // namespace

void detail::mark_cuda_compiled() {
  compiled = true;
}

bool cuda_compiled() {
  return compiled;
}

void require_cuda(std::string_view who) {
  if (!cuda_compiled())
    throw backend_unavailable(cat(who, " needs CUDA, but this gpufec was built without CUDA ",
                                  "(configure with -DGPUFEC_CUDA=ON on a machine with nvcc)"));
  if (cuda_device_count() == 0)
    throw backend_unavailable(
        cat(who, " needs a CUDA device, and none is usable on this machine (no GPU or no driver)"));
}

void throw_entry_missing(std::string_view who) {
  throw backend_unavailable(cat(who, " was not compiled into this CUDA build"));
}

}  // namespace gpufec
