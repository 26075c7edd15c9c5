// The CLI binary end to end: exit statuses, messages, and the uncoded BER against theory.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_util.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/sim/stats.hpp"

namespace gpufec {
namespace {

using testing::cli_result;
using testing::run_cli;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("gpufec_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

void expect_usage_error(const std::string& args, const std::string& named) {
  const cli_result r = run_cli(args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
}

TEST(Cli, UsageErrorsExitWithStatus2NamingTheCulprit) {
  expect_usage_error("frobnicate", "frobnicate");
  expect_usage_error("simulate nosuchfamily --ebn0 1", "nosuchfamily");
  expect_usage_error("simulate uncoded --ebn0 1 --bogus", "--bogus");
  expect_usage_error("simulate uncoded --ebn0 x", "--ebn0");
  expect_usage_error("simulate uncoded --ebn0 0:8:0", "--ebn0");
  expect_usage_error("simulate uncoded --ebn0 1 --max-fe -1", "--max-fe");
  expect_usage_error("simulate uncoded --ebn0 1 --max-fe 0", "--max-fe");
  expect_usage_error("simulate uncoded --ebn0 1 --backend gpu", "--backend");
  expect_usage_error("simulate uncoded --ebn0 1 --K 0", "--K");
  expect_usage_error("simulate uncoded --ebn0 1 --max-time abc", "--max-time");
  expect_usage_error("simulate uncoded", "--ebn0");
  expect_usage_error("bench uncoded --frames 0", "--frames");
}

TEST(Cli, RuntimeErrorsExitWithStatus1) {
  const cli_result r = run_cli("decode uncoded --input /nonexistent/rx.txt --output /dev/null");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/rx.txt"), std::string::npos) << r.output;
  if (cuda_device_count() == 0) {
    const cli_result cuda = run_cli("simulate uncoded --ebn0 1 --backend cuda --max-frames 10");
    EXPECT_EQ(cuda.status, 1) << cuda.output;
    EXPECT_NE(cuda.output.find("gpufec: error:"), std::string::npos) << cuda.output;
  }
}

TEST(Cli, InfoAndHelpRun) {
  const cli_result info = run_cli("info");
  EXPECT_EQ(info.status, 0) << info.output;
  EXPECT_NE(info.output.find("CUDA device"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("OpenMP threads"), std::string::npos) << info.output;
  const cli_result help = run_cli("simulate uncoded --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("--max-fe"), std::string::npos);
  EXPECT_NE(help.output.find("Examples"), std::string::npos);
}

// BPSK over AWGN without a code: BER = Q(sqrt(2 Eb/N0)). With a fixed seed the run is
// deterministic, so this cannot flake; a wrong noise scale misses by many interval widths.
TEST(Cli, SimulateUncodedMatchesTheoryWithinItsInterval) {
  const std::string json_path = temp_path("ber.json"), csv_path = temp_path("ber.csv");
  const cli_result r = run_cli(
      "simulate uncoded --ebn0 0,3,6 --max-fe 300 --seed 1 --backend cpu"
      " --json " +
      json_path + " --csv " + csv_path);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(json_path);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["points"].size(), 3u);
  for (const auto& p : j["points"]) {
    const double ebn0 = p["point"].get<double>();
    const double theory = sim::gaussian_q(std::sqrt(2.0 * std::pow(10.0, ebn0 / 10.0)));
    EXPECT_LE(p["ber_ci95"][0].get<double>(), theory) << "Eb/N0 " << ebn0;
    EXPECT_GE(p["ber_ci95"][1].get<double>(), theory) << "Eb/N0 " << ebn0;
    EXPECT_EQ(p["frame_errors"].get<std::uint64_t>(), 300u);
    EXPECT_EQ(p["stop_reason"], "max-fe");
  }
  EXPECT_EQ(j["parameters"]["K"], 1024);
  std::ifstream csv(csv_path);
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, 4);  // header + 3 points
  std::filesystem::remove(json_path);
  std::filesystem::remove(csv_path);
}

TEST(Cli, SameSeedSameNumbersWhateverThreads) {
  const std::string a = temp_path("t1.json"), b = temp_path("t2.json");
  const std::string common = "simulate uncoded --ebn0 2:4:2 --max-fe 50 --seed 9 --backend cpu";
  ASSERT_EQ(run_cli(common + " --threads 1 --batch 5 --json " + a).status, 0);
  ASSERT_EQ(run_cli(common + " --threads 2 --json " + b).status, 0);
  std::ifstream ia(a), ib(b);
  const auto ja = nlohmann::json::parse(ia), jb = nlohmann::json::parse(ib);
  for (std::size_t p = 0; p < 2; ++p)
    for (const char* key : {"frames", "frame_errors", "bit_errors"})
      EXPECT_EQ(ja["points"][p][key], jb["points"][p][key]) << key;
  std::filesystem::remove(a);
  std::filesystem::remove(b);
}

TEST(Cli, DecodeUncodedWritesHardDecisions) {
  const std::string in = temp_path("rx.txt"), out = temp_path("bits.txt");
  std::ofstream(in) << "# received samples\n0.9 -1.2, 0.1\n-0.01 3e-1\n";
  cli_result r = run_cli("decode uncoded --input " + in + " --output " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  auto text = [&] {
    std::ifstream file(out);
    return std::string(std::istreambuf_iterator<char>(file), {});
  };
  EXPECT_EQ(text(), "010\n10\n") << "a frame per line of text input";
  ASSERT_EQ(run_cli("decode uncoded --input " + in + " --output " + out + " --per-line 2").status,
            0);
  EXPECT_EQ(text(), "01\n01\n0\n");

  const float samples[4] = {-1.0f, 2.0f, -0.5f, 3.0f};
  const std::string f32 = temp_path("rx.f32");
  std::ofstream(f32, std::ios::binary)
      .write(reinterpret_cast<const char*>(samples), sizeof samples);
  ASSERT_EQ(run_cli("decode uncoded -i " + f32 + " -o " + out + " --input-format f32").status, 0);
  EXPECT_EQ(text(), "1010\n") << "raw input: one frame";
  ASSERT_EQ(run_cli("decode uncoded -i " + f32 + " -o " + out + " --input-format f32 --K 2").status,
            0);
  EXPECT_EQ(text(), "10\n10\n") << "--K: frames of K";
  r = run_cli("decode uncoded -i " + f32 + " -o " + out + " --input-format f32 --K 3");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("not whole frames of K = 3"), std::string::npos) << r.output;
  // A hard decision runs on the CPU: --backend cuda asks for what it does not do.
  r = run_cli("decode uncoded -i " + f32 + " -o " + out + " --input-format f32 --backend cuda");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("runs on the CPU"), std::string::npos) << r.output;

  std::filesystem::remove(f32);
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}

TEST(Cli, DecodeRejectsMalformedFiles) {
  const std::string empty = temp_path("empty.txt"), nan = temp_path("nan.txt"),
                    truncated = temp_path("trunc.f32"), garbage = temp_path("garbage.txt");
  std::ofstream{empty};
  std::ofstream(nan) << "1.0 nan -1.0\n";
  std::ofstream(truncated, std::ios::binary).write("\x00\x00\x80\x3f\x00", 5);
  std::ofstream(garbage) << "1.0 2.0x\n";
  for (const auto& [file, what] :
       {std::pair{empty, "empty"}, std::pair{nan, "not finite"}, std::pair{truncated, "truncated"},
        std::pair{garbage, "not a number"}}) {
    const std::string format = file == truncated ? " --input-format f32" : "";
    const cli_result r = run_cli("decode uncoded -i " + file + " -o /dev/null" + format);
    EXPECT_EQ(r.status, 1) << file << "\n" << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
    std::filesystem::remove(file);
  }
}

}  // namespace
}  // namespace gpufec
