// The shared CUDA plumbing on the device (src/common/cuda): block primitives against host models of
// their fixed order, buffers, streams and events, keyed graphs, occupancy helpers and the backend
// registry. Every test skips when no CUDA device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/backend_registry.hpp"
#include "common/cuda/block_primitives.cuh"
#include "common/cuda/device_buffer.cuh"
#include "common/cuda/graph.cuh"
#include "common/cuda/occupancy.cuh"
#include "common/cuda/pinned_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "gpufec/common/backend.hpp"
#include "gpufec/common/device.hpp"

namespace gpufec::cuda {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

__global__ void ordered_sum_kernel(const double* values, int n, double* out) {
  __shared__ double scratch[32];
  const double s = ordered_sum(
      n, [&](int k) { return values[k]; }, scratch);
  if (threadIdx.x == 0) *out = s;
}

__global__ void argmax_kernel(const double* values, int* out) {
  __shared__ double scratch[32];
  const int t = threadIdx.x;
  const int best = block_argmax(values[t], t, scratch);
  if (t == 0) *out = best;
}

__global__ void add_one_kernel(int* value) {
  *value += 1;
}

__global__ void big_shared_kernel(float* out) {
  extern __shared__ float big[];
  big[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = big[(threadIdx.x + 1) % blockDim.x];
}

// The order ordered_sum promises: partial l adds k = l, l + 32, ... in turn; then the partials
// are combined as a butterfly (partial l takes partial l ^ w for w = 16, 8, ..., 1).
double model_ordered_sum(const std::vector<double>& v) {
  double partial[32] = {};
  for (int l = 0; l < 32; ++l)
    for (std::size_t k = l; k < v.size(); k += 32) partial[l] += v[k];
  for (int w = 16; w >= 1; w /= 2) {
    double next[32];
    for (int l = 0; l < 32; ++l) next[l] = partial[l] + partial[l ^ w];
    std::copy(next, next + 32, partial);
  }
  return partial[0];
}

TEST(CudaCore, OrderedSumHasTheSameDigitsForEveryBlockShape) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int n : {1, 5, 31, 32, 33, 100, 1000}) {
    std::vector<double> v(n);
    for (double& x : v) x = u(rng) * std::pow(10.0, static_cast<int>(rng() % 12) - 6);
    device_buffer<double> values(n), out(1);
    values.upload(v.data(), v.size());
    const double expected = model_ordered_sum(v);
    for (int threads : {1, 7, 31, 32, 64, 256, 1024}) {
      ordered_sum_kernel<<<1, threads>>>(values.get(), n, out.get());
      GPUFEC_CUDA_CHECK_LAUNCH("ordered_sum_kernel");
      double got = 0;
      GPUFEC_CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
      EXPECT_EQ(got, expected) << "n " << n << ", " << threads << " threads";
    }
  }
}

TEST(CudaCore, BlockArgmaxTakesTheLowestIndexAmongEqualMaxima) {
  SKIP_WITHOUT_GPU();
  for (int threads : {1, 32, 96, 256}) {
    std::vector<double> v(threads, 0.25);
    if (threads > 3) v[threads - 1] = v[3] = v[threads / 2] = 0.75;  // three equal maxima
    device_buffer<double> values(threads);
    device_buffer<int> out(1);
    values.upload(v.data(), v.size());
    argmax_kernel<<<1, threads>>>(values.get(), out.get());
    GPUFEC_CUDA_CHECK_LAUNCH("argmax_kernel");
    int got = -1;
    GPUFEC_CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin()))
        << threads << " threads";
  }
}

// An allocation the device cannot satisfy is out_of_memory, and leaves the device usable. (The
// sanitizer reports the failed cudaMalloc as an API error: scripts/device-check leaves this test
// out of its memcheck run.)
TEST(CudaCore, AnImpossibleAllocationIsOutOfMemory) {
  SKIP_WITHOUT_GPU();
  device_buffer<char> huge;
  EXPECT_THROW(huge.resize(std::size_t{1} << 52), out_of_memory);  // 4 PiB
  device_buffer<int> b(10);
  EXPECT_EQ(b.size(), 10u);
}

TEST(CudaCore, BuffersRoundTrip) {
  SKIP_WITHOUT_GPU();
  device_buffer<int> b(100);
  EXPECT_EQ(b.bytes(), 400u);
  std::vector<int> in(100), back(100);
  for (int k = 0; k < 100; ++k) in[k] = k * k;
  b.upload(in.data(), in.size());
  GPUFEC_CUDA_CHECK(cudaMemcpy(back.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(in, back);
  EXPECT_THROW(b.upload(in.data(), 101), invalid_argument);

  pinned_buffer staging;
  staging.reserve(64);
  std::fill_n(staging.get(), 64, static_cast<unsigned char>(9));
  device_buffer<unsigned char> copy(64);
  GPUFEC_CUDA_CHECK(cudaMemcpy(copy.get(), staging.device(), 64, cudaMemcpyDeviceToDevice));
  unsigned char last = 0;
  GPUFEC_CUDA_CHECK(cudaMemcpy(&last, copy.get() + 63, 1, cudaMemcpyDeviceToHost));
  EXPECT_EQ(last, 9);
}

TEST(CudaCore, StreamsEventsAndKeyedGraphs) {
  SKIP_WITHOUT_GPU();
  const device_limits limits = current_device_limits();
  stream s(limits.greatest_priority);
  event a(true), b(true);
  device_buffer<int> value(1);
  value.zero();  // done before s runs: s does not wait for the default stream
  a.record(s);
  keyed_graph<int> graph;
  int captures = 0;
  auto enqueue = [&](cudaStream_t st) {
    EXPECT_TRUE(graph.capturing());
    ++captures;
    add_one_kernel<<<1, 1, 0, st>>>(value.get());
    GPUFEC_CUDA_CHECK_LAUNCH("add_one_kernel");
  };
  graph.run(1, s, enqueue);  // captured, then launched
  graph.run(1, s, enqueue);  // replayed
  graph.run(2, s, enqueue);  // a new key: captured again
  EXPECT_FALSE(graph.capturing());
  b.record(s);
  s.synchronize();
  EXPECT_TRUE(b.done());
  EXPECT_GE(seconds_between(a, b), 0.0);
  EXPECT_EQ(captures, 2);
  int got = 0;
  GPUFEC_CUDA_CHECK(cudaMemcpy(&got, value.get(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, 3);
}

TEST(CudaCore, OccupancyHelpersReadTheDevice) {
  SKIP_WITHOUT_GPU();
  const device_limits limits = current_device_limits();
  EXPECT_GT(limits.sm_count, 0);
  EXPECT_GT(limits.shared_optin, 0u);
  const launch_shape suggested = suggested_shape(add_one_kernel);
  EXPECT_GT(suggested.threads, 0);
  EXPECT_GT(suggested.blocks_per_sm, 0);
  EXPECT_EQ(suggested.grid_stride_blocks(limits.sm_count, 1), 1);
  EXPECT_EQ(suggested.grid_stride_blocks(limits.sm_count, 1ULL << 40),
            suggested.wave(limits.sm_count));
  // All of a block's opt-in shared memory fits one block.
  const launch_shape fits = widest_resident(big_shared_kernel, 1024, limits.shared_optin);
  EXPECT_GT(fits.threads, 0);
  EXPECT_EQ(fits.shared, limits.shared_optin);
  EXPECT_EQ(fits.blocks_per_sm, 1);
  // A plan never lowers what another allowed: a smaller request leaves the larger launch valid.
  allow_shared(big_shared_kernel, 1024);
  device_buffer<float> out(1024);
  big_shared_kernel<<<1, 1024, limits.shared_optin>>>(out.get());
  GPUFEC_CUDA_CHECK_LAUNCH("big_shared_kernel");
  GPUFEC_CUDA_CHECK(cudaDeviceSynchronize());
}

__global__ void unopted_shared_kernel(float* out) {
  extern __shared__ float scratch[];
  scratch[threadIdx.x] = 2.0f;
  __syncthreads();
  out[threadIdx.x] = scratch[threadIdx.x];
}

// A launch the runtime refuses (dynamic shared memory above 48 KB without the opt-in) is reported
// as what failed and why, in words, with the source place last, never as a bare path.
__global__ void offered_kernel(float* out) {
  extern __shared__ float scratch[];
  scratch[threadIdx.x] = 1.0f;
  __syncthreads();
  if (out) out[threadIdx.x] = scratch[(threadIdx.x + 1) % blockDim.x];
}

TEST(CudaCore, TheShapeSearchKeepsTheBestScoreAndTheFirstOrLastOfTies) {
  SKIP_WITHOUT_GPU();
  const device_limits limits = current_device_limits();
  shape_search search(offered_kernel, limits.shared_optin);
  EXPECT_EQ(search.resident(64, limits.shared_optin + 1), 0);  // more than a block may have
  const int small = search.resident(64, 1024);
  ASSERT_GT(small, 0);
  EXPECT_FALSE(search.offer({64, 64, 1, 1024, 0}, 100));  // no resident block never wins
  EXPECT_TRUE(search.offer({64, 64, 1, 1024, small}, 10));
  EXPECT_FALSE(search.offer({128, 128, 1, 1024, small}, 10));       // a tie keeps the first
  EXPECT_TRUE(search.offer({256, 256, 1, 1024, small}, 10, true));  // unless ties win
  EXPECT_EQ(search.best().threads, 256);
  EXPECT_FALSE(search.offer({512, 512, 1, 1024, small}, 9, true));
  EXPECT_TRUE(search.offer({32, 32, 1, 1024, small}, 11));
  EXPECT_EQ(search.best().threads, 32);
  EXPECT_EQ(search.best_score(), 11);
  // More shared memory per block: no more blocks resident than with less.
  EXPECT_LE(search.resident(64, limits.shared_optin), small);
}

TEST(CudaCore, ARefusedLaunchSaysWhatFailedInWords) {
  SKIP_WITHOUT_GPU();
  device_buffer<float> out(32);
  unopted_shared_kernel<<<1, 32, 64 * 1024>>>(out.get());
  try {
    GPUFEC_CUDA_CHECK_LAUNCH("unopted_shared_kernel");
    FAIL() << "the launch should have been refused";
  } catch (const cuda_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("the GPU could not run unopted_shared_kernel: ", 0), 0u) << message;
    EXPECT_NE(message.find("cudaErrorInvalidValue"), std::string::npos) << message;
    EXPECT_NE(message.find("[tests/common/cuda/test_cuda_core.cu:"), std::string::npos) << message;
  }
  try {
    GPUFEC_CUDA_CHECK(cudaMemcpy(out.get(), nullptr, 4, cudaMemcpyHostToDevice));
    FAIL() << "a copy from a null pointer should fail";
  } catch (const cuda_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("CUDA cudaMemcpy failed: ", 0), 0u) << e.what();
  }
}

TEST(CudaCore, TheRegistryKnowsThisBuildAndDevice) {
  SKIP_WITHOUT_GPU();
  EXPECT_TRUE(cuda_compiled());
  EXPECT_NO_THROW(require_cuda("a test"));
  EXPECT_EQ(resolve_backend(gpufec::backend::automatic), gpufec::backend::cuda);
  EXPECT_TRUE(get_build_info().cuda);
  EXPECT_GT(get_build_info().cuda_runtime_version, 0);
}

}  // namespace
}  // namespace gpufec::cuda
