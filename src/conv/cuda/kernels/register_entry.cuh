// A compiled code's entry in the register kernel's table (register_kernel.cu): its two kernel
// instances (punctured or not) and what the engine needs to know of them. Each code is its own
// translation unit (register_code_*.cu), so that the instances compile in parallel: ptxas takes
// about 30 s for each K = 9 instance.
#pragma once

#include "conv/cuda/kernels/register_kernel.cuh"
#include "conv/cuda/register_table.hpp"

namespace gpufec::conv::detail {

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

}  // namespace gpufec::conv::detail
