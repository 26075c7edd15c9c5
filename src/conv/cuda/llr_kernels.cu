// Float LLRs and hard bits in device memory made int8 as the host does (llr_kernels.cuh).
#include <cmath>

#include "common/cuda/occupancy.cuh"
#include "conv/cuda/llr_kernels.cuh"
#include "conv/llr_input.hpp"

namespace gpufec::conv::detail {
namespace {

constexpr unsigned kSumBlock = 4096;  // the host's block of the |L| sum (fast_kernel.cpp)

struct frames_view {
  unsigned long long count;  // frames
  unsigned n;                // values per frame
  unsigned blocks;           // sum blocks per frame: ceil(n / 4096)
};

// llr_block_sums_kernel. Index map: thread g (grid-stride) is accumulator a = g mod 4 of sum
// block k = (g / 4) mod blocks of frame f = g / (4 blocks); it adds |L| of the block's values
// 4 j + a, j = 0, 1, ... up to the block's last whole four, in that order, in float (the host's
// 128-bit accumulator lane a), and writes partial[f][k][a]. It notes a non-finite value among
// them, and accumulator 0 also among the block's last (n mod 4) values, by atomicMin of
// (frame_base + f) << 32 | index, so the lowest frame and index win as on the host.
__global__ void llr_block_sums_kernel(const float* llr, frames_view v,
                                      unsigned long long frame_base, float* partial,
                                      unsigned long long* bad) {
  const unsigned long long threads = v.count * v.blocks * 4ull;
  for (unsigned long long g =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       g < threads; g += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const unsigned a = static_cast<unsigned>(g % 4);
    const unsigned k = static_cast<unsigned>((g / 4) % v.blocks);
    const unsigned long long f = g / (4ull * v.blocks);
    const float* frame = llr + f * v.n;
    const unsigned start = k * kSumBlock, end = min(start + kSumBlock, v.n);
    const unsigned whole = start + (end - start) / 4 * 4;
    float sum = 0.0f;
    unsigned first_bad = v.n;
    for (unsigned i = start + a; i < whole; i += 4) {
      const float value = frame[i];
      sum = __fadd_rn(sum, fabsf(value));
      if (!isfinite(value) && first_bad == v.n) first_bad = i;
    }
    if (a == 0)
      for (unsigned i = whole; i < end && first_bad == v.n; ++i)
        if (!isfinite(frame[i])) first_bad = i;
    partial[g] = sum;
    if (first_bad < v.n) atomicMin(bad, (frame_base + f) << 32 | first_bad);
  }
}

// llr_scale_kernel. Index map: thread g (grid-stride) is frame f = g: the host's combination of
// its block sums, in block order, and its scale, 31.75 / (sum / n) (1 when the sum is 0), or the
// fixed scale; as float, the type the host quantizer takes.
__global__ void llr_scale_kernel(const float* llr, frames_view v, const float* partial,
                                 double fixed_scale, float* scale) {
  for (unsigned long long f =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       f < v.count; f += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    if (fixed_scale > 0) {
      scale[f] = static_cast<float>(fixed_scale);
      continue;
    }
    const float* frame = llr + f * v.n;
    double sum = 0;
    for (unsigned k = 0; k < v.blocks; ++k) {
      const float* acc = partial + (f * v.blocks + k) * 4;
      double block =
          (static_cast<double>(acc[0]) + acc[1]) + (static_cast<double>(acc[2]) + acc[3]);
      const unsigned start = k * kSumBlock, end = min(start + kSumBlock, v.n);
      for (unsigned i = start + (end - start) / 4 * 4; i < end; ++i) block += fabsf(frame[i]);
      sum += block;
    }
    scale[f] = static_cast<float>(sum <= 0 ? 1.0 : 31.75 / (sum / static_cast<double>(v.n)));
  }
}

// quantize_kernel. Index map: thread g (grid-stride) is value i = g mod n of frame f = g / n:
// q = round-half-even(clamp(L s_f, -127, 127)), a float product as on the host.
__global__ void quantize_kernel(const float* llr, frames_view v, const float* scale,
                                std::int8_t* q) {
  const unsigned long long values = v.count * v.n;
  for (unsigned long long g =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       g < values; g += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const float x = fminf(fmaxf(__fmul_rn(llr[g], scale[g / v.n]), -127.0f), 127.0f);
    q[g] = static_cast<std::int8_t>(__float2int_rn(x));
  }
}

// harden_kernel. Index map: thread g (grid-stride) is value g of the chunk: 0 -> +1, else -1.
__global__ void harden_kernel(const std::uint8_t* hard, unsigned long long values, std::int8_t* q) {
  for (unsigned long long g =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       g < values; g += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    q[g] = hard[g] ? std::int8_t{-1} : std::int8_t{1};
}

// Blocks of 256 threads for a grid-stride loop over `items`, at most one wave.
template <class Kernel>
unsigned blocks_for(Kernel kernel, unsigned long long items) {
  static const int sm_count = cuda::current_device_limits().sm_count;
  const cuda::launch_shape shape{256, 256, 1, 0, cuda::resident_blocks(kernel, 256, 0)};
  return static_cast<unsigned>(shape.grid_stride_blocks(sm_count, items));
}

}  // namespace

device_quantizer::device_quantizer(std::size_t chunk_frames, std::size_t n)
    : chunk_(chunk_frames), n_(n), blocks_((n + kSumBlock - 1) / kSumBlock) {
  q_.resize(chunk_ * n_);
  partial_.resize(chunk_ * blocks_ * 4);
  scale_.resize(chunk_);
  bad_.resize(1);
}

std::size_t device_quantizer::device_bytes() const {
  return q_.bytes() + partial_.bytes() + scale_.bytes() + bad_.bytes();
}

void device_quantizer::clear_error(cudaStream_t stream) {
  GPUFEC_CUDA_CHECK(cudaMemsetAsync(bad_.get(), 0xff, sizeof(unsigned long long), stream));
}

void device_quantizer::quantize(const float* llr, std::size_t count, std::size_t frame_base,
                                double fixed_scale, cudaStream_t stream) {
  const frames_view v{count, static_cast<unsigned>(n_), static_cast<unsigned>(blocks_)};
  const unsigned long long sums = count * blocks_ * 4;
  llr_block_sums_kernel<<<blocks_for(llr_block_sums_kernel, sums), 256, 0, stream>>>(
      llr, v, frame_base, partial_.get(), bad_.get());
  GPUFEC_CUDA_CHECK_LAUNCH("llr_block_sums_kernel");
  llr_scale_kernel<<<blocks_for(llr_scale_kernel, count), 256, 0, stream>>>(
      llr, v, partial_.get(), fixed_scale, scale_.get());
  GPUFEC_CUDA_CHECK_LAUNCH("llr_scale_kernel");
  quantize_kernel<<<blocks_for(quantize_kernel, count * n_), 256, 0, stream>>>(llr, v, scale_.get(),
                                                                               q_.get());
  GPUFEC_CUDA_CHECK_LAUNCH("quantize_kernel");
}

void device_quantizer::harden(const std::uint8_t* hard, std::size_t count, cudaStream_t stream) {
  const unsigned long long values = count * n_;
  harden_kernel<<<blocks_for(harden_kernel, values), 256, 0, stream>>>(hard, values, q_.get());
  GPUFEC_CUDA_CHECK_LAUNCH("harden_kernel");
}

unsigned long long device_quantizer::noted(cudaStream_t stream) const {
  unsigned long long bad = kNone;
  GPUFEC_CUDA_CHECK(cudaMemcpyAsync(&bad, bad_.get(), sizeof bad, cudaMemcpyDeviceToHost, stream));
  GPUFEC_CUDA_CHECK(cudaStreamSynchronize(stream));
  return bad;
}

void device_quantizer::report(unsigned long long bad, const float* frame_llr) const {
  const std::size_t frame = bad >> 32, index = bad & 0xffffffffu;
  float value = 0;
  GPUFEC_CUDA_CHECK(cudaMemcpy(&value, frame_llr + index, sizeof value, cudaMemcpyDeviceToHost));
  throw invalid_argument(cat("frame ", frame, ": ", not_finite_message(value, index)));
}

}  // namespace gpufec::conv::detail
