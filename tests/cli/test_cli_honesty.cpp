// The command line's outputs are reproducible and honest, and it does what a user expects to find:
// every result-changing parameter in every output as typed values, point seeds from point values,
// sweep ranges that end on their last value, BER only where defined, clear statuses for bad
// values, encode -> channel -> decode from the command line alone, per-family help.
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/sync/simulation.hpp"

namespace gpufec {
namespace {

using testing::cli_result;
using testing::read_all;
using testing::run_cli;

class CliHonesty : public testing::cli_test {
 protected:
  nlohmann::json simulate(const std::string& args) {
    const cli_result r = run_cli("simulate " + args + " --json " + path("r.json"));
    EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
    return nlohmann::json::parse(read_all(path("r.json")));
  }
};

TEST_F(CliHonesty, EveryResultChangingParameterIsInTheOutputsAsTypedValues) {
  const std::string args =
      "sync --backend cpu --q 8 --n 5 --N 12 --p 0.01 --max-frames 5 --codebook-seed 7";
  const cli_result table = run_cli("simulate " + args + " --csv " + path("r.csv"));
  EXPECT_NE(table.output.find("# codebook_seed = 7"), std::string::npos) << table.output;
  nlohmann::json j = simulate(args);
  EXPECT_EQ(j["parameters"]["q"], 8);
  EXPECT_EQ(j["parameters"]["codebook_seed"], 7);
  EXPECT_EQ(j["parameters"]["codebook"], "random");
  EXPECT_TRUE(j["parameters"]["Pr"].is_number());
  EXPECT_NE(read_all(path("r.csv")).find(",7,"), std::string::npos);
  // One backend column in the CSV.
  const std::string header = read_all(path("r.csv")).substr(0, read_all(path("r.csv")).find('\n'));
  std::size_t backends = 0;
  for (std::size_t at = header.find("backend"); at != std::string::npos;
       at = header.find("backend", at + 1))
    ++backends;
  EXPECT_EQ(backends, 1u) << header;
  // A codebook file: its path and a fingerprint of its content.
  ASSERT_EQ(run_cli("encode sync --q 8 --n 5 --N 12 --codebook-seed 7 -i /dev/null -o - "
                    "--write-code " +
                    path("code.txt"))
                .status,
            1);  // no messages: an error, but the flags parse
  sync::write_code_file(path("code.txt"), sync::tvb_code::random(8, 5, 12, 7).codebooks(), {}, 0);
  j = simulate("sync --backend cpu --codebook " + path("code.txt") + " --p 0.01 --max-frames 5");
  EXPECT_EQ(j["parameters"]["codebook"], path("code.txt"));
  EXPECT_EQ(j["parameters"]["codebook_fnv1a64"].get<std::string>().size(), 16u);
  EXPECT_EQ(j["parameters"]["N"], 12) << "N from the file's one codebook per position";
}

TEST_F(CliHonesty, APointsNumbersDependOnItsValueNotOnTheOtherPoints) {
  const auto a = simulate("uncoded --backend cpu --ebn0 0:8:2 --max-frames 3000 --seed 5");
  const auto b = simulate("uncoded --backend cpu --ebn0 4,6 --max-frames 3000 --seed 5");
  EXPECT_EQ(a["points"][2]["bit_errors"], b["points"][0]["bit_errors"]);
  EXPECT_EQ(a["points"][3]["bit_errors"], b["points"][1]["bit_errors"]);
  EXPECT_EQ(a["points"][2]["seed"], b["points"][0]["seed"]);
}

TEST_F(CliHonesty, SweepRangesEndOnTheirLastValue) {
  const auto j = simulate("uncoded --backend cpu --ebn0 0.3:0:-0.1 --max-frames 1");
  ASSERT_EQ(j["points"].size(), 4u);
  EXPECT_EQ(j["points"][3]["point"].get<double>(), 0.0);
  EXPECT_EQ(j["points"][1]["point"].get<double>(), 0.2);
}

TEST_F(CliHonesty, BerIsReportedOnlyWhereDefined) {
  // q = 3: a symbol carries no whole bits, so there is no BER, only SER.
  const auto j = simulate("sync --backend cpu --q 3 --n 2 --N 20 --p 0.01 --max-frames 20");
  EXPECT_TRUE(j["points"][0]["ber"].is_null()) << j["points"][0].dump();
  EXPECT_TRUE(j["points"][0]["bit_errors"].is_null());
  EXPECT_TRUE(j["points"][0]["ser"].is_number());
  EXPECT_EQ(j["points"][0]["bits_per_symbol"], 0);
  const auto k = simulate("sync --backend cpu --q 4 --n 3 --N 20 --p 0.01 --max-frames 20");
  EXPECT_TRUE(k["points"][0]["ber"].is_number());
}

TEST_F(CliHonesty, InvalidValuesExitWithStatus2NamingTheOptionReadably) {
  for (const auto& [args, named] : std::vector<std::pair<std::string, std::string>>{
           {"simulate sync --p 1.5 --max-frames 1", "--p 1.5"},
           {"simulate sync --p 0.6 --max-frames 1",
            "--p 0.6: BSID channel: Pi + Pd = 1.2 (Pi = 0.6,"},
           {"simulate sync --q 64 --n 5 --p 0.01 --max-frames 1", "--q 64"},
           {"simulate uncoded --ebn0 1 --max-time nan", "--max-time"},
           {"simulate uncoded --ebn0 1 --max-time -1", "must be >= 0"},
           {"simulate uncoded --ebn0 1 --seed 18446744073709551616", "larger than 2^64 - 1"},
           {"bench sync --seed 18446744073709551616", "--seed"},
           {"decode sync --q 8 --n 5 --N 12 -i x --decisions y", "--pi"},
           {"decode sync --q 8 --n 5 --N 12 --pi 0.01 --pd 0.01 -i x", "writes nothing"},
           {"simulate sync --p 0.01 --Pr 0", "--Pr"}}) {
    const cli_result r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output;
    EXPECT_LT(r.output.size(), 400u) << "one readable line: " << r.output;
    EXPECT_EQ(r.output.find("# gpufec"), std::string::npos) << "no table header: " << r.output;
  }
  const cli_result bare = run_cli("");
  EXPECT_EQ(bare.status, 2);
  EXPECT_NE(bare.output.find("Usage: gpufec"), std::string::npos) << bare.output;
}

TEST_F(CliHonesty, BenchHonoursItsBackendAndSeed) {
  const std::string small = "--q 8 --n 5 --N 12 --p 0.01 --batches 1 --cpu-frames 1 --repeats 1";
  if (cuda_device_count() == 0) {
    const cli_result r = run_cli("bench sync --backend cuda " + small);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_EQ(r.output.find("cpu (1 thread)"), std::string::npos) << "no CPU-only rows";
  }
  const cli_result r =
      run_cli("bench sync --backend cpu --seed 0 " + small + " --json " + path("b.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(read_all(path("b.json")))["config"]["seed"], 0);
}

TEST_F(CliHonesty, EncodeChannelAndDecodeFromTheCommandLineAlone) {
  std::ofstream(path("m.txt")) << "# two messages of N = 12 symbols in [0, 8)\n"
                                  "0 1 2 3 4 5 6 7 0 1 2 3\n7 7 7 7 0 0 0 0 1 2 3 4\n";
  cli_result r = run_cli("encode sync --q 8 --n 5 --N 12 --codebook-seed 9 -i " + path("m.txt") +
                         " -o " + path("x.txt") + " --write-code " + path("code.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_cli("channel bsid --pi 0.002 --pd 0.002 --seed 4 -i " + path("x.txt") + " -o " +
              path("y.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  // q, n and N come from the code file.
  r = run_cli("decode sync --backend cpu --codebook " + path("code.txt") +
              " --pi 0.002 --pd 0.002 -i " + path("y.txt") + " --decisions " + path("d.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(path("d.txt")), "0 1 2 3 4 5 6 7 0 1 2 3\n7 7 7 7 0 0 0 0 1 2 3 4\n");
  // A contradicting flag is a bad command line.
  r = run_cli("decode sync --codebook " + path("code.txt") + " --q 16 --pi 0.01 --pd 0.01 -i " +
              path("y.txt") + " --decisions " + path("e.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  // BSC and AWGN: noise-free sends give back what was sent, files end with a newline.
  std::ofstream(path("bits.txt")) << "0110\n1\n";
  r = run_cli("channel bsc --p 0 -i " + path("bits.txt") + " -o " + path("c.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(path("c.txt")), "0110\n1\n");
  r = run_cli("channel awgn --esn0 60 -i " + path("bits.txt") + " -o " + path("llr.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_cli("decode uncoded -i " + path("llr.txt") + " -o " + path("u.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(path("u.txt")), "0110\n1\n") << "a frame per line, as sent";
}

TEST_F(CliHonesty, TheSmallerPrHintOnlyWhenItWouldHelp) {
  std::ofstream(path("long.txt")) << std::string(90, '1') << "\n";  // tau = 60
  const std::string code =
      "--q 8 --n 5 --N 12 --backend cpu -i " + path("long.txt") + " --decisions " + path("d.txt");
  cli_result r = run_cli("decode sync --pi 0 --pd 0.02 " + code);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cannot insert"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("a Pr below"), std::string::npos) << r.output;
  r = run_cli("decode sync --pi 0.02 --pd 0.02 " + code);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("a Pr below"), std::string::npos) << r.output;
}

TEST_F(CliHonesty, EachFamilysHelpShowsItsOwnExamples) {
  for (const char* sub : {"simulate", "decode", "bench"}) {
    const cli_result r = run_cli(std::string(sub) + " sync --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.output.find("gpufec " + std::string(sub) + " sync"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("simulate uncoded"), std::string::npos) << r.output;
  }
}

TEST_F(CliHonesty, ProgressLinesForTheLogsOfBatchJobs) {
  const cli_result r = run_cli("simulate uncoded --ebn0 1 --max-frames 2000 --progress");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("frames/s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(point 1 of 1)"), std::string::npos) << r.output;
}

// An undecodable frame is scored by its all-zero decisions, as decoded files show it.
TEST(SyncScoring, UndecodableFramesAreScoredByTheirZeroDecisions) {
  const std::uint32_t zeros[4] = {0, 0, 0, 0}, message[4] = {0, 3, 1, 0};
  const sim::frame_outcome o = sync::detail::score_frame(zeros, message, 4, 2, false);
  EXPECT_TRUE(o.undecodable);
  EXPECT_EQ(o.symbol_errors, 2u);
  EXPECT_EQ(o.bit_errors, 3u);
}

}  // namespace
}  // namespace gpufec
