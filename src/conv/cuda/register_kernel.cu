// The codes the register kernel is compiled for (register_kernel.cuh), and how the engine finds
// and launches one. Each code is a template instance (its labels fold into constants) in a
// translation unit of its own (register_code_*.cu); any other code, and any recursive one, runs on
// the shared-memory kernel (kernels/shared_kernel.cuh), which decides the same bits.
#include "common/cuda/check.cuh"
#include "conv/cuda/register_table.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::conv::detail {
namespace {

// The common feedforward codes: K = 7 (171,133) of DVB-S, 802.11 and CCSDS, and in the other
// order (133,171), as 802.11 lists it; its rate 1/3 form (133,171,165) of LTE; K = 9 (561,753) and
// (557,663,711) of UMTS and IS-95, on four lanes per tile; K = 5 (23,35); K = 3 (7,5), the smallest
// (tests).
const std::vector<register_kernel_entry>& table() {
  static const std::vector<register_kernel_entry> entries{
      register_code_k7_171_133(), register_code_k7_133_171(),     register_code_k7_133_171_165(),
      register_code_k9_561_753(), register_code_k9_557_663_711(), register_code_k5_23_35(),
      register_code_k3_7_5(),
  };
  return entries;
}

}  // namespace

const register_kernel_entry* find_register_kernel(const conv_code& code) {
  if (code.recursive()) return nullptr;
  for (const register_kernel_entry& e : table())
    if (e.K == code.K() && e.polynomials == code.polynomials()) {
      require(e.labels_match(code), "internal: the register kernel's trellis for ",
              code.to_string(), " differs from the code's");
      return &e;
    }
  return nullptr;
}

void launch_register_kernel(const register_kernel_entry& entry, bool punctured, unsigned blocks,
                            unsigned threads, std::size_t shared, cudaStream_t stream,
                            const tiled_params& params) {
  tiled_params copy = params;
  void* args[] = {&copy};
  GPUFEC_CUDA_CHECK(cudaLaunchKernel(entry.kernel[punctured ? 1 : 0], dim3(blocks), dim3(threads),
                                     args, shared, stream));
  GPUFEC_CUDA_CHECK_LAUNCH("register_viterbi_kernel");
}

}  // namespace gpufec::conv::detail
