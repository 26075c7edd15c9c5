// The register kernel compiled for K = 7 (133,171,165), rate 1/3: LTE (register_entry.cuh).
#include "conv/cuda/kernels/register_entry.cuh"

namespace gpufec::conv::detail {

register_kernel_entry register_code_k7_133_171_165() {
  return entry_of<regs::code_spec<7, 3, 0133, 0171, 0165>>();
}

}  // namespace gpufec::conv::detail
