// A chunk's pipeline: its parts and their streams, the copies of their results, the CUDA graph
// that replays a chunk from decode(), and collecting the results as they land.
//
// Parts have decreasing sizes (weights P, P - 1, ..., 1, cuda_plan::parts_for): every part is
// queued at once, and the host moves part k's results while the GPU runs later parts, so what is
// left after the GPU finishes is the last (smallest) part's copies.
#include <algorithm>
#include <array>
#include <thread>

#include "common/host_copy.hpp"
#include "sync/cuda/engine.cuh"

namespace gpufec::sync::cuda_detail {

cuda_engine::chunk_call cuda_engine::plan_call(int count, std::size_t first, results_mode results) {
  chunk_call c;
  c.count = count;
  c.first = first;
  c.results = results;
  c.parts = plan_.parts_for(count);
  c.frame_folds = plan_.chunk_folds(count) && plan_.folds_by_frames();
  const long long weights = c.parts * (c.parts + 1) / 2;
  for (int k = 0, w = 0; k < c.parts; w += c.parts - k, ++k) {
    part& p = parts_[k];
    p.first = static_cast<int>(static_cast<long long>(count) * w / weights);
    p.count =
        static_cast<int>(static_cast<long long>(count) * (w + c.parts - k) / weights) - p.first;
    p.lane = k & 1;
    p.index = k;
  }
  return c;
}

// Host modes: lays the parts' results out in the page-locked staging and reserves it (before any
// launch: it may reallocate), or falls back to pageable copies when they do not fit. A one-part
// chunk's L then writes its results into the staging itself (direct), sparing the GPU the result
// copies (with several parts, each part's copies overlap later parts' kernels instead); not in
// local storage, where L runs index by index on several streams.
void cuda_engine::reserve_staging(chunk_call& c) {
  if (!c.has_priors()) priors_.release();  // here, not while a graph is being captured
  host_status_.resize(c.count);
  std::size_t staging = 0, results = 0;
  for (int k = 0; k < c.parts; ++k) {
    part& p = parts_[k];
    p.staged_at = staging;
    p.results_at = results;
    results += results_of(c, p).region_bytes;
    for (const piece& x : pieces_of(c, p)) staging += align16(x.bytes);
  }
  if (staging > policy::staging_bytes) {
    c.results = results_mode::pageable;
    return;
  }
  host_outputs_.reserve(staging);
  c.results = c.parts == 1 && !plan_.ring() ? results_mode::direct : results_mode::staged;
}

// Where a part's decisions, APPs and drift posteriors are written: one region per part in
// results_, each array 16-byte aligned, in the order they are staged (after the status), so that
// one copy moves what the caller wants; the same layout in the staging (direct); or the caller's
// device arrays.
cuda_engine::result_target cuda_engine::results_of(const chunk_call& c, const part& p) const {
  const std::size_t n = p.count, at = c.first + p.first;
  const result_counts k = results_per_frame();
  const std::size_t app_at = align16(n * k.decisions * 4);
  const std::size_t lambda_at = app_at + align16(n * k.app * 8);
  const std::size_t bytes = lambda_at + align16(n * k.lambda * 8);
  if (c.results == results_mode::device) {
    const device_outputs& o = c.device_out;
    return {o.decisions + at * k.decisions, c.app ? o.app + at * k.app : nullptr,
            c.lambda ? o.drift_posterior + at * k.lambda : nullptr, nullptr, 0};
  }
  const bool direct = c.results == results_mode::direct;
  unsigned char* base = direct ? host_outputs_.device() + p.staged_at + align16(n * sizeof(int))
                               : results_.get() + p.results_at;
  return {reinterpret_cast<std::uint32_t*>(base),
          c.app ? reinterpret_cast<double*>(base + app_at) : nullptr,
          c.lambda ? reinterpret_cast<double*>(base + lambda_at) : nullptr,
          direct ? reinterpret_cast<int*>(host_outputs_.device() + p.staged_at) : nullptr, bytes};
}

std::array<cuda_engine::piece, 4> cuda_engine::pieces_of(const chunk_call& c, const part& p) {
  const std::size_t at = c.first + p.first, n = p.count;
  const result_counts k = results_per_frame();
  const result_target r = results_of(c, p);
  decode_output* out = c.host_out;
  return {
      {{host_status_.data() + p.first, device_inputs(c.count).status + p.first, n * sizeof(int)},
       {out->decisions.data() + at * k.decisions, r.decisions, n * k.decisions * 4},
       {c.app ? out->app.data() + at * k.app : nullptr, r.app, c.app ? n * k.app * 8 : 0},
       {c.lambda ? out->drift_posterior.data() + at * k.lambda : nullptr, r.lambda,
        c.lambda ? n * k.lambda * 8 : 0}}};
}

void cuda_engine::record(const cuda::event& e, cudaStream_t stream) const {
  // While capturing, an external event node: the graph records the timing event when it runs.
  e.record(stream, graph_.capturing());
}

// Everything after the inputs, on the streams: the priors, then every part's kernels and copies.
void cuda_engine::enqueue(const chunk_call& c) {
  const std::size_t N = g_.N, q = g_.q;
  if (c.host_priors) {
    priors_.resize(chunk_ * N * q);
    GPUFEC_CUDA_CHECK(cudaMemcpyAsync(priors_.get(), c.host_priors, c.count * N * q * 8,
                                      cudaMemcpyHostToDevice, lanes_[0]));
  }
  // The inputs were staged on the first lane; the second (and the frame-folded parts' gamma
  // streams) wait for them.
  if (c.parts > 1 || c.frame_folds) {
    inputs_ready_.record(lanes_[0]);
    inputs_ready_.wait_on(lanes_[1]);
  }
  for (int k = 0; k < c.parts; ++k) {
    launch(c, parts_[k]);
    queue_copies(c, parts_[k]);
  }
}

// decode()'s chunk from the page-locked input staging: the start event, one input copy, then
// enqueue().
void cuda_engine::enqueue_staged(const chunk_call& c) {
  record(start_, lanes_[0]);
  GPUFEC_CUDA_CHECK(cudaMemcpyAsync(inputs_.get(), host_inputs_.get(),
                                    inputs_at(nullptr, c.count).bytes, cudaMemcpyHostToDevice,
                                    lanes_[0]));
  enqueue(c);
}

// The GPU work of a chunk from decode() (input copy, kernels, result copies) as one CUDA graph:
// one launch instead of ~15 calls, so the GPU no longer waits for the host between the copy and
// the first kernel (~8 us of a single frame's ~110). Captured once per shape of the chunk and
// replayed while the frames, outputs and staging buffers stay the same.
void cuda_engine::run_graph(const chunk_call& c) {
  const graph_key key{c.count, c.app, c.lambda, host_inputs_.get(), host_outputs_.get()};
  graph_.run(key, lanes_[0], [&](cudaStream_t) {
    enqueue_staged(c);
    if (c.parts > 1) {  // the second lane joins back before the capture ends
      joined_.record(lanes_[1]);
      joined_.wait_on(lanes_[0]);
    }
  });
}

// Queues a part's result copies behind its kernels: into its own place in the page-locked staging
// (so no part waits for the host); none for a direct chunk, whose L wrote that place itself; none
// in pageable mode (finish_copies() copies straight into the caller's vectors); in device mode,
// the part's statuses into the caller's device array.
void cuda_engine::queue_copies(const chunk_call& c, const part& p) {
  const cudaStream_t st = stream_of(p);
  switch (c.results) {
    case results_mode::pageable:
      return;
    case results_mode::device:
      GPUFEC_CUDA_CHECK(cudaMemcpyAsync(c.device_out.status + c.first + p.first,
                                        device_inputs(c.count).status + p.first,
                                        p.count * sizeof(int), cudaMemcpyDeviceToDevice, st));
      return;
    case results_mode::direct:
      record(p.events[4], st);
      return;
    case results_mode::staged:
      break;
  }
  // Two copies: the status (from the inputs), then the results region up to the last piece
  // wanted (the staging layout after the status is the region's).
  const auto pieces = pieces_of(c, p);
  std::size_t results = 0;
  for (int k = 1; k < 4; ++k) results += align16(pieces[k].bytes);
  unsigned char* to = host_outputs_.get() + p.staged_at;
  GPUFEC_CUDA_CHECK(
      cudaMemcpyAsync(to, pieces[0].from, pieces[0].bytes, cudaMemcpyDeviceToHost, st));
  GPUFEC_CUDA_CHECK(cudaMemcpyAsync(to + align16(pieces[0].bytes), pieces[1].from, results,
                                    cudaMemcpyDeviceToHost, st));
  record(p.events[4], st);
}

// Waits for a part's results and moves them to the caller (while the GPU runs later parts).
void cuda_engine::finish_copies(const chunk_call& c, const part& p) {
  const auto pieces = pieces_of(c, p);
  const bool pageable = c.results == results_mode::pageable;
  if (pageable) {
    for (const piece& x : pieces)
      if (x.bytes)
        GPUFEC_CUDA_CHECK(
            cudaMemcpyAsync(x.to, x.from, x.bytes, cudaMemcpyDeviceToHost, stream_of(p)));
    p.events[4].record(stream_of(p));
  }
  p.events[4].synchronize();
  if (pageable) return;
  std::size_t at = p.staged_at;
  for (const piece& x : pieces) {
    if (x.bytes) host_copy(x.to, host_outputs_.get() + at, x.bytes);
    at += align16(x.bytes);
  }
}

// Waits for every part, moves the results to the caller, and adds the timings and messages.
void cuda_engine::collect(const chunk_call& c) {
  const int parts = c.parts;
  if (c.results == results_mode::pageable) {
    for (int k = 0; k < parts; ++k) finish_copies(c, parts_[k]);
  } else {
    // Each part's results as soon as they land: the frame-folded parts finish in the order the
    // device dispatched their gamma blocks, not in part order.
    std::array<bool, policy::max_parts> moved{};
    for (int left = parts; left > 0;) {
      int k = 0;
      while (k < parts && (moved[k] || !parts_[k].events[4].done())) ++k;
      if (k == parts) {
        std::this_thread::yield();
        continue;
      }
      finish_copies(c, parts_[k]);
      moved[k] = true;
      --left;
    }
  }
  // Phase times are sums over the parts (which may overlap); total is the wall time on the GPU.
  if (c.phases) {
    timings_.phases = true;
    timings_.transfer += cuda::seconds_between(start_, parts_[0].events[0]);
    for (int k = 0; k < parts; ++k) {
      const part& p = parts_[k];
      timings_.gamma += cuda::seconds_between(p.events[0], p.events[1]);
      timings_.forward_backward += cuda::seconds_between(p.events[1], p.events[2]);
      timings_.app += cuda::seconds_between(p.events[2], p.events[3]);
      timings_.transfer += cuda::seconds_between(p.events[3], p.events[4]);
    }
  }
  double last = 0;  // the parts' two streams may finish in either order
  for (int k = 0; k < parts; ++k)
    last = std::max(last, cuda::seconds_between(start_, parts_[k].events[4]));
  timings_.total += last;
  report_statuses(c);
}

// Frames the kernels found undecodable get their reason (skipped frames keep the host's).
void cuda_engine::report_statuses(const chunk_call& c) {
  decode_output& out = *c.host_out;
  for (int f = 0; f < c.count; ++f) {
    const int s = host_status_[f];
    if (s == status_ok) continue;
    out.decoded[c.first + f] = 0;
    if (out.messages[c.first + f].empty())
      out.messages[c.first + f] = to_string(static_cast<frame_status>(s));
  }
}

}  // namespace gpufec::sync::cuda_detail
