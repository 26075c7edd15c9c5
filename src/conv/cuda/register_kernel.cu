// The codes the register kernel is compiled for (register_kernel.cuh), and how the engine finds
// and launches one. Each code is a template instance (its labels fold into constants); any other
// code, and any recursive one, runs on the shared-memory kernel (tiled_kernel.cu), which decides
// the same bits.
#include "common/cuda/check.cuh"
#include "conv/cuda/register_kernel.cuh"
#include "conv/cuda/register_table.hpp"

namespace gpufec::conv::detail {
namespace {

template <class Spec>
register_kernel_entry entry_of() {
  register_kernel_entry e;
  e.K = Spec::code_K;
  e.beta = Spec::beta;
  for (int b = 0; b < Spec::beta; ++b) e.polynomials.push_back(Spec::poly(b));
  e.words = Spec::words;
  e.lanes = Spec::lanes;
  e.cycle = Spec::phases;
  e.kernel[0] = reinterpret_cast<const void*>(&regs::register_viterbi_kernel<Spec, false>);
  e.kernel[1] = reinterpret_cast<const void*>(&regs::register_viterbi_kernel<Spec, true>);
  e.labels_match = [](const conv_code& code) {
    const unsigned S = code.states();
    for (unsigned s = 0; s < S; ++s)
      for (unsigned w = 0; w < 2; ++w)
        if (Spec::label(s, w) != code.label(s, w)) return false;
    return true;
  };
  return e;
}

// The common feedforward codes: K = 7 (171,133) of DVB-S, 802.11 and CCSDS; its rate 1/3 form
// (133,171,165) of LTE; K = 9 (561,753) and (557,663,711) of UMTS and IS-95, on four lanes per
// tile; K = 5 (23,35); K = 3 (7,5), the smallest (tests).
const std::vector<register_kernel_entry>& table() {
  static const std::vector<register_kernel_entry> entries{
      entry_of<regs::code_spec<7, 2, 0171, 0133>>(),
      entry_of<regs::code_spec<7, 3, 0133, 0171, 0165>>(),
      entry_of<regs::lane_spec<2, 0561, 0753>>(),
      entry_of<regs::lane_spec<3, 0557, 0663, 0711>>(),
      entry_of<regs::code_spec<5, 2, 023, 035>>(),
      entry_of<regs::code_spec<3, 2, 07, 05>>(),
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
