// The CUDA engine of the sync MAP decoder: owns the device buffers for one chunk of frames, picks
// the kernel shapes from the device's limits (seed paper sec. V) and runs the three kernels.
#pragma once

#include <array>
#include <vector>

#include "common/cuda_graph.cuh"
#include "common/device_buffer.cuh"
#include "common/pinned_buffer.cuh"
#include "sync/cuda_kernels.cuh"
#include "sync/decoder_engine.hpp"

namespace gpufec::sync::cuda_detail {

// One kernel's launch shape and where it came from.
struct launch_shape {
  int threads = 0;         // block size
  int Bx = 0, By = 0;      // D lanes x states per block
  std::size_t shared = 0;  // dynamic shared memory, bytes
  int blocks_per_sm = 0;   // occupancy API's answer
};

class cuda_engine final : public detail::decoder_engine {
 public:
  cuda_engine(const tvb_code& code, const detail::geometry& g, const decoder_options& options,
              std::size_t max_batch, storage_mode& storage);
  ~cuda_engine() override;

  void decode(batch_view<std::uint8_t> received, const double* priors, decode_output& out) override;
  std::vector<std::string> kernel_shapes() const override;
  std::size_t allocated_bytes() const override;
  void set_phase_timings(bool on) override { phase_timings_ = on; }

  // The inputs of `count` frames, laid out in one block (so that one copy moves them): frame f's
  // symbols at y + f * capacity() (its true length in rho[f]), offsets[f] = f * capacity(), and
  // status[f] (0 decodable, status_skip otherwise).
  struct frame_inputs {
    std::uint8_t* y;
    long long* offsets;
    long long* rho;
    int* status;
    std::size_t bytes;  // of the whole block
  };
  frame_inputs inputs_at(unsigned char* base, int count) const;
  // Device-resident input (the simulator's channel kernel writes here): frames [0, count) of the
  // chunk. Then run_loaded() decodes them and copies decisions back (call record_start() first)
  // (and APPs / drift posteriors when `full_output`).
  std::size_t chunk() const { return chunk_; }
  std::size_t capacity() const { return capacity_; }
  frame_inputs device_inputs(int count) const { return inputs_at(inputs_.get(), count); }
  const std::uint32_t* device_codewords() const { return codewords_.get(); }
  cudaStream_t stream() const { return stream_; }
  // Marks the start of a chunk's timing (before its input copies or channel kernel).
  void record_start();
  void run_loaded(int count, const double* host_priors, decode_output& out, std::size_t first,
                  bool full_output);

 private:
  // One part of a chunk: frames [first, first + count) of the buffers, on stream `lane` (parts
  // alternate between two streams, so one part's copies overlap the next part's kernels).
  struct part {
    int first = 0, count = 0, lane = 0, index = 0;
    cudaEvent_t events[5] = {};  // start, after gamma, after alpha/beta, after L, after copies
    std::size_t staged_at = 0;   // offset of its results in host_outputs_
    std::size_t results_at = 0;  // offset of its results region in results_
  };
  struct results_layout {
    unsigned char* base;  // decisions
    std::size_t app_at, lambda_at, bytes;
  };
  results_layout results_of(const part& p) const;
  // Values per frame of each result: decisions (4-byte words), APPs and drift posteriors (doubles).
  struct result_counts {
    std::size_t decisions, app, lambda;
  };
  result_counts results_per_frame() const;
  // A part's results: where each goes in the caller's output, where it is on the device.
  struct piece {
    void* to;
    const void* from;
    std::size_t bytes;
  };
  std::array<piece, 4> pieces_of(const part& p, decode_output& out, std::size_t first,
                                 bool full_output);
  void choose_shapes();
  // gamma_warp_kernel: the variant without substitutions, and the states per warp of a part.
  bool gamma_nosub() const { return g_.mismatch_f == 0.0f; }
  int gamma_states_per_warp(int frames, int indices) const;  // for a launch of `indices` i
  // The folded path (cuda_folded_kernel.cuh) for part p, and its states per item.
  int fold_min_frames() const;
  bool chunk_folds(int count) const;
  long long resident_fold_warps() const;
  bool folded(const part& p) const;
  int fold_states_per_warp(int frames) const;
  // The frame-folded path (gamma_beta_frame_kernel, a block per frame, then alpha and L from V)
  // for the chunk's parts: chosen per chunk by plan_parts.
  bool folds_by_frames() const;
  void launch_frame_folded(const part& p, const device_frames& b, double* V, double* gsum,
                           double* beta, const double* end_prior);
  int app_symbols_per_lane() const;
  // Storage: R stored (global, or the ring of local), the ring of local storage and its rows.
  bool stores_gamma() const { return storage_ != storage_mode::compact; }
  bool ring() const { return storage_ == storage_mode::local; }
  int stored_rows(storage_mode s) const;
  void allocate(std::size_t frames);
  std::size_t bytes_per_frame(storage_mode s) const;
  cudaStream_t stream_of(const part& p) const { return p.lane ? stream2_ : stream_; }
  void record(cudaEvent_t event, cudaStream_t stream);
  bool plan_parts(int count, bool has_priors, decode_output& out, std::size_t first,
                  bool full_output);
  void enqueue(int count, const double* host_priors, decode_output& out, std::size_t first,
               bool full_output, bool staged);
  void collect(int count, decode_output& out, std::size_t first, bool full_output, bool staged);
  void enqueue_staged(int count, const double* host_priors, decode_output& out, std::size_t first,
                      bool staged);
  void run_graph(int count, decode_output& out, std::size_t first);
  void launch(const part& p, bool has_priors);
  // Local storage: part p's forward and backward passes, index by index (cuda_local_storage.cu).
  void launch_local(const part& p, const device_frames& b, void* gamma, double* gsum, double* alpha,
                    double* beta, double* app, std::uint32_t* decisions, double* lambda);
  void launch_gamma(const device_geometry& g, const device_frames& b, int count, int indices,
                    void* gamma, double* gsum, cudaStream_t st);
  const launch_shape& app_shape_for(long long blocks) const;
  void queue_copies(const part& p, decode_output& out, std::size_t first, bool full_output,
                    bool staged);
  void finish_copies(const part& p, decode_output& out, std::size_t first, bool full_output,
                     bool staged);

  device_geometry g_{};
  detail::geometry host_g_;
  bool f64_lattice_;
  storage_mode storage_ = storage_mode::global;  // resolved
  std::size_t max_batch_, chunk_ = 0, capacity_ = 0;
  int fold_min_frames_;  // decoder_options::fold_min_frames (0: from the device)
  fold_kernel fold_;     // decoder_options::fold
  int sm_count_ = 0;
  std::size_t shared_optin_ = 0;
  int max_block_threads_ = 0;
  bool bulk_copies_ = false;  // sm_90: TMA bulk copies and mbarrier waits
  launch_shape gamma_shape_, fb_shape_, app_shape_;
  launch_shape step_shape_;                // fb_step_kernel (local storage)
  launch_shape fold_shape_, app_v_shape_;  // folded path; fold_shape_.threads 0: not available
  launch_shape frame_shape_;               // gamma_beta_frame_kernel; threads 0: not available
  int frame_per_warp_ = 0;                 // ... its states per warp
  bool frame_folds_ = false;               // the chunk being decoded takes the frame-folded path
  std::vector<launch_shape> app_wide_shapes_;  // L for small batches, widest first
  int app_groups_ = 1;                         // G of app_kernel
  int gamma_width_ = 0;        // W of gamma_warp_kernel, 0: the general gamma_kernel
  int fb_width_ = 0;           // K of fb_ring_kernel, 0: fb_kernel
  int fb_log_ring_ = 0;        // log2 of the gsum blocks fb_ring_kernel keeps in flight
  bool app_wanted_ = true;     // the APPs are written and copied back (not for the simulator)
  bool lambda_wanted_ = true;  // the drift posterior is computed and copied back
  bool direct_ = false;        // the chunk's L writes its results into host_outputs_ (plan_parts)
  int loaded_ = 0;             // frames of the chunk being decoded (fixes the inputs' layout)

  cuda::device_buffer<std::uint32_t> codewords_;
  cuda::device_buffer<double> end_prior_;
  cuda::device_buffer<unsigned char> inputs_;  // frame_inputs of a chunk
  cuda::device_buffer<double> priors_;
  cuda::device_buffer<unsigned char> gamma_;  // float or double R values (global storage)
  cuda::device_buffer<double> gsum_, alpha_, beta_;
  cuda::device_buffer<unsigned> app_blocks_done_;     // ticket of L's status hand-off
  cuda::device_buffer<unsigned long long> counters_;  // the folded parts' item counters
  cuda::device_buffer<unsigned char> results_;  // decisions, APPs, drift posteriors (results_of)
  cudaStream_t stream_ = nullptr, stream2_ = nullptr;
  // Local storage: the rotating streams of the ring (index i on ring_streams_[i % rows]) and the
  // event each records after its alpha or beta step.
  std::array<cudaStream_t, 4> ring_streams_{};
  std::array<cudaEvent_t, 4> ring_events_{};
  // The frame-folded path: part k's gamma kernel on gamma_streams_[k] (priorities below the
  // parts' streams, so alpha and L take SMs before queued gamma blocks, and falling with k), and
  // the event its part's stream waits for.
  std::vector<cudaStream_t> gamma_streams_;
  std::vector<cudaEvent_t> gamma_done_;
  cudaEvent_t start_ = nullptr, inputs_ready_ = nullptr, joined_ = nullptr;
  std::vector<part> parts_;
  int parts_count_ = 1;           // parts of the chunk being decoded
  bool capturing_ = false;        // stream capture of run_graph() in progress
  bool phase_timings_ = false;    // asked for: events between the kernels (then no graph)
  bool phases_recorded_ = false;  // the chunk being decoded records them
  // What a captured chunk depends on: while it stays the same, decode() replays graph_.
  struct graph_key {
    int count;
    bool app_wanted, lambda_wanted;
    const void* inputs;
    const void* outputs;
    bool operator==(const graph_key&) const = default;
  };
  graph_key graph_key_{};
  cuda::graph_exec graph_;
  cuda::pinned_buffer host_inputs_;   // staging of decode()'s inputs
  cuda::pinned_buffer host_outputs_;  // a chunk's results on their way to the caller
  std::vector<int> host_status_;
};

}  // namespace gpufec::sync::cuda_detail
