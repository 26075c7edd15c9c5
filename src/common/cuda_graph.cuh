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
    const cudaError_t status = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    if (status != cudaSuccess) exec_ = nullptr;
    GPUFEC_CUDA_CHECK(status);
  }
  void launch(cudaStream_t stream) const { GPUFEC_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace gpufec::cuda
