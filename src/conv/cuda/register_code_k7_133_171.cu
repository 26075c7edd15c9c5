// The register kernel compiled for K = 7 (133,171), rate 1/2: the (171,133) code with its outputs
// the other way round, as 802.11 and many tools list it (register_entry.cuh).
#include "conv/cuda/kernels/register_entry.cuh"

namespace gpufec::conv::detail {

register_kernel_entry register_code_k7_133_171() {
  return entry_of<regs::code_spec<7, 2, 0133, 0171>>();
}

}  // namespace gpufec::conv::detail
