// Page-locked host memory through the CUDA runtime, registered as the host_memory entry
// (common/host_memory_ops.hpp).
#include <cuda_runtime.h>

#include "common/host_memory_ops.hpp"

namespace gpufec {
namespace {

void* allocate(std::size_t bytes) {
  void* p = nullptr;
  // Portable: page-locked for every device of the process, not only the current one.
  if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver, no device, or no memory left to lock: not sticky
    return nullptr;
  }
  return p;
}

void release(void* p) {
  (void)cudaFreeHost(p);
}

bool page_locked(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

constexpr host_memory_ops ops{&allocate, &release, &page_locked};
const register_cuda_backend<host_memory_entry> registered{&ops};

}  // namespace
}  // namespace gpufec
