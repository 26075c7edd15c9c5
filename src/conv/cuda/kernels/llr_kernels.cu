// Float LLRs and hard bits in device memory made int8 as the host does (llr_kernels.cuh).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/cuda/occupancy.cuh"
#include "conv/cpu/fast_kernel.hpp"
#include "conv/cuda/kernels/llr_kernels.cuh"
#include "conv/model/llr_input.hpp"

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
    // Eight values loaded before the first is added, with no branch (llr_block_sums4_kernel
    // says why): a value that is not finite leaves the sum not finite, and only then are the
    // values searched for the first.
    constexpr unsigned kAhead = 8;
    unsigned at = start + a;
    for (; at + 4 * (kAhead - 1) < whole; at += 4 * kAhead) {
      float x[kAhead];
#pragma unroll
      for (unsigned t = 0; t < kAhead; ++t) x[t] = __ldg(frame + at + 4 * t);
#pragma unroll
      for (unsigned t = 0; t < kAhead; ++t) sum = __fadd_rn(sum, fabsf(x[t]));
    }
    for (; at < whole; at += 4) sum = __fadd_rn(sum, fabsf(__ldg(frame + at)));
    unsigned first_bad = v.n;
    if (!isfinite(sum))
      for (at = start + a; at < whole; at += 4)
        if (!isfinite(frame[at])) {
          first_bad = at;
          break;
        }
    if (a == 0)
      for (unsigned i = whole; i < end && first_bad == v.n; ++i)
        if (!isfinite(frame[i])) first_bad = i;
    partial[g] = sum;
    if (first_bad < v.n) atomicMin(bad, (frame_base + f) << 32 | first_bad);
  }
}

// llr_block_sums4_kernel: llr_block_sums_kernel for frames of whole fours (n mod 4 = 0) at a
// 16-byte aligned base, read as float4. Index map: thread (x, y) (grid-stride in both) is sum block
// k = x of frame f = y; it holds the block's four accumulators as one float4, whose component a
// takes the values 4 j + a, j = 0, 1, ... in order (the host's lane a, the same additions), and
// writes partial[f][k][0..3] in one store. (A thread per accumulator read a float every 16 bytes
// and paid a 64-bit division per value for its index.) Eight fours are loaded before the first is
// added, and the loop has no branch, so that their loads are in flight at once: a value that is not
// finite makes its accumulator not finite (|NaN| and |inf| stay so under adds of non-negative
// values), and only then is the block searched for the first one. (With a test per four, the loads
// went one at a time, behind each four's branch: 337 us for 64 frames of 2^21 values on an H200,
// 33% of the DRAM's bandwidth.) A sum that overflows to inf from finite values finds none, and the
// host's sum overflows alike.
__global__ void llr_block_sums4_kernel(const float* llr, frames_view v,
                                       unsigned long long frame_base, float* partial,
                                       unsigned long long* bad) {
  for (unsigned long long f = blockIdx.y; f < v.count; f += gridDim.y)
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < v.blocks;
         k += gridDim.x * blockDim.x) {
      const unsigned start = k * kSumBlock, quads = (min(start + kSumBlock, v.n) - start) / 4;
      const auto* block = reinterpret_cast<const float4*>(llr + f * v.n + start);
      float4 sum{0.0f, 0.0f, 0.0f, 0.0f};
      const auto add = [&sum](const float4& x) {
        sum.x = __fadd_rn(sum.x, fabsf(x.x));
        sum.y = __fadd_rn(sum.y, fabsf(x.y));
        sum.z = __fadd_rn(sum.z, fabsf(x.z));
        sum.w = __fadd_rn(sum.w, fabsf(x.w));
      };
      // Eight fours in flight while the eight before them are added.
      constexpr unsigned kAhead = 8;
      unsigned j = 0;
      if (quads >= kAhead) {
        float4 x[kAhead];
#pragma unroll
        for (unsigned i = 0; i < kAhead; ++i) x[i] = __ldg(block + i);
        for (j = kAhead; j + kAhead <= quads; j += kAhead) {
          float4 y[kAhead];
#pragma unroll
          for (unsigned i = 0; i < kAhead; ++i) y[i] = __ldg(block + j + i);
#pragma unroll
          for (unsigned i = 0; i < kAhead; ++i) add(x[i]);
#pragma unroll
          for (unsigned i = 0; i < kAhead; ++i) x[i] = y[i];
        }
#pragma unroll
        for (unsigned i = 0; i < kAhead; ++i) add(x[i]);
      }
      for (; j < quads; ++j) add(__ldg(block + j));
      reinterpret_cast<float4*>(partial)[f * v.blocks + k] = sum;
      if (!(isfinite(sum.x) && isfinite(sum.y) && isfinite(sum.z) && isfinite(sum.w))) {
        const float* values = llr + f * v.n + start;
        for (unsigned i = 0; i < 4 * quads; ++i)
          if (!isfinite(values[i])) {
            atomicMin(bad, (frame_base + f) << 32 | (start + i));
            break;
          }
      }
    }
}

// llr_scale_kernel. Index map: warp w (grid-stride over warps) is frame f = w; lane l sums runs
// l, l + 32, ... of kRunBlocks sum blocks (the host's runs of kLlrScanRun values): each block's
// (a0 + a1) + (a2 + a3) in double, plus its last n mod 4 values, added in order into the run's
// sum; lane 0 adds the 32 lanes' run sums of each round in order, the host's order. The scale is
// auto_scale_of_sum's, or the fixed scale, as float, the type the host quantizer takes. (One long
// chain over every block, a shuffle per block, held one frame of 2^30 values 9 ms on an H200; runs
// of 256 blocks take 32 lanes at once.)
__global__ void llr_scale_kernel(const float* llr, frames_view v, const float* partial,
                                 double fixed_scale, float* scale) {
  constexpr unsigned kRunBlocks = kLlrScanRun / kSumBlock;
  const unsigned lane = threadIdx.x % 32;
  const unsigned runs = (v.blocks + kRunBlocks - 1) / kRunBlocks;
  const unsigned long long warps = static_cast<unsigned long long>(gridDim.x) * (blockDim.x / 32);
  for (unsigned long long f =
           (blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x) / 32;
       f < v.count; f += warps) {
    if (fixed_scale > 0) {
      if (lane == 0) scale[f] = static_cast<float>(fixed_scale);
      continue;
    }
    const float* frame = llr + f * v.n;
    const auto* sums = reinterpret_cast<const float4*>(partial) + f * v.blocks;
    double sum = 0;
    for (unsigned r0 = 0; r0 < runs; r0 += 32) {
      const unsigned r = r0 + lane;
      double run = 0;
      if (r < runs) {
        const unsigned last = min((r + 1) * kRunBlocks, v.blocks);
#pragma unroll 8
        for (unsigned k = r * kRunBlocks; k < last; ++k) {
          const float4 acc = sums[k];
          double block =
              (static_cast<double>(acc.x) + acc.y) + (static_cast<double>(acc.z) + acc.w);
          const unsigned start = k * kSumBlock, end = min(start + kSumBlock, v.n);
          for (unsigned i = start + (end - start) / 4 * 4; i < end; ++i) block += fabsf(frame[i]);
          run += block;
        }
      }
      const unsigned in_round = min(32u, runs - r0);
      for (unsigned j = 0; j < in_round; ++j) {
        const double b = __shfl_sync(0xffffffffu, run, static_cast<int>(j));
        if (lane == 0) sum += b;
      }
    }
    if (lane == 0) scale[f] = static_cast<float>(auto_scale_of_sum(sum, v.n));
  }
}

// The host quantizer's level of one value: round-half-even(clamp(L s, -127, 127)), a float
// product (fast_kernel.cpp, quantize_llrs).
__device__ __forceinline__ std::int8_t quantized(float llr, float scale) {
  return static_cast<std::int8_t>(
      __float2int_rn(fminf(fmaxf(__fmul_rn(llr, scale), -127.0f), 127.0f)));
}

// quantize_kernel. Index map: thread g (grid-stride) is value i = g mod n of frame f = g / n:
// q = round-half-even(clamp(L s_f, -127, 127)), a float product as on the host.
__global__ void quantize_kernel(const float* llr, frames_view v, const float* scale,
                                std::int8_t* q) {
  const unsigned long long values = v.count * v.n;
  for (unsigned long long g =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       g < values; g += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    q[g] = quantized(llr[g], scale[g / v.n]);
  }
}

// quantize4_kernel: quantize_kernel for frames of whole fours at a 16-byte aligned base. Index
// map: thread (x, y) (grid-stride in both) is values 4 x .. 4 x + 3 of frame f = y, read as a
// float4 and written as a char4.
__global__ void quantize4_kernel(const float* llr, frames_view v, const float* scale,
                                 std::int8_t* q) {
  const unsigned quads = v.n / 4;
  for (unsigned long long f = blockIdx.y; f < v.count; f += gridDim.y) {
    const float s = scale[f];
    const auto* in = reinterpret_cast<const float4*>(llr + f * v.n);
    auto* out = reinterpret_cast<char4*>(q + f * v.n);
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < quads;
         i += gridDim.x * blockDim.x) {
      const float4 x = __ldg(in + i);
      out[i] = char4{quantized(x.x, s), quantized(x.y, s), quantized(x.z, s), quantized(x.w, s)};
    }
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
  // Frames of whole fours at an aligned base take the float4 kernels, whose grids are 2D (x: the
  // items of a frame, y: frames; at most 65535 frames per row of the grid, the rest by striding).
  const bool quads = n_ % 4 == 0 && reinterpret_cast<std::uintptr_t>(llr) % 16 == 0;
  const auto frame_rows = static_cast<unsigned>(std::min<std::size_t>(count, 65535));
  const auto columns = [](std::size_t items, unsigned threads) {
    return static_cast<unsigned>(std::min<std::size_t>((items + threads - 1) / threads, 65535));
  };
  if (quads) {
    // Blocks of one warp (64 threads, or the loop unrolled 16 or 32 deep, measured the same).
    llr_block_sums4_kernel<<<dim3(columns(blocks_, 32), frame_rows), 32, 0, stream>>>(
        llr, v, frame_base, partial_.get(), bad_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("llr_block_sums4_kernel");
  } else {
    const unsigned long long sums = count * blocks_ * 4;
    llr_block_sums_kernel<<<blocks_for(llr_block_sums_kernel, sums), 256, 0, stream>>>(
        llr, v, frame_base, partial_.get(), bad_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("llr_block_sums_kernel");
  }
  llr_scale_kernel<<<blocks_for(llr_scale_kernel, count * 32), 256, 0, stream>>>(
      llr, v, partial_.get(), fixed_scale, scale_.get());
  GPUFEC_CUDA_CHECK_LAUNCH("llr_scale_kernel");
  if (quads) {
    quantize4_kernel<<<dim3(columns(n_ / 4, 256), frame_rows), 256, 0, stream>>>(
        llr, v, scale_.get(), q_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("quantize4_kernel");
  } else {
    quantize_kernel<<<blocks_for(quantize_kernel, count * n_), 256, 0, stream>>>(
        llr, v, scale_.get(), q_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("quantize_kernel");
  }
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
