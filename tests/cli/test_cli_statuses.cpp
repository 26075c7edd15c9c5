// The same exit status for the same kind of failure in every family (a missing device is 1, a bad
// value is 2), parse errors in words that name the option, and the small promises: what runs is
// what is reported, an option without its subject is refused, standard input is read once, a
// benchmark says which rows it could not run, and decode is silent on request.
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_util.hpp"
#include "gpufec/common/device.hpp"

namespace gpufec {
namespace {

using testing::cli_result;
using testing::read_all;
using testing::run_cli;

class CliStatuses : public testing::cli_test {};

TEST_F(CliStatuses, AMissingDeviceIsOneAndABadValueTwoInEveryFamily) {
  std::ofstream(path("f.txt")) << "0101\n";
  if (cuda_device_count() == 0)
    for (const std::string& command : std::vector<std::string>{
             "simulate polar --N 64 --K 32 --decoder bp --ebn0 1", "simulate sync --p 0.01",
             "simulate conv --ebn0 1", "simulate uncoded --ebn0 1", "bench polar",
             "decode polar --N 8 --K 4 --decoder bp -i " + path("f.txt") + " -o " + path("o"),
             "decode conv --frame-bits 2 -i " + path("f.txt") + " -o " + path("o")}) {
      const cli_result r = run_cli(command + " --backend cuda");
      EXPECT_EQ(r.status, 1) << command << "\n" << r.output;
      // "needs a CUDA device" (none here), or "needs CUDA, but this gpufec was built without".
      EXPECT_NE(r.output.find("needs"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("CUDA"), std::string::npos) << r.output;
    }
  for (const std::string& command : std::vector<std::string>{
           "channel bsid --pi .6 --pd .6 -i " + path("f.txt") + " -o " + path("o"),
           "simulate sync --p 0.01 --pi .6 --pd .6", "simulate conv --K 2 --ebn0 1",
           "simulate polar --N 64 --K 100 --ebn0 1", "simulate uncoded --ebn0 1e9",
           "channel awgn --ebn0 300 -i " + path("f.txt") + " -o " + path("o")}) {
    const cli_result r = run_cli(command);
    EXPECT_EQ(r.status, 2) << command << "\n" << r.output;
  }
}

TEST_F(CliStatuses, ParseErrorsNameTheOptionInWords) {
  const std::string sweep = "simulate uncoded --ebn0 1 --max-frames 1";
  for (const auto& [args, expected] :
       {std::pair{" --backend cpu --backend cpu", "--backend was given 2 times; give it once"},
        std::pair{" --K abc", "--K: 'abc' is not a non-negative integer"},
        std::pair{" --bogus", "unknown option '--bogus'"},
        std::pair{" extra", "unexpected argument 'extra'"},
        std::pair{" --threads 1.5", "--threads: '1.5' is not a whole number"},
        std::pair{" --progress=maybe", "--progress: 'maybe' is not a value it takes"},
        std::pair{" --K 0", "--K: must lie in [1, 4294967296]"},
        std::pair{" --max-fe", "--max-fe needs a value"}}) {
    const cli_result r = run_cli(sweep + args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(r.output.find("required but received"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Could not convert"), std::string::npos) << r.output;
  }
  cli_result r = run_cli("simulate sync --p 0.01 --storage foo");
  EXPECT_NE(r.output.find("--storage: 'foo' is not one of auto, global, compact, local"),
            std::string::npos)
      << r.output;
  r = run_cli("simulate conv --ebn0 1 --frame-bits 0");
  EXPECT_NE(r.output.find("[1, 67108864]"), std::string::npos) << "integers as integers\n"
                                                               << r.output;
  r = run_cli("channel awgn --ebn0 1 --esn0 2 -i x -o y");
  EXPECT_NE(r.output.find("--ebn0 and --esn0 exclude each other"), std::string::npos) << r.output;
}

TEST_F(CliStatuses, WhatRunsIsReportedAndOptionsWithoutTheirSubjectAreRefused) {
  // --storage compact is a CUDA mode; the CPU runs it as local and says so.
  cli_result r = run_cli(
      "simulate sync --backend cpu --q 4 --n 3 --N 10 --p 0.01 --max-frames 2 --storage compact "
      "--json " +
      path("s.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(read_all(path("s.json")));
  EXPECT_EQ(j["parameters"]["storage"], "local");
  EXPECT_EQ(j["points"][0]["details"]["storage"], "local");
  // --app-format without --app, and two inputs on standard input.
  std::ofstream(path("y.txt")) << "0101010101\n";
  r = run_cli("decode sync --backend cpu --q 4 --n 3 --N 3 --pi 0.01 --pd 0.01 -i " +
              path("y.txt") + " --decisions " + path("d.txt") + " --app-format csv");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--app-format applies to --app"), std::string::npos) << r.output;
  r = run_cli("decode sync --backend cpu --codebook - --pi 0.01 --pd 0.01 -i - --decisions " +
              path("d.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("both read standard input"), std::string::npos) << r.output;
  r = run_cli("decode polar --N 8 --K 4 --construct - -i - -o " + path("o.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("both read standard input"), std::string::npos) << r.output;
  // A benchmark without its GPU rows says that --batches measured nothing.
  if (cuda_device_count() == 0) {
    r = run_cli("bench sync --q 4 --n 3 --N 10 --p 0.01 --batches 1,10 --cpu-frames 1 --repeats 1");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("no GPU rows were run"), std::string::npos) << r.output;
  }
}

// --quiet: a decode writes its output and nothing on stderr (errors still do).
TEST_F(CliStatuses, DecodeIsSilentOnRequest) {
  std::ofstream(path("llr.txt")) << "1 -2 3 -4 5 -6 7 -8\n";
  std::ofstream(path("y.txt")) << "010101010\n";
  for (const std::string& command : std::vector<std::string>{
           "decode uncoded -i " + path("llr.txt") + " -o " + path("o1"),
           "decode polar --N 8 --K 4 -i " + path("llr.txt") + " -o " + path("o2"),
           "decode conv --K 3 --polys 7,5 --frame-bits 2 --term zero -i " + path("llr.txt") +
               " -o " + path("o3"),
           "decode sync --q 4 --n 3 --N 3 --pi 0.01 --pd 0.01 -i " + path("y.txt") +
               " --decisions " + path("o4")}) {
    const cli_result loud = run_cli(command + " --backend cpu");
    ASSERT_EQ(loud.status, 0) << command << "\n" << loud.output;
    EXPECT_FALSE(loud.output.empty()) << command;
    const cli_result quiet = run_cli(command + " --backend cpu --quiet");
    ASSERT_EQ(quiet.status, 0) << command << "\n" << quiet.output;
    EXPECT_EQ(quiet.output, "") << command;
  }
  const cli_result failing = run_cli("decode uncoded -i /nonexistent -o x --quiet");
  EXPECT_EQ(failing.status, 1);
  EXPECT_NE(failing.output.find("/nonexistent"), std::string::npos) << failing.output;
}

}  // namespace
}  // namespace gpufec
