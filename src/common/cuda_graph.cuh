// An owning executable CUDA graph: work captured once from streams, then launched as one unit
// (one call, and no gaps on the GPU while the host would be issuing the next call).
#pragma once

#include "common/cuda_check.cuh"

namespace gpufec::cuda {

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

}  // namespace gpufec::cuda
