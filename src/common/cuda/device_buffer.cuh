// An owning device allocation, the one type every CUDA engine and chain holds its buffers in.
// Allocation failures surface as gpufec::out_of_memory (via GPUFEC_CUDA_CHECK), which plans catch
// to fall back to smaller batches or leaner storage.
#pragma once

#include <cstddef>
#include <utility>

#include "common/cuda/check.cuh"

namespace gpufec::cuda {

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) { resize(count); }
  ~device_buffer() { release(); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  // Reallocates (contents lost) when `count` differs from the current size.
  void resize(std::size_t count) {
    if (count == count_) return;
    release();
    if (count) GPUFEC_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
    count_ = count;
  }
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }

  // Copies `count` elements from host memory to the start of the buffer, and returns when they
  // are there (for tables a plan uploads once). cudaMemcpy from pageable memory returns once the
  // bytes are staged, before the DMA lands, and the engines' streams do not wait for the default
  // stream: without the synchronize, a kernel of theirs could read the table before it arrives.
  void upload(const T* from, std::size_t count) {
    require(count <= count_, "device_buffer::upload: ", count, " elements into ", count_);
    if (!count) return;
    GPUFEC_CUDA_CHECK(cudaMemcpy(ptr_, from, count * sizeof(T), cudaMemcpyHostToDevice));
    GPUFEC_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }
  // Sets every byte to zero and returns when they are (cudaMemset is asynchronous, on the default
  // stream, which the engines' streams do not wait for).
  void zero() {
    if (!count_) return;
    GPUFEC_CUDA_CHECK(cudaMemset(ptr_, 0, bytes()));
    GPUFEC_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace gpufec::cuda
