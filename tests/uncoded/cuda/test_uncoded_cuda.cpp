// The CUDA uncoded chain against the CPU chain: same seed, same frames, same outcomes.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "gpufec/common/device.hpp"
#include "gpufec/sim/simulator.hpp"
#include "gpufec/uncoded/uncoded.hpp"

namespace gpufec::uncoded {
namespace {

void skip_without_gpu() {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
}

TEST(UncodedCuda, OutcomesEqualTheCpuChainOnRandomFrames) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const std::uint64_t k : {1ULL, 2ULL, 3ULL, 33ULL, 34ULL, 35ULL, 1000ULL, 4096ULL}) {
    for (const double ebn0 : {-2.0, 3.0, 7.0}) {
      const params p{k};
      const std::uint64_t seed = 0x5eed0000ULL + k;
      auto cpu = make_cpu_chain(p, ebn0, seed);
      auto gpu = make_cuda_chain(p, ebn0, seed);
      for (const std::uint64_t first : {0ULL, 12345ULL, (1ULL << 33) + 7}) {
        std::vector<sim::frame_outcome> a(257), b(257);
        cpu->run(first, a);
        gpu->run(first, b);
        for (std::size_t f = 0; f < a.size(); ++f) {
          ASSERT_EQ(a[f].bit_errors, b[f].bit_errors)
              << "K " << k << ", Eb/N0 " << ebn0 << ", frame " << first + f;
          ASSERT_EQ(a[f].symbol_errors, b[f].symbol_errors);
          ASSERT_EQ(a[f].undecodable, b[f].undecodable);
        }
      }
    }
  }
}

TEST(UncodedCuda, SweepEqualsTheCpuSweep) {
  skip_without_gpu();
  if (IsSkipped()) return;
  sim::options opt;
  opt.seed = 3;
  opt.stop.max_fe = 100;
  const std::vector<double> points = {0.0, 4.0, 8.0};
  const auto cpu = sim::run_sweep(family({512}, backend::cpu), points, opt).points;
  const auto gpu = sim::run_sweep(family({512}, backend::cuda), points, opt).points;
  ASSERT_EQ(cpu.size(), gpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_EQ(cpu[i].frames, gpu[i].frames) << "point " << i;
    EXPECT_EQ(cpu[i].frame_errors, gpu[i].frame_errors);
    EXPECT_EQ(cpu[i].bit_errors, gpu[i].bit_errors);
    EXPECT_GT(gpu[i].decoder_mbps, 0.0);
  }
}

TEST(UncodedCuda, ChainIsReusableAcrossBatchSizes) {
  skip_without_gpu();
  if (IsSkipped()) return;
  auto gpu = make_cuda_chain({64}, 2.0, 1);
  std::vector<sim::frame_outcome> big(5000), small(3);
  gpu->run(0, big);
  gpu->run(0, small);
  for (std::size_t f = 0; f < small.size(); ++f) EXPECT_EQ(small[f].bit_errors, big[f].bit_errors);
}

// The chain queues its next step while the host reads one (frames are functions of their index):
// calls that continue where the last one ended take the step queued ahead, whole or in part,
// calls elsewhere drop it, and a call longer than a step runs several. Every pattern decides the
// CPU chain's frames.
TEST(UncodedCuda, StepsQueuedAheadAreTheFramesAskedFor) {
  skip_without_gpu();
  if (IsSkipped()) return;
  const params p{1u << 16};  // steps of 2^28 / 2^16 = 4096 frames
  auto cpu = make_cpu_chain(p, 0.0, 11);
  auto gpu = make_cuda_chain(p, 0.0, 11);
  ASSERT_EQ(gpu->preferred_batch(), 4096u);
  const std::pair<std::uint64_t, std::size_t> calls[] = {
      {0, 4096},     {4096, 4096}, {8192, 1000}, {9192, 4096}, {13288, 9000},
      {22288, 4096}, {100, 3},     {103, 4096},  {4199, 17},   {4216, 4096}};
  for (const auto& [first, n] : calls) {
    std::vector<sim::frame_outcome> a(n), b(n);
    cpu->run(first, a);
    gpu->run(first, b);
    ASSERT_EQ(b.size(), n);
    for (std::size_t f = 0; f < n; ++f)
      ASSERT_EQ(a[f].bit_errors, b[f].bit_errors) << "frame " << first + f;
  }
  const auto details = gpu->details();
  const auto ahead = std::find_if(details.begin(), details.end(),
                                  [](const auto& kv) { return kv.first == "steps_queued_ahead"; });
  ASSERT_NE(ahead, details.end());
  EXPECT_GT(ahead->second.template get<std::uint64_t>(), 0u);
}

}  // namespace
}  // namespace gpufec::uncoded
