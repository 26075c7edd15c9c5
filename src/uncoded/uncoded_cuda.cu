// The uncoded family's CUDA chain: source bits, AWGN and LLRs in one kernel, hard decisions and
// per-frame error counts in a second (the timed "decoder"), from the same Philox streams as the
// CPU chain so both report the same outcomes.
#include <algorithm>
#include <chrono>
#include <memory>

#include "common/cuda_check.cuh"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/uncoded/uncoded.hpp"

namespace gpufec::uncoded {

namespace {

// Index map: a grid-stride loop over the flat sample index t = f * k + i of the batch (frame f,
// bit i); one thread per sample, any grid size.
__global__ void source_channel_kernel(std::uint64_t seed, std::uint64_t first_frame,
                                      std::uint64_t k, std::uint64_t total, double sigma,
                                      std::uint8_t* __restrict__ bits, float* __restrict__ llr) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       t < total; t += stride) {
    const std::uint64_t frame = first_frame + t / k, i = t % k;
    const philox_stream source(seed, rng_source, frame);
    const std::uint8_t bit = source_bit(source, i);
    bits[t] = bit;
    llr[t] = static_cast<float>(
        channel::llr_from_sample(channel::awgn_received(seed, frame, i, bit, sigma), sigma));
  }
}

// Index map: block b handles frames b, b + gridDim.x, ...; its threads stride over the frame's k
// bits, each warp sums its errors with shuffles and lane 0 adds them to the block's counter.
__global__ void decide_count_kernel(std::uint64_t frames, std::uint64_t k,
                                    const std::uint8_t* __restrict__ bits,
                                    const float* __restrict__ llr,
                                    std::uint32_t* __restrict__ errors) {
  __shared__ std::uint32_t frame_errors;
  for (std::uint64_t f = blockIdx.x; f < frames; f += gridDim.x) {
    if (threadIdx.x == 0) frame_errors = 0;
    __syncthreads();
    std::uint32_t mine = 0;
    for (std::uint64_t i = threadIdx.x; i < k; i += blockDim.x)
      mine += channel::hard_decision(llr[f * k + i]) != bits[f * k + i];
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
      mine += __shfl_down_sync(0xffffffffu, mine, offset);
    if ((threadIdx.x % warpSize) == 0 && mine) atomicAdd(&frame_errors, mine);
    __syncthreads();
    if (threadIdx.x == 0) errors[f] = frame_errors;
    __syncthreads();
  }
}

struct cuda_free {
  void operator()(void* p) const { (void)cudaFree(p); }  // destructors must not throw
};
template <class T>
using device_ptr = std::unique_ptr<T, cuda_free>;

template <class T>
device_ptr<T> device_alloc(std::size_t n) {
  void* p = nullptr;
  GPUFEC_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)));
  return device_ptr<T>(static_cast<T*>(p));
}

// A kernel's launch shape: the block size the occupancy API suggests, and as many blocks as fill
// every SM at that occupancy (grid-stride loops take the rest).
struct launch_shape {
  int block = 0;
  int max_grid = 0;
};

template <class Kernel>
launch_shape shape_for(Kernel kernel, int sm_count) {
  launch_shape s;
  int min_grid = 0;
  GPUFEC_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &s.block, kernel, 0, 0));
  int per_sm = 0;
  GPUFEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, s.block, 0));
  s.max_grid = std::max(1, per_sm) * sm_count;
  return s;
}

int grid_for(const launch_shape& s, std::uint64_t work_items) {
  const std::uint64_t needed = (work_items + s.block - 1) / s.block;
  return static_cast<int>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(needed, static_cast<std::uint64_t>(s.max_grid))));
}

class cuda_chain final : public sim::chain {
 public:
  cuda_chain(const params& p, double ebn0_db, std::uint64_t seed)
      : params_(p), seed_(seed), channel_(channel::bpsk_awgn::from_ebn0(ebn0_db)) {
    require<error>(cuda_device_count() > 0,
                   "the cuda backend needs a CUDA device, and none is usable on this machine");
    int device = 0;
    GPUFEC_CUDA_CHECK(cudaGetDevice(&device));
    int sm_count = 0;
    GPUFEC_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    source_shape_ = shape_for(source_channel_kernel, sm_count);
    decide_shape_ = shape_for(decide_count_kernel, sm_count);
    GPUFEC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    GPUFEC_CUDA_CHECK(cudaEventCreate(&start_));
    GPUFEC_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~cuda_chain() override {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
    (void)cudaStreamDestroy(stream_);
  }
  cuda_chain(const cuda_chain&) = delete;
  cuda_chain& operator=(const cuda_chain&) = delete;

  sim::frame_shape shape() const override {
    return {params_.info_bits, params_.info_bits, 1, false};
  }
  std::size_t preferred_batch() const override {
    // About 2^24 samples per call (80 MiB of bits and LLRs): enough to fill any current GPU.
    return static_cast<std::size_t>(std::max<std::uint64_t>(1, (1ULL << 24) / params_.info_bits));
  }
  std::vector<std::pair<std::string, std::string>> details() const override {
    return {{"sigma", cat(channel_.sigma())},
            {"source_block", cat(source_shape_.block)},
            {"decide_block", cat(decide_shape_.block)}};
  }

  double run(std::uint64_t first_frame, std::vector<sim::frame_outcome>& outcomes) override {
    const std::uint64_t frames = outcomes.size();
    if (frames == 0) return 0.0;
    const std::uint64_t k = params_.info_bits, total = frames * k;
    reserve(frames, total);
    source_channel_kernel<<<grid_for(source_shape_, total), source_shape_.block, 0, stream_>>>(
        seed_, first_frame, k, total, channel_.sigma(), bits_.get(), llr_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("source_channel_kernel");
    GPUFEC_CUDA_CHECK(cudaEventRecord(start_, stream_));
    decide_count_kernel<<<grid_for(decide_shape_, frames * decide_shape_.block),
                          decide_shape_.block, 0, stream_>>>(frames, k, bits_.get(), llr_.get(),
                                                             errors_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("decide_count_kernel");
    GPUFEC_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    host_errors_.resize(frames);
    GPUFEC_CUDA_CHECK(cudaMemcpyAsync(host_errors_.data(), errors_.get(),
                                      frames * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                      stream_));
    GPUFEC_CUDA_CHECK(cudaStreamSynchronize(stream_));
    float ms = 0.0f;
    GPUFEC_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    for (std::size_t f = 0; f < outcomes.size(); ++f)
      outcomes[f] = {host_errors_[f], host_errors_[f], false};
    return ms * 1e-3;
  }

 private:
  void reserve(std::uint64_t frames, std::uint64_t total) {
    if (total > sample_capacity_) {
      bits_.reset();
      llr_.reset();
      bits_ = device_alloc<std::uint8_t>(total);
      llr_ = device_alloc<float>(total);
      sample_capacity_ = total;
    }
    if (frames > frame_capacity_) {
      errors_.reset();
      errors_ = device_alloc<std::uint32_t>(frames);
      frame_capacity_ = frames;
    }
  }

  params params_;
  std::uint64_t seed_;
  channel::bpsk_awgn channel_;
  launch_shape source_shape_, decide_shape_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  device_ptr<std::uint8_t> bits_;
  device_ptr<float> llr_;
  device_ptr<std::uint32_t> errors_;
  std::uint64_t sample_capacity_ = 0, frame_capacity_ = 0;
  std::vector<std::uint32_t> host_errors_;
};

}  // namespace

std::unique_ptr<sim::chain> make_cuda_chain(const params& p, double ebn0_db, std::uint64_t seed) {
  validate(p);
  return std::make_unique<cuda_chain>(p, ebn0_db, seed);
}

}  // namespace gpufec::uncoded
