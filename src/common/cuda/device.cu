// The CUDA device queries, registered as the device_queries entry (common/device_queries.hpp).
#include "common/cuda/check.cuh"
#include "common/device_queries.hpp"

namespace gpufec {
namespace {

int runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return 0;
  return v;
}

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: not an error for a CPU run
    return 0;
  }
  return count;
}

std::vector<cuda_device_info> devices() {
  std::vector<cuda_device_info> out;
  const int count = device_count();
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

int driver_version() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess) return 0;
  return v;
}

int current_device() {
  int d = 0;
  GPUFEC_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

constexpr device_queries queries{&runtime_version, &device_count, &devices, &driver_version,
                                 &current_device};
const register_cuda_backend<device_queries_entry> registered{&queries};

}  // namespace
}  // namespace gpufec
