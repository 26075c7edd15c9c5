// An owning page-locked host allocation: copies from and to it run asynchronously at full link
// speed (pageable memory is staged by the driver, a synchronous copy of its own), and kernels
// may write it directly through device(). Grows only.
#pragma once

#include <cstddef>

#include "common/cuda/check.cuh"

namespace gpufec::cuda {

class pinned_buffer {
 public:
  pinned_buffer() = default;
  ~pinned_buffer() { release(); }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;

  // At least `bytes` (contents lost when it grows).
  void reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    release();
    GPUFEC_CUDA_CHECK(cudaHostAlloc(&ptr_, bytes, cudaHostAllocMapped));
    bytes_ = bytes;
    GPUFEC_CUDA_CHECK(cudaHostGetDevicePointer(&device_, ptr_, 0));
  }
  void release() noexcept {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    device_ = nullptr;
    bytes_ = 0;
  }
  unsigned char* get() const { return static_cast<unsigned char*>(ptr_); }
  std::size_t bytes() const { return bytes_; }
  // The same memory as a kernel addresses it.
  unsigned char* device() const { return static_cast<unsigned char*>(device_); }

 private:
  void* ptr_ = nullptr;
  void* device_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace gpufec::cuda
