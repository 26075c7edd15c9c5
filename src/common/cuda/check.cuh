// Every CUDA runtime call goes through GPUFEC_CUDA_CHECK, every launch through
// GPUFEC_CUDA_CHECK_LAUNCH: a failure throws a message a user can act on (what failed, CUDA's own
// words and error name), with the source place last, for a report; an allocation failure throws
// out_of_memory so callers can fall back (smaller batch, local storage). GPUFEC_CUDA_DEBUG_SYNC=1
// in the environment makes every checked launch synchronize, so an asynchronous kernel fault is
// reported at its launch.
#pragma once

#include <cuda_runtime.h>

#include "gpufec/common/error.hpp"

namespace gpufec::cuda {

// `what`: the call's source text, or the kernel's name when `launch`.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* what, bool launch,
                                   const char* file, int line);
bool debug_sync_enabled();

inline void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, false, file, line);
}

// After a kernel launch: reports launch-configuration errors at once, and faults too when the
// debug-sync switch is on.
inline void check_launch(const char* kernel, const char* file, int line) {
  if (const cudaError_t status = cudaGetLastError(); status != cudaSuccess)
    throw_cuda_error(status, kernel, true, file, line);
  if (debug_sync_enabled())
    if (const cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess)
      throw_cuda_error(status, kernel, true, file, line);
}

}  // namespace gpufec::cuda

#define GPUFEC_CUDA_CHECK(call) ::gpufec::cuda::check((call), #call, __FILE__, __LINE__)
#define GPUFEC_CUDA_CHECK_LAUNCH(kernel) ::gpufec::cuda::check_launch(kernel, __FILE__, __LINE__)
