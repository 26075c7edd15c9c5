#include "sync/cuda/kernels/device_path_kernels.cuh"

namespace gpufec::sync::cuda_detail {

__global__ void stage_lengths_kernel(device_geometry g, device_batch in, long long first, int count,
                                     long long capacity, long long* offsets, long long* rho,
                                     int* status) {
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f > count) return;
  offsets[f] = f * capacity;
  if (f == count) return;
  const long long r = static_cast<long long>(in.length(first + f)), drift = r - g.tau;
  rho[f] = r;
  const bool ok =
      r > 0 && (g.end_known ? drift >= g.m_tau_min && drift <= g.m_tau_max : drift >= g.m_tau_min);
  status[f] = ok ? status_ok : status_skip;
}

__global__ void stage_symbols_kernel(device_batch in, long long first, int count,
                                     long long capacity, std::uint8_t* y, int* status) {
  const long long total = count * capacity;
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < total;
       p += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long f = p / capacity, j = p % capacity;
    const long long length = static_cast<long long>(in.length(first + f));
    std::uint8_t v = 0;
    if (j < length) {
      v = in.data[in.begin_of(first + f) + j];
      if (v > 1) {
        status[f] = status_skip;
        v = 0;
      }
    }
    y[p] = v;
  }
}

__global__ void clear_undecodable_kernel(device_geometry g, const int* status,
                                         std::uint32_t* decisions, double* app, double* lambda) {
  const long long f = blockIdx.x;
  if (status[f] == status_ok) return;  // whole block
  const long long N = g.N, per_app = N * g.q, per_lambda = (N + 1) * g.M;
  for (long long k = threadIdx.x; k < N; k += blockDim.x) decisions[f * N + k] = 0;
  if (app)
    for (long long k = threadIdx.x; k < per_app; k += blockDim.x) app[f * per_app + k] = 0;
  if (lambda)
    for (long long k = threadIdx.x; k < per_lambda; k += blockDim.x) lambda[f * per_lambda + k] = 0;
}

}  // namespace gpufec::sync::cuda_detail
