// Every CUDA runtime call goes through GPUFEC_CUDA_CHECK: a failure throws with the file, line, the
// call's text and CUDA's error string; an allocation failure throws out_of_memory so callers can
// fall back (smaller batch, local storage). GPUFEC_CUDA_DEBUG_SYNC=1 in the environment makes
// every checked launch synchronize, so an asynchronous kernel fault is reported at its launch.
#pragma once

#include <cuda_runtime.h>

#include "gpufec/common/error.hpp"

namespace gpufec::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                   int line);
bool debug_sync_enabled();

inline void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

// After a kernel launch: reports launch-configuration errors at once, and faults too when the
// debug-sync switch is on.
inline void check_launch(const char* kernel, const char* file, int line) {
  check(cudaGetLastError(), kernel, file, line);
  if (debug_sync_enabled()) check(cudaDeviceSynchronize(), kernel, file, line);
}

}  // namespace gpufec::cuda

#define GPUFEC_CUDA_CHECK(call) ::gpufec::cuda::check((call), #call, __FILE__, __LINE__)
#define GPUFEC_CUDA_CHECK_LAUNCH(kernel) ::gpufec::cuda::check_launch(kernel, __FILE__, __LINE__)
