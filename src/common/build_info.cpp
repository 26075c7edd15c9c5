#include <omp.h>

#include "gpufec/common/device.hpp"

namespace gpufec {

int cuda_runtime_version();  // device.cu, or device.nocuda.cpp (0)

build_info get_build_info() {
  build_info b;
  b.version = GPUFEC_VERSION;
  b.build_type = GPUFEC_BUILD_TYPE;
  b.cuda = GPUFEC_HAVE_CUDA;
  b.cuda_architectures = GPUFEC_CUDA_ARCHITECTURES;
  b.cuda_runtime_version = cuda_runtime_version();
  b.openmp_max_threads = omp_get_max_threads();
  return b;
}

}  // namespace gpufec
