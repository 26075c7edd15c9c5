// `gpufec simulate polar --backend cuda` through the real binary: with the same seed the CUDA BP
// plan (fp32, min-sum: the CPU's decisions) sees the same frames and gives the same counts as the
// CPU, at points with many errors and with few; fp16 runs from the command line; --max-time ends a
// point inside a long launch. Skips without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_util.hpp"
#include "gpufec/common/device.hpp"

namespace gpufec::polar {
namespace {

class PolarCudaCli : public gpufec::testing::cli_test {
 protected:
  nlohmann::json simulate(const std::string& args, const std::string& name) {
    const auto r = gpufec::testing::run_cli(args + " --json " + path(name));
    EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
    if (r.status != 0) return {};
    std::ifstream in(path(name));
    return nlohmann::json::parse(in);
  }
};

TEST_F(PolarCudaCli, SimulateCudaGivesTheCpuCounts) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const char* rule : {"minsum", "scaled"}) {
    SCOPED_TRACE(rule);
    const std::string common = std::string("simulate polar --N 1024 --K 512 --decoder bp ") +
                               "--bp-update " + rule +
                               " --iters 10 --early-stop --ebn0 2,3 --max-frames 3000 --seed 5";
    const auto gpu = simulate(common + " --backend cuda", "gpu.json");
    const auto cpu = simulate(common + " --backend cpu", "cpu.json");
    ASSERT_FALSE(gpu.is_null());
    ASSERT_FALSE(cpu.is_null());
    ASSERT_EQ(gpu["points"].size(), 2u);
    for (std::size_t k = 0; k < 2; ++k)
      for (const char* key : {"frames", "frame_errors", "bit_errors"})
        EXPECT_EQ(gpu["points"][k][key], cpu["points"][k][key]) << "point " << k << " " << key;
    EXPECT_GE(gpu["points"][0]["frame_errors"].get<std::uint64_t>(), 100u);  // --max-fe 100
  }
  const auto fp16 = simulate(
      "simulate polar --N 1024 --decoder bp --bp-update minsum --precision fp16 --ebn0 3 "
      "--max-frames 2000 --backend cuda",
      "fp16.json");
  ASSERT_FALSE(fp16.is_null());
  EXPECT_GT(fp16["points"][0]["frame_errors"].get<std::uint64_t>(), 0u);
}

// The whole chain on the GPU ends a point on --max-time inside a long launch (10^4 iterations):
// the point is complete, its reason max-time, and the run exits 0 within about a second more.
TEST_F(PolarCudaCli, MaxTimeEndsAPointInsideALongLaunch) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto start = std::chrono::steady_clock::now();
  const auto j = simulate(
      "simulate polar --N 4096 --K 2048 --construct ga:2 --decoder bp --bp-update minsum "
      "--iters 10000 --ebn0 1 --max-fe 0 --max-time 1 --backend cuda",
      "long.json");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["points"][0]["stop_reason"], "max-time") << j["points"][0].dump();
  EXPECT_LT(seconds, 4.0);
}

}  // namespace
}  // namespace gpufec::polar
