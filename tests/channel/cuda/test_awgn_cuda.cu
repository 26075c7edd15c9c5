// The Gaussian channel on the device against the host, bit for bit: a thread per position draws
// gaussian_at and the float and int8 LLRs of awgn_received (what the CUDA chain's kernels do),
// and the host's bulk draws (gaussians, awgn_llrs: Highway SIMD) must give the same bits, over
// millions of positions (each run of 2^22 holds some eight tail pairs, box_muller.hpp), frames past
// 2^32 and noise from negligible to overwhelming. Skips when no CUDA device is present.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/cuda/check.cuh"
#include "common/cuda/device_buffer.cuh"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"

namespace gpufec::channel {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

// Index map: thread t of the grid (grid-stride) handles position begin + t of `frame`.
__global__ void draw_kernel(std::uint64_t seed, std::uint64_t frame, std::uint64_t begin,
                            std::size_t n, const std::uint8_t* bits, double sigma, double scale,
                            float* g, float* f32, std::int8_t* i8) {
  const philox_stream noise(seed, rng_channel, frame);
  for (std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    g[t] = gaussian_at(noise, begin + t);
    const double llr =
        llr_from_sample(awgn_received(seed, frame, begin + t, bits[t], sigma), sigma);
    f32[t] = static_cast<float>(llr);
    i8[t] = llr_to_int8(llr, scale);
  }
}

TEST(AwgnCuda, TheDeviceDrawsTheHostsNoiseAndLlrsBitForBit) {
  SKIP_WITHOUT_GPU();
  const std::size_t n = std::size_t{1} << 22;
  std::mt19937 rng(11);
  std::vector<std::uint8_t> bits(n);
  for (auto& b : bits) b = rng() & 1;
  cuda::device_buffer<std::uint8_t> d_bits(n);
  d_bits.upload(bits.data(), n);
  cuda::device_buffer<float> d_g(n);
  cuda::device_buffer<float> d_f32(n);
  cuda::device_buffer<std::int8_t> d_i8(n);
  for (const std::uint64_t frame : {0ull, 5ull, (1ull << 32) + 3})
    for (const double sigma : {0.05, 0.8, 30.0})
      for (const std::uint64_t begin : {0ull, 1ull, 123457ull}) {
        SCOPED_TRACE("frame " + std::to_string(frame) + ", sigma " + std::to_string(sigma) +
                     ", begin " + std::to_string(begin));
        const std::uint64_t seed = 0x5eed0000ull + frame;
        const double scale = int8_llr_scale(sigma);
        draw_kernel<<<1024, 256>>>(seed, frame, begin, n, d_bits.get(), sigma, scale, d_g.get(),
                                   d_f32.get(), d_i8.get());
        GPUFEC_CUDA_CHECK_LAUNCH("draw_kernel");
        std::vector<float> g(n), host_g(n);
        std::vector<float> f32(n), host_f32(n);
        std::vector<std::int8_t> i8(n), host_i8(n);
        GPUFEC_CUDA_CHECK(cudaMemcpy(g.data(), d_g.get(), n * sizeof(float), cudaMemcpyDefault));
        GPUFEC_CUDA_CHECK(
            cudaMemcpy(f32.data(), d_f32.get(), n * sizeof(float), cudaMemcpyDefault));
        GPUFEC_CUDA_CHECK(cudaMemcpy(i8.data(), d_i8.get(), n, cudaMemcpyDefault));
        gaussians(philox_stream(seed, rng_channel, frame), begin, begin + n, host_g.data());
        awgn_llrs(seed, frame, begin, begin + n, bits.data(), sigma, llr_kind::f32,
                  host_f32.data());
        awgn_llrs(seed, frame, begin, begin + n, bits.data(), sigma, llr_kind::i8, host_i8.data());
        std::size_t differ = 0;
        for (std::size_t t = 0; t < n; ++t)
          differ +=
              std::bit_cast<std::uint32_t>(g[t]) != std::bit_cast<std::uint32_t>(host_g[t]) ||
              std::bit_cast<std::uint32_t>(f32[t]) != std::bit_cast<std::uint32_t>(host_f32[t]) ||
              i8[t] != host_i8[t];
        EXPECT_EQ(differ, 0u) << "of " << n << " positions";
      }
}

}  // namespace
}  // namespace gpufec::channel
