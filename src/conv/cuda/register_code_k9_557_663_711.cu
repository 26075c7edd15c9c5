// The register kernel compiled for K = 9 (557,663,711), rate 1/3: UMTS, IS-95; four lanes per tile
// (register_entry.cuh).
#include "conv/cuda/kernels/register_entry.cuh"

namespace gpufec::conv::detail {

register_kernel_entry register_code_k9_557_663_711() {
  return entry_of<regs::lane_spec<3, 0557, 0663, 0711>>();
}

}  // namespace gpufec::conv::detail
