#include "common/cuda/occupancy.cuh"

namespace gpufec::cuda {

device_limits current_device_limits() {
  device_limits l;
  GPUFEC_CUDA_CHECK(cudaGetDevice(&l.device));
  cudaDeviceProp prop{};
  GPUFEC_CUDA_CHECK(cudaGetDeviceProperties(&prop, l.device));
  l.sm_count = prop.multiProcessorCount;
  l.compute_major = prop.major;
  l.max_block_threads = prop.maxThreadsPerBlock;
  l.shared_optin = prop.sharedMemPerBlockOptin;
  GPUFEC_CUDA_CHECK(cudaMemGetInfo(&l.free_memory, &l.total_memory));
  GPUFEC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&l.least_priority, &l.greatest_priority));
  return l;
}

}  // namespace gpufec::cuda
