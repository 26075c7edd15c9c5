// Owning CUDA streams and events. Destructors never throw (they run during unwinding); creation
// failures throw through GPUFEC_CUDA_CHECK.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "common/cuda/check.cuh"

namespace gpufec::cuda {

// A non-blocking stream (it does not wait for the legacy default stream), at `priority` (see
// device_limits: greatest_priority is the most urgent; 0 is the default).
class stream {
 public:
  stream() = default;
  explicit stream(int priority) {
    GPUFEC_CUDA_CHECK(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, priority));
  }
  ~stream() {
    if (s_) (void)cudaStreamDestroy(s_);
  }
  stream(stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  stream& operator=(stream&& o) noexcept {
    if (this != &o) {
      if (s_) (void)cudaStreamDestroy(s_);
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  void synchronize() const { GPUFEC_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// An event; `timing` events can measure elapsed time, the others are cheaper dependencies.
class event {
 public:
  event() = default;
  explicit event(bool timing) {
    GPUFEC_CUDA_CHECK(
        cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~event() {
    if (e_) (void)cudaEventDestroy(e_);
  }
  event(event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  event& operator=(event&& o) noexcept {
    if (this != &o) {
      if (e_) (void)cudaEventDestroy(e_);
      e_ = std::exchange(o.e_, nullptr);
    }
    return *this;
  }
  cudaEvent_t get() const { return e_; }
  operator cudaEvent_t() const { return e_; }

  void record(cudaStream_t s) const { GPUFEC_CUDA_CHECK(cudaEventRecord(e_, s)); }
  // Inside a stream capture, `external` makes it an event-record node (the graph records it when
  // it runs, for timings), instead of a dependency within the graph.
  void record(cudaStream_t s, bool external) const {
    GPUFEC_CUDA_CHECK(cudaEventRecordWithFlags(
        e_, s, external ? cudaEventRecordExternal : cudaEventRecordDefault));
  }
  // `s` waits for the work this event last recorded.
  void wait_on(cudaStream_t s) const { GPUFEC_CUDA_CHECK(cudaStreamWaitEvent(s, e_, 0)); }
  bool done() const {
    const cudaError_t r = cudaEventQuery(e_);
    if (r == cudaErrorNotReady) return false;
    GPUFEC_CUDA_CHECK(r);
    return true;
  }
  void synchronize() const { GPUFEC_CUDA_CHECK(cudaEventSynchronize(e_)); }

 private:
  cudaEvent_t e_ = nullptr;
};

// Seconds between two recorded timing events.
inline double seconds_between(const event& from, const event& to) {
  float ms = 0;
  GPUFEC_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms * 1e-3;
}

}  // namespace gpufec::cuda
