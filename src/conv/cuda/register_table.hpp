// The register kernel's compiled codes as the engine sees them (register_kernel.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "conv/cuda/kernels/tiled_params.cuh"
#include "gpufec/conv/code.hpp"

namespace gpufec::conv::detail {

struct register_kernel_entry {
  int K = 0, beta = 0;
  std::vector<std::uint32_t> polynomials;
  int words = 0;                               // survivor words per stage and thread
  int lanes = 1;                               // threads per tile (4: lane_spec, K = 9)
  int cycle = 0;                               // stages per cycle: tile shapes are whole cycles
  const void* kernel[2] = {nullptr, nullptr};  // [punctured]
  bool (*labels_match)(const conv_code&) = nullptr;
};

// The compiled codes, one translation unit each (register_code_*.cu, register_entry.cuh).
register_kernel_entry register_code_k7_171_133();
register_kernel_entry register_code_k7_133_171();
register_kernel_entry register_code_k7_133_171_165();
register_kernel_entry register_code_k9_561_753();
register_kernel_entry register_code_k9_557_663_711();
register_kernel_entry register_code_k5_23_35();
register_kernel_entry register_code_k3_7_5();

// The entry compiled for `code`, or null (recursive codes and codes not in the table).
const register_kernel_entry* find_register_kernel(const conv_code& code);

void launch_register_kernel(const register_kernel_entry& entry, bool punctured, unsigned blocks,
                            unsigned threads, std::size_t shared, cudaStream_t stream,
                            const tiled_params& params);

}  // namespace gpufec::conv::detail
