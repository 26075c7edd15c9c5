// Host memory for batches a CUDA plan decodes from and to the host. Page-locked (pinned) where
// this build has CUDA and the driver grants it: a CUDA plan then copies the batch straight over
// the link instead of staging it through host copies, about 2.5x the rate end to end on an H200
// (docs/conv.md, "End to end from host memory"). Ordinary memory elsewhere (a CPU build, no
// device, a refusal), which every plan takes as well, so code written with it runs everywhere.
//
//   gpufec::page_locked_vector<std::int8_t> llr(frames * n);  // fill, then plan.decode(...)
//
// Page-locked memory is taken from what the operating system may page out: allocate batches,
// not gigabytes.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace gpufec {

// `bytes` of host memory aligned to 64 bytes, page-locked when it can be; never null (throws
// std::bad_alloc when even ordinary memory is refused). Release with free_host_batch_memory.
void* allocate_host_batch_memory(std::size_t bytes);
void free_host_batch_memory(void* p) noexcept;
// Whether `p` points into page-locked host memory that CUDA knows (this allocator's, or the
// caller's own cudaHostAlloc or cudaHostRegister); false without CUDA.
bool is_page_locked(const void* p) noexcept;

// A standard allocator over allocate_host_batch_memory: stateless, all instances equal.
template <class T>
struct page_locked_allocator {
  using value_type = T;
  page_locked_allocator() = default;
  template <class U>
  page_locked_allocator(const page_locked_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_host_batch_memory(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { free_host_batch_memory(p); }
  template <class U>
  bool operator==(const page_locked_allocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using page_locked_vector = std::vector<T, page_locked_allocator<T>>;

}  // namespace gpufec
