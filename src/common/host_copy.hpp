// Large host-to-host copies over OpenMP threads. One thread moves ~8-10 GB/s, so the APPs of a
// batch of 1000 frames (54 MB at q = 32, N = 210) would hold the caller ~6 ms after the GPU is
// done.
#pragma once

#include <cstddef>
#include <functional>

namespace gpufec {

// memcpy of `bytes` (non-overlapping), split over the OpenMP threads when large.
void host_copy(void* to, const void* from, std::size_t bytes);

// body(k) for k in [0, n), in blocks over the OpenMP threads when n is large (the page-locked
// staging of a batch's frames: one thread moves ~6 GB/s of ~2 KB frames).
void host_parallel_for(std::size_t n, const std::function<void(std::size_t)>& body);

}  // namespace gpufec
