// The register kernel compiled for K = 9 (561,753), rate 1/2: UMTS, IS-95; four lanes per tile
// (register_entry.cuh).
#include "conv/cuda/kernels/register_entry.cuh"

namespace gpufec::conv::detail {

register_kernel_entry register_code_k9_561_753() {
  return entry_of<regs::lane_spec<2, 0561, 0753>>();
}

}  // namespace gpufec::conv::detail
