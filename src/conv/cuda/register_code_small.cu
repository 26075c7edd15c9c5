// The register kernel compiled for the small codes (register_entry.cuh): K = 5 (23,35) and K = 3
// (7,5), the smallest (tests).
#include "conv/cuda/kernels/register_entry.cuh"

namespace gpufec::conv::detail {

register_kernel_entry register_code_k5_23_35() {
  return entry_of<regs::code_spec<5, 2, 023, 035>>();
}
register_kernel_entry register_code_k3_7_5() {
  return entry_of<regs::code_spec<3, 2, 07, 05>>();
}

}  // namespace gpufec::conv::detail
