// What may end long work early: an interrupt (Ctrl-C sets a flag) or a deadline (a simulator's
// max-time). Chains check it between frames or chunks, and decoders between the indices of a long
// frame, so either takes effect within about a second whatever the frame size. A default token
// never stops. Stopped work throws gpufec::stopped (or, for a chain, returns what it finished).
#pragma once

#include <atomic>
#include <chrono>

#include "gpufec/common/error.hpp"

namespace gpufec {

class stop_token {
 public:
  using clock = std::chrono::steady_clock;
  stop_token() = default;
  stop_token(const std::atomic<bool>* flag, clock::time_point deadline)
      : flag_(flag), deadline_(deadline) {}

  bool possible() const { return flag_ || deadline_ != clock::time_point::max(); }
  bool requested() const {
    if (flag_ && flag_->load(std::memory_order_relaxed)) return true;
    return deadline_ != clock::time_point::max() && clock::now() >= deadline_;
  }

 private:
  const std::atomic<bool>* flag_ = nullptr;
  clock::time_point deadline_ = clock::time_point::max();
};

// Work ended by a stop_token before it finished.
class stopped : public error {
 public:
  stopped() : error("stopped before the end (interrupted or out of time)") {}
};

}  // namespace gpufec
