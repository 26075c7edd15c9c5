#include <cstdlib>
#include <cstring>

#include "common/cuda_check.cuh"
#include "gpufec/common/device.hpp"

namespace gpufec {
namespace cuda {

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

}  // namespace cuda

int cuda_runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return 0;
  return v;
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: not an error for a CPU run
    return 0;
  }
  return count;
}

std::vector<cuda_device_info> cuda_devices() {
  std::vector<cuda_device_info> out;
  const int count = cuda_device_count();
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    GPUFEC_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    cuda_device_info info;
    info.index = d;
    info.name = p.name;
    info.compute_major = p.major;
    info.compute_minor = p.minor;
    info.sm_count = p.multiProcessorCount;
    info.total_memory = p.totalGlobalMem;
    info.max_threads_per_block = p.maxThreadsPerBlock;
    info.shared_memory_per_block_optin = p.sharedMemPerBlockOptin;
    info.registers_per_block = p.regsPerBlock;
    int current = 0;
    GPUFEC_CUDA_CHECK(cudaGetDevice(&current));
    GPUFEC_CUDA_CHECK(cudaSetDevice(d));
    std::size_t free_bytes = 0, total_bytes = 0;
    GPUFEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    GPUFEC_CUDA_CHECK(cudaSetDevice(current));
    info.free_memory = free_bytes;
    out.push_back(info);
  }
  return out;
}

}  // namespace gpufec
