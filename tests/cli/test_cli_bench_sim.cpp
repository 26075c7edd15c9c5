// `gpufec bench sim`: a row per workload and backend with the decoder-only and whole-chain rates
// and their ratio, in the table and the JSON (with its provenance); the workloads that do not run
// on a backend say why; bad values are usage errors naming the option; CUDA asked for without a
// device is a run-time error.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "gpufec/common/device.hpp"

namespace gpufec {
namespace {

using testing::cli_result;
using testing::run_cli;

class CliBenchSim : public testing::cli_test {};

TEST_F(CliBenchSim, RowsHoldBothRatesAndTheirRatio) {
  const cli_result r = run_cli(
      "bench sim --backend cpu --workloads uncoded,polar-sc,polar-bp --seconds 0.1 --repeats 2 "
      "--json " +
      path("sim.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* name : {"uncoded", "polar-sc", "polar-bp"})
    EXPECT_NE(r.output.find(name), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("conv-int8"), std::string::npos) << "only the workloads asked for";
  const auto j = nlohmann::json::parse(testing::read_all(path("sim.json")));
  EXPECT_EQ(j["benchmark"], "sim");
  EXPECT_TRUE(j.contains("provenance"));
  ASSERT_EQ(j["rows"].size(), 3u);
  for (const auto& row : j["rows"]) {
    SCOPED_TRACE(row.dump());
    EXPECT_EQ(row["backend"], "cpu");
    EXPECT_GT(row["frames"].get<double>(), 0);
    const double decoder = row["decoder_mbps"], chain = row["chain_mbps"];
    EXPECT_GT(chain, 0);
    // The decoder's seconds are part of the chain's: its rate cannot be the lower one.
    EXPECT_GE(decoder, chain * 0.999);
    EXPECT_NEAR(row["chain_over_decoder"].get<double>(), chain / decoder, 1e-9);
  }
  // Uncoded at 4 dB: BER 1.25e-2, so practically every 1024-bit frame has an error.
  EXPECT_EQ(j["rows"][0]["frame_errors"], j["rows"][0]["frames"]);
}

TEST_F(CliBenchSim, SaysWhatDoesNotRunOnABackend) {
  if (cuda_device_count() == 0) {
    const cli_result r = run_cli("bench sim --backend cuda --workloads uncoded --seconds 0.1");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("gpufec: error:"), std::string::npos) << r.output;
    return;
  }
  const cli_result r =
      run_cli("bench sim --backend cuda --workloads polar-sc --seconds 0.1 --repeats 1 --json " +
              path("s.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(testing::read_all(path("s.json")));
  EXPECT_EQ(j["rows"][0]["skipped"], "SC runs on the CPU only");
}

TEST_F(CliBenchSim, TheFp32BpRowSaysTheCpuRunsItAsPolarBp) {
  const cli_result r = run_cli(
      "bench sim --backend cpu --workloads polar-bp-fp32 --seconds 0.1 --repeats 1 --json " +
      path("f.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(testing::read_all(path("f.json")));
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["skipped"], "the CPU's BP is fp32: polar-bp");
}

TEST_F(CliBenchSim, BadValuesAreUsageErrors) {
  for (const auto& [args, named] :
       {std::pair{"--workloads nosuch", "--workloads"}, std::pair{"--seconds 0", "--seconds"},
        std::pair{"--repeats 0", "--repeats"}, std::pair{"--backend gpu", "--backend"}}) {
    const cli_result r = run_cli(std::string("bench sim ") + args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output;
  }
  const cli_result r = run_cli("bench sim --workloads uncoded --json /nonexistent/s.json");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/s.json"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("uncoded "), std::string::npos) << "no row was run: " << r.output;
}

}  // namespace
}  // namespace gpufec
