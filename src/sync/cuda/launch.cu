// The launches of one part of a chunk, as the plan chose them: gamma, alpha/beta and L (three
// kernels), or gamma and beta folded (V in the place of R), then alpha alone and L from V. Local
// storage launches index by index instead (local_storage.cu).
#include "sync/cuda/engine.cuh"
#include "sync/cuda/kernel_tables.cuh"
#include "sync/cuda/kernels/alpha_beta_kernels.cuh"
#include "sync/cuda/kernels/app_kernel.cuh"
#include "sync/cuda/kernels/folded_kernels.cuh"
#include "sync/cuda/kernels/gamma_warp_kernel.cuh"

namespace gpufec::sync::cuda_detail {

// gamma of indices [g.index0, g.index0 + indices) of `count` frames: R into `gamma` (null: gsum
// only) and gsum, by the register-row kernel when the plan chose it.
void cuda_engine::launch_gamma(const device_geometry& g, const device_frames& b, int count,
                               int indices, void* gamma, double* gsum, cudaStream_t st) {
  const launch_shape& s = plan_.gamma;
  if (plan_.gamma_width) {
    const int per_block = s.threads / 32;
    const int per_warp = plan_.gamma_states_per_warp(count, indices);
    const int warps = (g.M + per_warp - 1) / per_warp;  // per (frame, i)
    const dim3 grid(static_cast<unsigned>((warps + per_block - 1) / per_block),
                    static_cast<unsigned>(indices), static_cast<unsigned>(count));
    gamma_warp_for(plan_.gamma_width, plan_.gamma_nosub)<<<grid, s.threads, s.shared, st>>>(
        g, b, codewords_.get(), static_cast<float*>(gamma), gsum, per_warp);
  } else {
    const int tiles = (g.M + s.By - 1) / s.By;
    const dim3 grid(static_cast<unsigned>(indices * tiles), static_cast<unsigned>(count));
    gamma_general_for(plan_.f64_lattice)<<<grid, s.threads, s.shared, st>>>(
        g, b, codewords_.get(), s.Bx, s.By, tiles, gamma, gsum);
  }
  GPUFEC_CUDA_CHECK_LAUNCH("gamma_kernel");
}

// gamma and beta of part p, a block per frame, on a gamma stream of its own that waits for the
// inputs only: every part's blocks are queued at once and keep the device full to the end, and
// the part's stream (which waits for them) runs alpha and L as soon as its frames are done.
void cuda_engine::launch_frame_folded(const chunk_call& c, const part& p, const device_frames& b,
                                      double* V, double* gsum, double* beta) {
  const cudaStream_t gs = gamma_streams_[p.index], st = stream_of(p);
  const launch_shape& s = plan_.fold_frames;
  inputs_ready_.wait_on(gs);
  if (c.phases) record(p.events[0], gs);
  gamma_beta_frame_for(
      plan_.gamma_width,
      plan_.gamma_nosub)<<<static_cast<unsigned>(p.count), s.threads, s.shared, gs>>>(
      g_, b, codewords_.get(), V, gsum, beta, end_prior_.size() ? end_prior_.get() : nullptr,
      plan_.frame_states_per_warp);
  GPUFEC_CUDA_CHECK_LAUNCH("gamma_beta_frame_kernel");
  if (c.phases) record(p.events[1], gs);
  gamma_done_[p.index].record(gs);
  gamma_done_[p.index].wait_on(st);
}

void cuda_engine::launch(const chunk_call& c, const part& p) {
  const std::size_t N = g_.N, M = g_.M, Mn = g_.Mn, q = g_.q, first = p.first;
  const cudaStream_t st = stream_of(p);
  const frame_inputs in = device_inputs(c.count);
  const double* priors = c.device_priors ? c.device_priors
                         : c.host_priors ? priors_.get()
                                         : nullptr;
  device_frames b{in.y,
                  in.offsets + first,
                  in.rho + first,
                  priors ? priors + first * N * q : nullptr,
                  in.status + first,
                  p.count};
  const std::size_t real_bytes = plan_.f64_lattice ? 8 : 4;
  unsigned char* gamma =
      plan_.stores_gamma() ? gamma_.get() + first * g_.rows * M * Mn * q * real_bytes : nullptr;
  double* gsum = gsum_.get() + gsum_block(g_, static_cast<int>(first), 0);
  double* alpha = alpha_.get() + first * (N + 1) * M;
  double* beta = beta_.get() + first * (N + 1) * M;
  if (c.phases && !c.frame_folds) record(p.events[0], st);
  const double* end_prior = end_prior_.size() ? end_prior_.get() : nullptr;
  const result_target r = results_of(c, p);
  if (plan_.ring()) {
    launch_local(c, p, b, gamma, gsum, alpha, beta, r);
    return;
  }
  const dim3 app_grid(static_cast<unsigned>(g_.N), static_cast<unsigned>(p.count));
  // Folded by items: a chunk is one part (cuda_plan::parts_for).
  const bool items_fold = !c.frame_folds && c.parts == 1 && plan_.chunk_folds(p.count);
  if (c.frame_folds || items_fold) {
    // gamma and beta interleaved (V in the place of R), then alpha alone, then L from V.
    if (c.frame_folds) {
      launch_frame_folded(c, p, b, reinterpret_cast<double*>(gamma), gsum, beta);
    } else {
      unsigned long long* counters = counters_.get();
      GPUFEC_CUDA_CHECK(cudaMemsetAsync(counters, 0, fold_counters(p.count) * 8, st));
      const launch_shape& s = plan_.fold_items;
      const int per_warp = plan_.fold_states_per_warp(p.count);
      const long long items =
          static_cast<long long>(g_.N) * p.count * ((g_.M + per_warp - 1) / per_warp);
      const long long per_block = s.threads / 32;
      gamma_beta_for(
          plan_.gamma_width,
          plan_.gamma_nosub)<<<static_cast<unsigned>((items + per_block - 1) / per_block),
                               s.threads, s.shared, st>>>(g_, b, codewords_.get(),
                                                          reinterpret_cast<double*>(gamma), gsum,
                                                          beta, end_prior, counters, per_warp);
      GPUFEC_CUDA_CHECK_LAUNCH("gamma_beta_kernel");
      if (c.phases) record(p.events[1], st);
    }
    fb_ring_for(plan_.fb_width)<<<dim3(static_cast<unsigned>(p.count), 1), plan_.fb.threads,
                                  plan_.fb.shared, st>>>(g_, b, gsum, alpha, beta, end_prior,
                                                         plan_.fb_log_ring);
    GPUFEC_CUDA_CHECK_LAUNCH("alpha kernel");
    if (c.phases) record(p.events[2], st);
    const launch_shape& v = plan_.app_from_v;
    app_for(false, app_from_v, 1)<<<app_grid, v.threads, v.shared, st>>>(
        g_, b, codewords_.get(), v.Bx, v.By, plan_.app_groups, gamma, alpha, beta, r.app,
        r.decisions, r.lambda, r.status_out, app_blocks_done_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("app_kernel (from V)");
    if (c.phases) record(p.events[3], st);
    return;
  }
  launch_gamma(g_, b, p.count, g_.N, gamma, gsum, st);
  if (c.phases) record(p.events[1], st);
  const dim3 fb_grid(static_cast<unsigned>(p.count), 2);
  if (plan_.fb_width)
    fb_ring_for(plan_.fb_width)<<<fb_grid, plan_.fb.threads, plan_.fb.shared, st>>>(
        g_, b, gsum, alpha, beta, end_prior, plan_.fb_log_ring);
  else
    fb_kernel<<<fb_grid, plan_.fb.threads, plan_.fb.shared, st>>>(g_, b, gsum, alpha, beta,
                                                                  end_prior);
  GPUFEC_CUDA_CHECK_LAUNCH("alpha/beta kernel");
  if (c.phases) record(p.events[2], st);
  const launch_shape& a = plan_.app_shape_for(static_cast<long long>(p.count) * g_.N);
  app_for(plan_.f64_lattice, plan_.stores_gamma() ? app_from_gamma : app_from_lattice,
          plan_.app_symbols_per_lane)<<<app_grid, a.threads, a.shared, st>>>(
      g_, b, codewords_.get(), a.Bx, a.By, plan_.app_groups, gamma, alpha, beta, r.app, r.decisions,
      r.lambda, r.status_out, app_blocks_done_.get());
  GPUFEC_CUDA_CHECK_LAUNCH("app_kernel");
  if (c.phases) record(p.events[3], st);
}

}  // namespace gpufec::sync::cuda_detail
