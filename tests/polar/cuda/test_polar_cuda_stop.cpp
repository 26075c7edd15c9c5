// A stop ends a CUDA BP call within a fraction of a second however long its launches would run:
// a launch takes no more codewords once the stop is seen, and beyond the register kernel's
// lengths (N > 2048) leaves the codewords it holds at their next iteration. The plan decodes as
// before afterwards. Every test skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "gpufec/common/device.hpp"
#include "gpufec/common/stop_token.hpp"
#include "polar/polar_test_util.hpp"

namespace gpufec::polar {
namespace {

using clock_type = std::chrono::steady_clock;
using test::make_batch;

decoder_options bp_without_early_stop(int iterations) {
  decoder_options o;
  o.decoder = decoder_kind::bp;
  o.update = update_rule::min_sum;
  o.iterations = iterations;
  o.early_stop = false;
  return o;
}

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

// Seconds of a decode of `llr` (host views) with `o`; `stop_after` > 0: a stop that many seconds
// in, and the call must throw stopped.
double decode_seconds(decoder_plan& plan, const polar_code& code, const std::vector<float>& llr,
                      double stop_after) {
  const std::size_t frames = llr.size() / code.N();
  std::vector<std::uint8_t> bits(frames * code.K());
  const auto in = batch_view<float>::uniform(llr.data(), frames, code.N());
  const auto out = batch_span<std::uint8_t>::uniform(bits.data(), frames, code.K());
  const auto start = clock_type::now();
  if (stop_after <= 0) {
    plan.decode(in, out);
    return seconds_since(start);
  }
  std::atomic<bool> flag{false};
  std::thread signal([&] {
    std::this_thread::sleep_for(std::chrono::duration<double>(stop_after));
    flag = true;
  });
  const stop_token stop(&flag, stop_token::clock::time_point::max());
  EXPECT_THROW(plan.decode(in, out, {}, stop), stopped);
  const double seconds = seconds_since(start);
  signal.join();
  return seconds;
}

// N = 2^20 at 10^4 iterations: one codeword's launch takes seconds (measured here from 40
// iterations), and a stop 0.1 s in ends the call within half a second more.
TEST(PolarCudaStop, ALongCodesLaunchEndsWithinASecond) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const polar_code code(1u << 20, 1u << 19, construction_spec::parse("ga:2"));
  const auto batch = make_batch(code, 2, 2.0, 5);
  decoder_plan probe(code, bp_without_early_stop(40), backend::cuda, 2);
  decode_seconds(probe, code, batch.llr, 0);  // warm-up
  const double per_iteration = decode_seconds(probe, code, batch.llr, 0) / 40;
  const double unstopped = per_iteration * 10000;
  ASSERT_GT(unstopped, 1.2) << "the test needs a launch longer than twice its bound";
  decoder_plan plan(code, bp_without_early_stop(10000), backend::cuda, 2);
  const double stopped_after = decode_seconds(plan, code, batch.llr, 0.1);
  EXPECT_LT(stopped_after, 0.6) << "unstopped the call would take " << unstopped << " s";
  std::printf("[ info ] N = 2^20, 10^4 iterations: %.1f s unstopped, stopped after %.3f s\n",
              unstopped, stopped_after);
}

// The register kernel (N = 1024) on a host batch of many chunks and on a device batch in one
// launch (minutes of work unstopped): a stop ends both within a second, and the plan's next call
// decodes as the CPU's.
TEST(PolarCudaStop, ManyCodewordsInOneLaunchEndWithinASecond) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const polar_code code(1024, 512);
  const std::size_t frames = 200000;
  const auto batch = make_batch(code, frames, 2.0, 6);
  decoder_plan plan(code, bp_without_early_stop(10000), backend::cuda, frames);
  EXPECT_LT(decode_seconds(plan, code, batch.llr, 0.2), 1.2) << plan.describe();

  float* llr = nullptr;
  std::uint8_t* bits = nullptr;
  ASSERT_EQ(cudaMalloc(&llr, batch.llr.size() * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&bits, frames * code.K()), cudaSuccess);
  ASSERT_EQ(
      cudaMemcpy(llr, batch.llr.data(), batch.llr.size() * sizeof(float), cudaMemcpyHostToDevice),
      cudaSuccess);
  const auto in = batch_view<float>::uniform(llr, frames, code.N(), memory_space::device);
  const auto out = batch_span<std::uint8_t>::uniform(bits, frames, code.K(), memory_space::device);
  std::atomic<bool> flag{false};
  std::thread signal([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    flag = true;
  });
  const stop_token stop(&flag, stop_token::clock::time_point::max());
  const auto start = clock_type::now();
  EXPECT_THROW(plan.decode(in, out, {}, stop), stopped);
  EXPECT_LT(seconds_since(start), 1.2) << "a device batch of " << frames << " codewords";
  signal.join();
  cudaFree(llr);
  cudaFree(bits);

  // The next call decodes as the CPU's (8 frames: the CPU runs all 10^4 iterations too).
  const std::size_t few = 8;
  const std::vector<float> head(batch.llr.begin(), batch.llr.begin() + few * code.N());
  std::vector<std::uint8_t> gpu(few * code.K()), cpu(few * code.K());
  const auto head_in = batch_view<float>::uniform(head.data(), few, code.N());
  plan.decode(head_in, batch_span<std::uint8_t>::uniform(gpu.data(), few, code.K()));
  decoder_plan(code, bp_without_early_stop(10000), backend::cpu, few)
      .decode(head_in, batch_span<std::uint8_t>::uniform(cpu.data(), few, code.K()));
  EXPECT_EQ(gpu, cpu) << "the stopped plan decodes as before";
}

}  // namespace
}  // namespace gpufec::polar
