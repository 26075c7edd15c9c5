#include <cstdlib>
#include <cstring>

#include "common/cuda/check.cuh"

namespace gpufec::cuda {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  const std::string where = cat(file, ":", line, ": ", call, " failed: ", cudaGetErrorName(status),
                                " (", cudaGetErrorString(status), ")");
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free allocation error so the caller can retry
    throw out_of_memory(where);
  }
  throw cuda_error(where);
}

bool debug_sync_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("GPUFEC_CUDA_DEBUG_SYNC");
    return v && std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

}  // namespace gpufec::cuda
