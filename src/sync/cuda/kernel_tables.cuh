// The kernel instantiations the engine picks at run time (one per row width, channel, real type
// or source), in a translation unit of their own: they are most of the sync decoder's compile
// time, and the engine's files then build in parallel with them.
#pragma once

#include <cstdint>

#include "sync/cuda/kernels/device_geometry.cuh"

namespace gpufec::sync::cuda_detail {

enum app_source : int;

using gamma_fn = void (*)(device_geometry, device_frames, const std::uint32_t*, int, int, int,
                          void*, double*);
using gamma_warp_fn = void (*)(device_geometry, device_frames, const std::uint32_t*, float*,
                               double*, int);
using gamma_beta_fn = void (*)(device_geometry, device_frames, const std::uint32_t*, double*,
                               double*, double*, const double*, unsigned long long*, int);
using gamma_beta_frame_fn = void (*)(device_geometry, device_frames, const std::uint32_t*, double*,
                                     double*, double*, const double*, int);
using fb_ring_fn = void (*)(device_geometry, device_frames, const double*, double*, double*,
                            const double*, int);
using fb_step_fn = void (*)(device_geometry, device_frames, const double*, double*, double*,
                            const double*, int);
using app_fn = void (*)(device_geometry, device_frames, const std::uint32_t*, int, int, int,
                        const void*, const double*, const double*, double*, std::uint32_t*, double*,
                        int*, unsigned*);

// gamma_kernel<double> or <float>, the general gamma kernel. Every kernel the plan sizes and the
// engine launches is taken from these tables, never named in two translation units: each unit
// holds its own copy of a template kernel, and the plan's cudaFuncSetAttribute (shared memory
// above 48 KB) applies to the copy it names only, so a launch through another unit's copy fails.
gamma_fn gamma_general_for(bool f64);
// gamma_warp_kernel, gamma_beta_kernel and gamma_beta_frame_kernel for a row of W = M_n entries, 2
// <= W <= 32 (else null), on a channel with (nosub false) or without substitutions.
gamma_warp_fn gamma_warp_for(int W, bool nosub);
gamma_beta_fn gamma_beta_for(int W, bool nosub);
gamma_beta_frame_fn gamma_beta_frame_for(int W, bool nosub);
// fb_ring_kernel<K>, K in {4, 8, ..., 32} (else null).
fb_ring_fn fb_ring_for(int K);
// fb_step_kernel<K>: K of fb_ring_kernel, or 0 for fb_kernel's order.
fb_step_fn fb_step_for(int K);
// The L kernel for the lattice's real type, where V comes from and the symbols per thread (4:
// float R read with 16-byte loads).
app_fn app_for(bool f64, app_source source, int vw);

}  // namespace gpufec::sync::cuda_detail
