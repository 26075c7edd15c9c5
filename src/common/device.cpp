// Build facts and CUDA device queries, backend-neutral: the queries come from the CUDA backend's
// registry entry (src/common/cuda/device.cu) when CUDA is compiled, else there are no devices.
#include "gpufec/common/device.hpp"

#include <omp.h>

#include <cstdio>

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

std::string bytes_text(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", v, units[u]);
  return buf;
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
