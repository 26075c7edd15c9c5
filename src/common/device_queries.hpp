// The CUDA device queries as a registry entry (common/backend_registry.hpp): defined by
// src/common/cuda/device.cu when CUDA is compiled.
#pragma once

#include <vector>

#include "common/backend_registry.hpp"
#include "gpufec/common/device.hpp"

namespace gpufec {

struct device_queries {
  int (*runtime_version)();
  int (*device_count)();  // never throws: 0 without a driver or a GPU
  std::vector<cuda_device_info> (*devices)();
  int (*driver_version)();  // the CUDA version the driver supports (13000), 0 when unknown
  int (*current_device)();  // the device this thread's CUDA work goes to
};
struct device_queries_entry {
  using factory = const device_queries*;
};

}  // namespace gpufec
