// The CUDA engine of the sync MAP decoder: it executes what the plan chose (detail::cuda_plan:
// storage, chunk, kernel shapes and per-call rules) and decides nothing of its own. It owns the
// device buffers of one chunk of frames, the streams and events, and the page-locked staging.
//
// Where each job lives:
//   engine.cu         construction, buffers, decode() from host memory, decode_device()
//   pipeline.cu       a chunk's parts, their streams and copies, the CUDA graph, collecting results
//   launch.cu         the kernel launches of one part (three kernels, or folded)
//   local_storage.cu  the per-index launches of local storage (a ring of four indices)
//   launch_plan.cu    plan_cuda(): the shapes, from the device's limits and the occupancy API
#pragma once

#include <array>
#include <vector>

#include "common/cuda/device_buffer.cuh"
#include "common/cuda/graph.cuh"
#include "common/cuda/pinned_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "sync/cuda/kernels/device_geometry.cuh"
#include "sync/cuda/policy.hpp"
#include "sync/plan/cuda_plan.hpp"
#include "sync/plan/engine.hpp"

namespace gpufec::sync::cuda_detail {

using cuda::launch_shape;
using detail::cuda_plan;

// Where a chunk's results go: L writes them into the page-locked staging itself (a one-part
// chunk: no copies on the GPU), into the device results region and then copies into the staging
// (parts overlap their copies with later parts' kernels), straight into the caller's pageable
// vectors (a chunk whose results exceed the staging), or into the caller's device arrays.
enum class results_mode { direct, staged, pageable, device };

class cuda_engine final : public detail::decoder_engine {
 public:
  cuda_engine(const tvb_code& code, const detail::geometry& g, const cuda_plan& plan);
  ~cuda_engine() override;

  void decode(batch_view<std::uint8_t> received, const double* priors, decode_output& out,
              const stop_token& stop) override;
  void decode_device(batch_view<std::uint8_t> received, const device_outputs& out,
                     cudaStream_t stream, const double* priors) override;
  std::size_t allocated_bytes() const override;
  void set_phase_timings(bool on) override { phase_timings_ = on; }

 private:
  // The inputs of `count` frames, laid out in one block (so that one copy moves them): frame f's
  // symbols at y + f * capacity (its true length in rho[f]), offsets[f] = f * capacity, and
  // status[f] (status_ok, or status_skip for a frame rejected before decoding).
  struct frame_inputs {
    std::uint8_t* y;
    long long* offsets;
    long long* rho;
    int* status;
    std::size_t bytes;  // of the whole block
  };
  frame_inputs inputs_at(unsigned char* base, int count) const;
  frame_inputs device_inputs(int count) const { return inputs_at(inputs_.get(), count); }

  // One chunk's decode: what it decodes and where its results go, fixed before any launch.
  struct chunk_call {
    int count = 0;                          // frames of the chunk
    std::size_t first = 0;                  // its first frame's index in the caller's batch
    const double* host_priors = nullptr;    // host path: copied into priors_ before the kernels
    const double* device_priors = nullptr;  // device path: the caller's, read in place
    bool app = true, lambda = false;        // results wanted besides decisions and status
    int parts = 1;
    bool frame_folds = false;  // folded by frames: parts pipeline, gamma on streams of their own
    results_mode results = results_mode::staged;
    bool phases = false;                // events between the kernels (phase timings)
    decode_output* host_out = nullptr;  // host modes
    device_outputs device_out{};        // device mode
    bool has_priors() const { return host_priors || device_priors; }
  };
  // One part of a chunk: frames [first, first + count) of the buffers, on lane stream `lane`
  // (parts alternate between two streams, so one part's copies overlap the next part's kernels).
  struct part {
    int first = 0, count = 0, lane = 0, index = 0;
    std::array<cuda::event, 5> events;  // start, after gamma, after alpha/beta, after L, copies
    std::size_t staged_at = 0;          // offset of its results in host_outputs_
    std::size_t results_at = 0;         // offset of its results region in results_
  };
  // Where L writes a part's results (device addresses), and its status hand-off (direct mode).
  struct result_target {
    std::uint32_t* decisions;
    double* app;
    double* lambda;
    int* status_out;
    std::size_t region_bytes;  // of the part's region in results_ (staged and pageable modes)
  };
  // Values per frame of each result: decisions (4-byte words), APPs and drift posteriors (doubles).
  struct result_counts {
    std::size_t decisions, app, lambda;
  };
  result_counts results_per_frame() const;
  result_target results_of(const chunk_call& c, const part& p) const;
  // A part's results in the order they are staged (status, decisions, APPs, drift posteriors):
  // where each goes in the caller's output, and where it is on the device.
  struct piece {
    void* to;
    const void* from;
    std::size_t bytes;
  };
  std::array<piece, 4> pieces_of(const chunk_call& c, const part& p);

  void allocate(std::size_t frames);
  cudaStream_t stream_of(const part& p) const { return lanes_[p.lane]; }
  void record(const cuda::event& e, cudaStream_t stream) const;

  // pipeline.cu
  chunk_call plan_call(int count, std::size_t first, results_mode results);
  void reserve_staging(chunk_call& c);
  void enqueue(const chunk_call& c);
  void enqueue_staged(const chunk_call& c);
  void run_graph(const chunk_call& c);
  void queue_copies(const chunk_call& c, const part& p);
  void finish_copies(const chunk_call& c, const part& p);
  void collect(const chunk_call& c);
  void report_statuses(const chunk_call& c);
  // launch.cu
  void launch(const chunk_call& c, const part& p);
  void launch_gamma(const device_geometry& g, const device_frames& b, int count, int indices,
                    void* gamma, double* gsum, cudaStream_t st);
  void launch_frame_folded(const chunk_call& c, const part& p, const device_frames& b, double* V,
                           double* gsum, double* beta);
  // local_storage.cu: part p's forward and backward passes, index by index.
  void launch_local(const chunk_call& c, const part& p, const device_frames& b, void* gamma,
                    double* gsum, double* alpha, double* beta, const result_target& r);

  const cuda_plan plan_;
  device_geometry g_{};
  bool phase_timings_ = false;  // asked for: events between the kernels (then no graph)

  cuda::device_buffer<std::uint32_t> codewords_;
  cuda::device_buffer<double> end_prior_;
  cuda::device_buffer<unsigned char> inputs_;  // frame_inputs of a chunk
  cuda::device_buffer<double> priors_;
  cuda::device_buffer<unsigned char> gamma_;  // float or double R values, or V (folded)
  cuda::device_buffer<double> gsum_, alpha_, beta_;
  cuda::device_buffer<unsigned> app_blocks_done_;     // ticket of L's status hand-off
  cuda::device_buffer<unsigned long long> counters_;  // the folded parts' item counters
  cuda::device_buffer<unsigned char> results_;  // decisions, APPs, drift posteriors (results_of)
  std::size_t chunk_ = 0;                       // frames the buffers hold

  // The two lane streams (the highest priority); local storage's ring of streams (index i on
  // ring_streams_[i % rows]) and the event each records after its step; the frame-folded path's
  // gamma streams, part k's on gamma_streams_[k] (priorities below the lanes', falling with k, so
  // alpha and L take SMs before queued gamma blocks) and the events their parts wait for.
  std::array<cuda::stream, 2> lanes_;
  std::array<cuda::stream, policy::local_ring_rows> ring_streams_;
  std::array<cuda::event, policy::local_ring_rows> ring_events_;
  std::vector<cuda::stream> gamma_streams_;
  std::vector<cuda::event> gamma_done_;
  cuda::event start_, inputs_ready_, joined_, caller_ready_, done_;
  std::vector<part> parts_;

  // What a captured chunk depends on: while it stays the same, decode() replays the graph.
  struct graph_key {
    int count;
    bool app, lambda;
    const void* inputs;
    const void* outputs;
    bool operator==(const graph_key&) const = default;
  };
  cuda::keyed_graph<graph_key> graph_;
  cuda::pinned_buffer host_inputs_;   // staging of decode()'s inputs
  cuda::pinned_buffer host_outputs_;  // a chunk's results on their way to the caller
  std::vector<int> host_status_;
};

}  // namespace gpufec::sync::cuda_detail
