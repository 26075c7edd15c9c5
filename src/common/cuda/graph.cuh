// CUDA graphs: work captured once from streams, then launched as one unit (one call, and no gaps
// on the GPU while the host would be issuing the next call), replayed while what the work depends
// on (its key: sizes, buffers) stays the same.
#pragma once

#include <utility>

#include "common/cuda/check.cuh"

namespace gpufec::cuda {

// An owning executable graph.
class graph_exec {
 public:
  graph_exec() = default;
  ~graph_exec() { reset(); }
  graph_exec(const graph_exec&) = delete;
  graph_exec& operator=(const graph_exec&) = delete;

  explicit operator bool() const { return exec_ != nullptr; }
  // Instantiates `graph` and destroys it (null: only releases the current one).
  void reset(cudaGraph_t graph = nullptr) {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
    if (!graph) return;
    // Kernel nodes keep the priority of the stream they were captured from; without this flag
    // every node runs at the launch stream's priority (measured in the sync decoder: a part's
    // alpha waited ~5 ms behind other parts' queued gamma blocks).
    const cudaError_t status =
        cudaGraphInstantiateWithFlags(&exec_, graph, cudaGraphInstantiateFlagUseNodePriority);
    cudaGraphDestroy(graph);
    if (status != cudaSuccess) exec_ = nullptr;
    GPUFEC_CUDA_CHECK(status);
  }
  void launch(cudaStream_t stream) const { GPUFEC_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

// The graph of the last key seen: run() replays it while the key is unchanged, else captures
// `enqueue(stream)` anew. `enqueue` issues the work on `stream` (it may fork other streams from
// it by events, and must join them back). capturing() is true while it runs under capture, so
// timing events can be recorded as external nodes.
template <class Key>
class keyed_graph {
 public:
  template <class Enqueue>
  void run(const Key& key, cudaStream_t stream, Enqueue&& enqueue) {
    if (!exec_ || !(key == key_)) {
      exec_.reset();
      cudaGraph_t graph = nullptr;
      GPUFEC_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      capturing_ = true;
      try {
        std::forward<Enqueue>(enqueue)(stream);
      } catch (...) {
        capturing_ = false;
        if (cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph) cudaGraphDestroy(graph);
        throw;
      }
      capturing_ = false;
      GPUFEC_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
      exec_.reset(graph);
      key_ = key;
    }
    exec_.launch(stream);
  }
  bool capturing() const { return capturing_; }
  void reset() { exec_.reset(); }

 private:
  graph_exec exec_;
  Key key_{};
  bool capturing_ = false;
};

}  // namespace gpufec::cuda
