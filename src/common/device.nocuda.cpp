// The build without the CUDA backend: no devices, and the build info says so.
#include "gpufec/common/device.hpp"

namespace gpufec {

int cuda_runtime_version() {
  return 0;
}
int cuda_device_count() {
  return 0;
}
std::vector<cuda_device_info> cuda_devices() {
  return {};
}

}  // namespace gpufec
