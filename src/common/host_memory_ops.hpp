// Page-locked host memory as a registry entry (common/backend_registry.hpp): defined by
// src/common/cuda/host_memory.cu when CUDA is compiled; gpufec/common/page_locked.hpp falls back
// to ordinary memory without it.
#pragma once

#include <cstddef>

#include "common/backend_registry.hpp"

namespace gpufec {

struct host_memory_ops {
  void* (*allocate)(std::size_t bytes);  // page-locked, or null when refused (no device, ...)
  void (*release)(void* p);              // what allocate returned
  bool (*page_locked)(const void* p);    // CUDA knows p as page-locked host memory
};
struct host_memory_entry {
  using factory = const host_memory_ops*;
};

}  // namespace gpufec
