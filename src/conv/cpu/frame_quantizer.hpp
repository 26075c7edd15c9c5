// One frame made int8 over several threads: the host side of a CUDA plan's float and hard
// batches, where one long frame made int8 by one thread held a stream of 2^29 bits to 0.40 Gb/s
// against the link's 27 (H200 host; 3.3 over 16 threads, bound by reading the floats twice).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpufec::conv::detail {

// Float LLRs -> int8 in q (llrs.size() values) over `threads` threads: by `fixed_scale`, or 0:
// the automatic scale. Bit for bit what one thread makes (auto_llr_scale, quantize_llrs): the
// scale's sum is taken by the same additions in the same order. Throws invalid_argument naming
// the first value that is not finite. Returns the scale it used.
double quantize_frame(std::span<const float> llrs, double fixed_scale, std::int8_t* q, int threads);

// Hard bits (non-zero = 1) -> int8 +-1 in q over `threads` threads.
void harden_frame(std::span<const std::uint8_t> hard, std::int8_t* q, int threads);

}  // namespace gpufec::conv::detail
