// The register kernel compiled for K = 7 (171,133), rate 1/2: DVB-S, 802.11, CCSDS
// (register_entry.cuh).
#include "conv/cuda/kernels/register_entry.cuh"

namespace gpufec::conv::detail {

register_kernel_entry register_code_k7_171_133() {
  return entry_of<regs::code_spec<7, 2, 0171, 0133>>();
}

}  // namespace gpufec::conv::detail
