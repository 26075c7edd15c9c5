// Benchmark program behind the register Viterbi kernel's floor (docs/conv.md, "The floor"): how
// many warp instructions per clock an SM issues of each integer instruction the kernel is made of,
// alone and in pairs with the multiply-add (FMA pipe) and the 3-input logic op (ALU pipe). The
// kernel's add-compare-select is DPX add-max (VIADDMNMX), its decision sums multiply-adds (IMAD),
// its decision packing byte permutes (PRMT) and logic (LOP3); a pair that issues near 4 per clock
// runs on two pipes side by side, one near 2 shares a pipe. Built when CUDA is compiled.
//   conv_cuda_pipes [--quick] [--json FILE]
//
// Index map: one block of `warps` x 32 threads per SM, each thread running kChains independent
// chains of one instruction each (chain j: kind A for even j, B for odd j), unrolled, for `iters`
// rounds; chain j also reads chain j + 1's value, so nothing folds away. Clock cycles by clock64()
// between two block barriers; the rate is the block's warp instructions over its cycles (all
// blocks run at once, one per SM).
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cuda/check.cuh"
#include "common/cuda/device_buffer.cuh"
#include "gpufec/common/device.hpp"
#include "program.hpp"

namespace {

enum kind : int { dpx_addmax, dpx_addmax_u16, dpx_max, imad, iadd3, prmt, lop3, funnel_shift };
constexpr const char* kind_names[] = {"VIADDMNMX.S16x2 (DPX add-max)", "VIADDMNMX.U16x2 (unsigned)",
                                      "VIMNMX.S16x2 (DPX max)",        "IMAD (multiply-add)",
                                      "IADD3 (3-input add)",           "PRMT (byte permute)",
                                      "LOP3 (3-input logic)",          "SHF (funnel shift)"};

// One instruction of `k` on x, y (run-time constant) and z (another chain): inline PTX where the
// compiler would otherwise rewrite the operation.
template <int k>
__device__ __forceinline__ unsigned op(unsigned x, unsigned y, unsigned z) {
  unsigned r;
  if constexpr (k == dpx_addmax) {
    r = __viaddmax_s16x2(x, y, z);
  } else if constexpr (k == dpx_addmax_u16) {
    r = __viaddmax_u16x2(x, y, z);
  } else if constexpr (k == dpx_max) {
    r = __vmaxs2(x, z);
  } else if constexpr (k == imad) {
    r = x * y + z;
  } else if constexpr (k == iadd3) {
    r = x - y + z;
  } else if constexpr (k == prmt) {
    asm volatile("prmt.b32 %0, %1, %2, 0xFBD9;" : "=r"(r) : "r"(x), "r"(y));
  } else if constexpr (k == lop3) {
    asm volatile("lop3.b32 %0, %1, %2, %3, 0xE4;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
  } else {
    r = __funnelshift_r(x, z, y & 31u);
  }
  return r;
}

constexpr int kChains = 12, kUnroll = 8;

template <int A, int B>
__global__ void issue_rate(unsigned seed, int iters, unsigned* sink, long long* cycles) {
  unsigned x[kChains];
#pragma unroll
  for (int j = 0; j < kChains; ++j) x[j] = seed * (threadIdx.x + 7u * j + 1u);
  const unsigned y = seed ^ 0x01230123u;
  __syncthreads();
  const long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int j = 0; j < kChains; ++j)
        x[j] = j % 2 ? op<B>(x[j], y + j, x[(j + 1) % kChains])
                     : op<A>(x[j], y + j, x[(j + 1) % kChains]);
  }
  __syncthreads();
  const long long t1 = clock64();
  unsigned folded = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j) folded ^= x[j];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = folded;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

// Warp instructions per clock and SM of the pair (A, B): the slowest block's cycles.
template <int A, int B>
double rate(int sms, int warps, int iters) {
  const int threads = 32 * warps;
  gpufec::cuda::device_buffer<unsigned> sink(static_cast<std::size_t>(sms) * threads);
  gpufec::cuda::device_buffer<long long> cycles(static_cast<std::size_t>(sms));
  for (const int n : {10, iters}) {  // a warm-up, then the measured run
    issue_rate<A, B><<<sms, threads>>>(3u, n, sink.get(), cycles.get());
    GPUFEC_CUDA_CHECK_LAUNCH("issue_rate");
  }
  std::vector<long long> host(static_cast<std::size_t>(sms));
  GPUFEC_CUDA_CHECK(cudaMemcpy(host.data(), cycles.get(), sizeof(long long) * host.size(),
                               cudaMemcpyDeviceToHost));
  long long slowest = 1;
  for (const long long c : host) slowest = c > slowest ? c : slowest;
  return static_cast<double>(warps) * iters * kUnroll * kChains / static_cast<double>(slowest);
}

struct row {
  int k;
  double alone, with_imad, with_lop3;
};

template <int k>
row measure(int sms, int warps, int iters) {
  return {k, rate<k, k>(sms, warps, iters), rate<k, imad>(sms, warps, iters),
          rate<k, lop3>(sms, warps, iters)};
}

}  // namespace

int main(int argc, char** argv) {
  return gpufec::bench::run_program(
      argc, argv, "conv_cuda_pipes", "[--quick] [--json FILE]",
      [](std::string_view, std::string_view) { return false; },
      [](const gpufec::bench::program_options& program) {
        if (gpufec::cuda_device_count() == 0) throw std::runtime_error("no CUDA device");
        int sms = 0;
        GPUFEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        const int warps = 16, iters = program.quick ? 500 : 2000;
        const std::vector<row> rows{
            measure<dpx_addmax>(sms, warps, iters), measure<dpx_addmax_u16>(sms, warps, iters),
            measure<dpx_max>(sms, warps, iters),    measure<imad>(sms, warps, iters),
            measure<iadd3>(sms, warps, iters),      measure<prmt>(sms, warps, iters),
            measure<lop3>(sms, warps, iters),       measure<funnel_shift>(sms, warps, iters)};
        const std::string device = gpufec::cuda_devices().at(0).name;
        std::printf("conv_cuda_pipes: warp instructions per clock per SM (of 4), %s, %d warps/SM\n",
                    device.c_str(), warps);
        std::printf("%-32s | %6s | %10s | %10s\n", "instruction", "alone", "with IMAD",
                    "with LOP3");
        nlohmann::json out = nlohmann::json::array();
        for (const row& r : rows) {
          std::printf("%-32s | %6.2f | %10.2f | %10.2f\n", kind_names[r.k], r.alone, r.with_imad,
                      r.with_lop3);
          out.push_back({{"instruction", kind_names[r.k]},
                         {"alone", r.alone},
                         {"with_imad", r.with_imad},
                         {"with_lop3", r.with_lop3}});
        }
        return nlohmann::json{{"device", device}, {"warps_per_sm", warps}, {"rates", out}};
      });
}
