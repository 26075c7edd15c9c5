// Build facts and CUDA device queries, backend-neutral: the queries come from the CUDA backend's
// registry entry (src/common/cuda/device.cu) when CUDA is compiled, else there are no devices.
#include "gpufec/common/device.hpp"

#include <omp.h>

#include "common/device_queries.hpp"

namespace gpufec {

build_info get_build_info() {
  build_info b;
  b.version = GPUFEC_VERSION;
  b.build_type = GPUFEC_BUILD_TYPE;
  b.cuda = cuda_compiled();
  b.cuda_architectures = GPUFEC_CUDA_ARCHITECTURES;
  const device_queries* q = cuda_factory_or_null<device_queries_entry>();
  b.cuda_runtime_version = q ? q->runtime_version() : 0;
  b.openmp_max_threads = omp_get_max_threads();
  return b;
}

int cuda_device_count() {
  const device_queries* q = cuda_factory_or_null<device_queries_entry>();
  return q ? q->device_count() : 0;
}

std::vector<cuda_device_info> cuda_devices() {
  const device_queries* q = cuda_factory_or_null<device_queries_entry>();
  return q ? q->devices() : std::vector<cuda_device_info>{};
}

}  // namespace gpufec
