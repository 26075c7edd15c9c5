// A batch's frames as OpenMP tasks: groups of consecutive frames spread over the threads, with the
// errors of a parallel loop turned into one exception that names the lowest frame at fault.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <string>

#include "gpufec/common/error.hpp"
#include "gpufec/common/stop_token.hpp"

namespace gpufec::conv::detail {

// An error in frame `frame` of a batch, for a task that decodes several frames.
struct frame_error : invalid_argument {
  frame_error(std::size_t f, const std::string& message) : invalid_argument(message), frame(f) {}
  std::size_t frame;
};

// Runs decode(first, count, thread) over groups of `group` consecutive frames (the last may be
// shorter) on `threads` threads. Exceptions cannot leave an OpenMP loop, so the error of the
// lowest frame is kept and rethrown after it, naming the frame; a stop (gpufec::stopped) ends the
// groups not yet begun and is rethrown as it is.
template <class Fn>
void for_each_group(std::size_t frames, std::size_t group, int threads, Fn&& decode) {
  std::size_t failed_frame = frames;
  std::string message;
  std::atomic<bool> stopped_any{false};
  const auto groups = static_cast<std::ptrdiff_t>((frames + group - 1) / group);
// A single group runs on the calling thread: no team to start or wait for.
#pragma omp parallel for num_threads(threads) schedule(static) if (groups > 1)
  for (std::ptrdiff_t g = 0; g < groups; ++g) {
    const std::size_t first = static_cast<std::size_t>(g) * group;
    if (stopped_any.load(std::memory_order_relaxed)) continue;
    try {
      decode(first, std::min(group, frames - first), omp_get_thread_num());
    } catch (const stopped&) {
      stopped_any = true;
    } catch (const std::exception& e) {
      const auto* fe = dynamic_cast<const frame_error*>(&e);
      const std::size_t f = fe ? fe->frame : first;
#pragma omp critical(gpufec_conv_frame_error)
      if (f < failed_frame) {
        failed_frame = f;
        message = e.what();
      }
    }
  }
  if (stopped_any) throw stopped();
  if (failed_frame < frames) throw invalid_argument(cat("frame ", failed_frame, ": ", message));
}

// decode_frame(f, thread) for every frame, a frame per task.
template <class Fn>
void for_each_frame(std::size_t frames, int threads, Fn&& decode_frame) {
  for_each_group(frames, 1, threads,
                 [&](std::size_t f, std::size_t, int thread) { decode_frame(f, thread); });
}

}  // namespace gpufec::conv::detail
