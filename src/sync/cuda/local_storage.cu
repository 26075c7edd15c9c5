// Local storage on the GPU (seed paper sec. IV-B, Fig. 3): gamma of one index at a time, in a ring
// of four index rows per frame, so that a frame needs M_tau M_n q values of R per row instead of N
// of them. Each gamma_i is computed twice: in the forward pass for alpha, and in the backward pass
// for beta and, from the same stored R, for L (the paper combines L with beta this way).
//
// Index i runs on ring stream i % 4: gamma_i, then the step of alpha (or beta) at i, then
// (backward) L_i. Stream order keeps ring row i % 4 until everything that reads it is done, and an
// event per stream chains each step to the previous index's step, so the gamma kernels of the next
// three indices run beside the steps of earlier ones (the paper's four rotating streams). A chunk's
// launches go into its CUDA graph like any other, so the per-index launches are replayed as one.
// The steps (fb_step_kernel) compute the rows of the persistent alpha/beta kernel of the geometry
// bit for bit, and L sums in app_kernel's one order: the digits are those of global storage.
#include "sync/cuda/engine.cuh"
#include "sync/cuda/kernel_tables.cuh"
#include "sync/cuda/kernels/app_kernel.cuh"

namespace gpufec::sync::cuda_detail {

void cuda_engine::launch_local(const chunk_call& c, const part& p, const device_frames& b,
                               void* gamma, double* gsum, double* alpha, double* beta,
                               const result_target& r) {
  const cudaStream_t st = stream_of(p);
  const int N = g_.N, rows = g_.rows, count = p.count;
  const double* end_prior = end_prior_.size() ? end_prior_.get() : nullptr;
  const fb_step_fn step = fb_step_for(plan_.fb_width);
  const launch_shape& a = plan_.app_shape_for(static_cast<long long>(count) * rows);
  const app_fn L = app_for(plan_.f64_lattice, app_from_gamma, plan_.app_symbols_per_lane);
  // Dependencies, captured into the graph when capturing (never an external event node).
  auto mark = [](const cuda::event& e, cudaStream_t s) { e.record(s); };
  auto wait = [](cudaStream_t s, const cuda::event& e) { e.wait_on(s); };
  auto run_step = [&](const device_geometry& gi, cudaStream_t rs, bool forward) {
    step<<<static_cast<unsigned>(count), plan_.step.threads, plan_.step.shared, rs>>>(
        gi, b, gsum, alpha, beta, end_prior, forward ? 1 : 0);
    GPUFEC_CUDA_CHECK_LAUNCH("fb_step_kernel");
  };
  // The ring's streams start after what the part's stream holds (the inputs).
  mark(ring_events_[0], st);
  for (int s = 0; s < rows; ++s) wait(ring_streams_[s], ring_events_[0]);

  device_geometry gi = g_;
  for (int i = 0; i < N; ++i) {  // forward: gamma_i (gsum only), then alpha_{i+1}
    const cudaStream_t rs = ring_streams_[i % rows];
    gi.index0 = i;
    launch_gamma(gi, b, count, 1, nullptr, gsum, rs);
    if (i > 0) wait(rs, ring_events_[(i - 1) % rows]);
    run_step(gi, rs, true);
    mark(ring_events_[i % rows], rs);
  }
  const int last = (N - 1) % rows;  // the stream of alpha_N: L needs every row of alpha
  if (c.phases) {  // with local storage: "gamma" is the forward pass, "L" the backward one
    record(p.events[1], ring_streams_[last]);
    record(p.events[2], ring_streams_[last]);
  }
  for (int s = 0; s < rows; ++s)
    if (s != last) wait(ring_streams_[s], ring_events_[last]);
  for (int i = N - 1; i >= 0; --i) {  // backward: gamma_i (R too), beta_i, then L_i
    const cudaStream_t rs = ring_streams_[i % rows];
    gi.index0 = i;
    launch_gamma(gi, b, count, 1, gamma, gsum, rs);
    if (i < N - 1) wait(rs, ring_events_[(i + 1) % rows]);
    run_step(gi, rs, false);
    mark(ring_events_[i % rows], rs);
    L<<<dim3(1, static_cast<unsigned>(count)), a.threads, a.shared, rs>>>(
        gi, b, codewords_.get(), a.Bx, a.By, plan_.app_groups, gamma, alpha, beta, r.app,
        r.decisions, r.lambda, nullptr, app_blocks_done_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("app_kernel (local storage)");
  }
  for (int s = 0; s < rows; ++s) {  // the part's stream joins the ring's
    mark(ring_events_[s], ring_streams_[s]);
    wait(st, ring_events_[s]);
  }
  if (c.phases) record(p.events[3], st);
}

}  // namespace gpufec::sync::cuda_detail
