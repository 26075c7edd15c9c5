// fb_kernel, the general alpha/beta kernel (declared in alpha_beta_kernels.cuh): a kernel that is
// not a template is defined in one translation unit only.
#include "sync/cuda/kernels/alpha_beta_kernels.cuh"

namespace gpufec::sync::cuda_detail {

__global__ void fb_kernel(device_geometry g, device_frames b, const double* gsum, double* alpha,
                          double* beta, const double* end_prior) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ __align__(16) unsigned keys[2][32];
  const int f = blockIdx.x, t = threadIdx.x, T = blockDim.x;
  if (b.status[f] == status_skip) return;  // not on another pass's failure
  const bool forward = blockIdx.y == 0;
  const int pad = g.Mn, stride = g.M + 2 * pad;
  const double* gs =
      gsum + gsum_block(g, f, 0) + (forward ? 0 : static_cast<std::size_t>(g.M) * g.Kp);
  const std::ptrdiff_t gs_step = forward ? g.gsum_stride : -g.gsum_stride;
  if (!forward) gs += static_cast<std::size_t>(g.N - 1) * g.gsum_stride;  // block of step 0
  double* out = (forward ? alpha : beta) + static_cast<std::size_t>(f) * (g.N + 1) * g.M;
  double* rows = reinterpret_cast<double*>(smem) + pad;  // rows[parity][-pad .. M + pad)
  const row_scale scales = row_scale::at(keys, (T + 31) / 32);
  scales.init();
  for (int k = t; k < 2 * stride; k += T) rows[k - pad] = 0.0;
  __syncthreads();
  const long long rho = b.rho[f];
  unsigned key = 0;
  for (int m = t; m < g.M; m += T) {
    const double v = fb_start(g, forward, m, rho, end_prior);
    rows[m] = v;
    out[static_cast<std::size_t>(forward ? 0 : g.N) * g.M + m] = v;
    key = max(key, row_scale::key_of(v));
  }
  scales.publish(0, key);

  // alpha_{i+1}(m) = sum over m' = m - delta of alpha_i(m') gsum(delta, m'), m' = m - m_n_min - k;
  // beta_i(m) = sum over m + delta of gsum(delta, m) beta_{i+1}(m + delta), m + m_n_min + k.
  double* out_row = out + static_cast<std::size_t>(forward ? 1 : g.N - 1) * g.M;
  const std::ptrdiff_t out_step = forward ? g.M : -g.M;
  double first_scale = 0;
  for (int step = 0; step < g.N; ++step, out_row += out_step, gs += gs_step) {
    __syncthreads();  // row `step` and its keys are published
    const double scale = scales.of(step & 1);
    if (step == 0) first_scale = scale;
    const double* prev = rows + (step & 1) * stride;
    double* next = rows + ((step + 1) & 1) * stride;
    key = 0;
    for (int m = t; m < g.M; m += T) {
      const double v =
          chain_sum(g, forward, prev, m, gs + static_cast<std::size_t>(m) * g.Kp) * scale;
      next[m] = out_row[m] = v;
      key = max(key, row_scale::key_of(v));
    }
    scales.publish((step + 1) & 1, key);
  }
  __syncthreads();
  report_failure(b, f, forward, first_scale, scales.of(g.N & 1));
}

}  // namespace gpufec::sync::cuda_detail
