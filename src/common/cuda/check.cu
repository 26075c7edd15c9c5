#include <cstdlib>
#include <cstring>
#include <string>

#include "common/cuda/check.cuh"

namespace gpufec::cuda {

namespace {

// The function a call's source text names ("cudaMemcpyAsync(dst, ...)" -> "cudaMemcpyAsync").
std::string function_of(const char* call) {
  const char* open = std::strchr(call, '(');
  return open ? std::string(call, open) : std::string(call);
}

// The path from the repository's top folder on (src/, tests/, ...): the build's absolute path
// says nothing to a user.
const char* source_place(const char* file) {
  const char* place = file;
  for (const char* top : {"/src/", "/tests/", "/bench/", "/tools/"})
    for (const char* at = std::strstr(file, top); at; at = std::strstr(at + 1, top))
      if (at + 1 > place) place = at + 1;
  return place;
}

}  // namespace

void throw_cuda_error(cudaError_t status, const char* what, bool launch, const char* file,
                      int line) {
  const std::string cause = cat(cudaGetErrorString(status), " (", cudaGetErrorName(status), ")");
  const std::string place = cat(" [", source_place(file), ":", line, "]");
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // clear the sticky-free allocation error so the caller can retry
    throw out_of_memory(
        cat("the GPU is out of memory (", function_of(what), ": ", cause, ")", place));
  }
  // A launch the runtime refuses is a shape the plan should never have chosen; a fault reported
  // later (an illegal address, an ECC error) may be the device's: both are worth a report.
  if (launch)
    throw cuda_error(cat("the GPU could not run ", what, ": ", cause,
                         "; this is a gpufec bug or a device fault, please report it with the "
                         "command line",
                         place));
  throw cuda_error(cat("CUDA ", function_of(what), " failed: ", cause, place));
}

bool debug_sync_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("GPUFEC_CUDA_DEBUG_SYNC");
    return v && std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

}  // namespace gpufec::cuda
