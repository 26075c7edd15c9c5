// The caller's CUDA stream as the public API takes it, without CUDA's headers: the very type of
// cudaStream_t (a pointer to the runtime's opaque stream struct), so a CUDA program passes its
// stream as it is and a CPU-only program never needs CUDA installed. Null is the default stream.
#pragma once

struct CUstream_st;

namespace gpufec {
using cuda_stream = CUstream_st*;
}  // namespace gpufec
