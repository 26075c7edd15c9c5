// Bytes in device memory for GPU tests: an owning buffer filled from and read back to host
// vectors, every CUDA call checked (a failure is the test's, with the call named).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gpufec::testing {

class device_bytes {
 public:
  explicit device_bytes(std::size_t n) : n_(n) {
    if (n) {
      EXPECT_EQ(cudaMalloc(&p_, n), cudaSuccess) << "cudaMalloc of " << n << " bytes";
    }
  }
  explicit device_bytes(const std::vector<std::uint8_t>& host) : device_bytes(host.size()) {
    if (p_) {
      EXPECT_EQ(cudaMemcpy(p_, host.data(), n_, cudaMemcpyHostToDevice), cudaSuccess);
      // A pageable copy may return before it lands; streams that do not wait for the default
      // stream would read the old bytes.
      EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    }
  }
  ~device_bytes() {
    if (p_) cudaFree(p_);
  }
  device_bytes(const device_bytes&) = delete;
  device_bytes& operator=(const device_bytes&) = delete;

  std::uint8_t* get() const { return static_cast<std::uint8_t*>(p_); }
  // Waits for the device, then copies the bytes back.
  std::vector<std::uint8_t> read() const {
    std::vector<std::uint8_t> host(n_);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    if (p_) {
      EXPECT_EQ(cudaMemcpy(host.data(), p_, n_, cudaMemcpyDeviceToHost), cudaSuccess);
    }
    return host;
  }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace gpufec::testing
