// GPUFEC_HD marks code compiled for both the host and the device, so that the CPU reference and
// the CUDA kernels share one definition (the RNG above all: both backends must draw the same
// numbers).
#pragma once

#if defined(__CUDACC__)
#define GPUFEC_HD __host__ __device__
#define GPUFEC_HD_INLINE __host__ __device__ __forceinline__
#else
#define GPUFEC_HD
#define GPUFEC_HD_INLINE inline
#endif
