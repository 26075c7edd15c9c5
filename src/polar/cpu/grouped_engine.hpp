// The frame loop every polar CPU engine shares (engine.hpp's polar_engine): groups of frames over
// OpenMP threads with per-thread scratch and the request's stop, and the fast paths' lane layout.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "polar/cpu/engine.hpp"

namespace gpufec::polar::detail {

// What every CPU engine shares: the request's frames in groups of `group` (a reference: one
// frame; a fast path: one frame per vector lane) over the engine's threads, each thread with a
// Scratch of its own (made by the engine into scratch_), the request's stop looked at before every
// group. Groups are handed out one at a time: with early stopping their cost varies. The frames'
// results do not depend on which thread decodes them.
template <class Scratch>
class grouped_engine : public polar_engine {
 public:
  std::size_t scratch_bytes() const final { return scratch_.size() * bytes_per_thread_; }

  void decode(const decode_request& r) final {
    const std::size_t G = group_;
    const auto groups = static_cast<std::ptrdiff_t>((r.frames + G - 1) / G);
    std::atomic<bool> stop{false};  // exceptions cannot leave the OpenMP loop
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (std::ptrdiff_t g = 0; g < groups; ++g) {
      if (stop.load(std::memory_order_relaxed)) continue;
      const std::size_t first = static_cast<std::size_t>(g) * G;
      if (r.stop_requested() ||
          !decode_group(r, first, std::min(G, r.frames - first),
                        scratch_[static_cast<std::size_t>(omp_get_thread_num())]))
        stop = true;
    }
    if (stop) throw stopped();
  }

 protected:
  grouped_engine(const polar_code& code, const decoder_options& options, int threads,
                 std::size_t group, std::size_t bytes_per_thread)
      : code_(code),
        options_(options),
        threads_(threads),
        group_(group),
        bytes_per_thread_(bytes_per_thread) {}

  // Frames [first, first + count) with one thread's scratch. Returns false when the request's
  // stop ended it (the group's outputs then not all written).
  virtual bool decode_group(const decode_request& r, std::size_t first, std::size_t count,
                            Scratch& scratch) const = 0;

  polar_code code_;
  decoder_options options_;
  int threads_;
  std::size_t group_, bytes_per_thread_;
  std::vector<Scratch> scratch_;  // one per thread
};

// Frames first .. first + W - 1 of a request interleaved for the fast paths: out[j W + l] =
// convert(frame first + l's LLR j). Lanes past `active` repeat the last frame (their results are
// not written).
template <class Convert>
void interleave_frames(const decode_request& r, std::size_t first, std::size_t active,
                       std::size_t W, std::size_t N, float* out, Convert convert) {
  for (std::size_t l = 0; l < W; ++l) {
    const float* llr = r.llr + (first + std::min(l, active - 1)) * N;
    for (std::size_t j = 0; j < N; ++j) out[j * W + l] = convert(llr[j]);
  }
}

}  // namespace gpufec::polar::detail
