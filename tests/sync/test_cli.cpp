// `gpufec decode sync` and `simulate sync` end to end through the real binary.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_util.hpp"
#include "gpufec/common/bit_file.hpp"
#include "gpufec/sync/decoder.hpp"
#include "sync/test_util.hpp"

namespace gpufec::sync {
namespace {

using gpufec::testing::read_all;
using gpufec::testing::run_cli;

class SyncCli : public gpufec::testing::cli_test {};

const char* const code_args =
    "--q 8 --n 5 --N 12 --codebook random --codebook-seed 3 --pi 0.02 --pd 0.02 --ps 0.01";

TEST_F(SyncCli, DecodeMatchesLibraryInEveryFormat) {
  const tvb_code code = tvb_code::random(8, 5, 12, 3);
  const bsid_params ch{0.02, 0.02, 0.01};
  const auto data = testing::make_frames(code, ch, 17, 5);
  decoder_plan plan(code, ch, {}, backend::cpu, 5);
  decode_output expect;
  plan.decode(data.received.view(), expect);

  for (const bit_format format : {bit_format::text, bit_format::framed}) {
    const std::string rx = path(cat("rx.", name_of(format)));
    write_bit_frames(rx, data.received.view(), format);
    const auto r = run_cli(std::string("decode sync --backend cpu -i ") + rx + " " + code_args +
                           " --decisions " + path("dec.txt") + " --app " + path("app.csv") +
                           " --app-format csv --drift " + path("drift.csv"));
    ASSERT_EQ(r.status, 0) << r.output;
    std::ostringstream want;
    for (std::size_t f = 0; f < 5; ++f) {
      for (int i = 0; i < 12; ++i) want << (i ? " " : "") << expect.frame_decisions(f)[i];
      want << "\n";
    }
    EXPECT_EQ(read_all(path("dec.txt")), want.str()) << name_of(format);
    // The CSV holds every APP to 17 significant digits: the exact doubles.
    std::ifstream csv(path("app.csv"));
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "frame,i,D,app");
    std::size_t rows = 0;
    while (std::getline(csv, line)) {
      std::size_t f, i, D;
      double v;
      ASSERT_EQ(std::sscanf(line.c_str(), "%zu,%zu,%zu,%lf", &f, &i, &D, &v), 4) << line;
      EXPECT_EQ(v, expect.frame_app(f)[i * 8 + D]);
      ++rows;
    }
    EXPECT_EQ(rows, 5u * 12 * 8);
    EXPECT_NE(read_all(path("drift.csv")).find("frame,boundary,drift,probability\n0,0,0,1\n"),
              std::string::npos);
  }
  // Raw float64 APPs.
  const auto r = run_cli(std::string("decode sync --backend cpu -i ") + path("rx.text") + " " +
                         code_args + " --app " + path("app.f64") + " --app-format f64");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream raw(path("app.f64"), std::ios::binary);
  std::vector<double> app(5 * 12 * 8);
  raw.read(reinterpret_cast<char*>(app.data()), static_cast<std::streamsize>(app.size() * 8));
  EXPECT_EQ(app, expect.app);
}

TEST_F(SyncCli, BadFilesAndOptionsGiveClearErrors) {
  const std::string writes = " --decisions " + path("out.txt");  // decode must write something
  // Truncated packed file.
  {
    std::ofstream out(path("bad.bin"), std::ios::binary);
    out << "GPFSYNC1";
    const unsigned char len[8] = {100, 0, 0, 0, 0, 0, 0, 0};
    out.write(reinterpret_cast<const char*>(len), 8);
    out << "abc";
  }
  auto r = run_cli("decode sync -i " + path("bad.bin") + " " + code_args + writes);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("truncated"), std::string::npos) << r.output;
  // Garbage in a text file.
  std::ofstream(path("bad.txt")) << "0101\n01x1\n";
  r = run_cli("decode sync -i " + path("bad.txt") + " " + code_args + writes);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(":2: unexpected character 'x'"), std::string::npos) << r.output;
  // Empty file, missing file, channel not given, malformed codebook.
  std::ofstream(path("empty.txt")) << "# nothing\n";
  r = run_cli("decode sync -i " + path("empty.txt") + " " + code_args + writes);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("no bits in the file"), std::string::npos) << r.output;
  // Packed bits hold no frame boundaries, and received frames differ in length: refused.
  r = run_cli("decode sync -i " + path("bad.txt") + " --input-format packed " + code_args + writes);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("differ in length"), std::string::npos) << r.output;
  r = run_cli("decode sync -i " + path("missing.txt") + " " + code_args + writes);
  EXPECT_EQ(r.status, 1);
  // The channel is a required part of the command line (exit 2, naming the option).
  r = run_cli("decode sync -i " + path("bad.txt") + " --q 8 --n 5 --N 12" + writes);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--pi"), std::string::npos) << r.output;
  std::ofstream(path("book.txt")) << "q 4\nn 3\ncodebook\n000\n011\n";
  r = run_cli("decode sync -i " + path("bad.txt") +
              " --q 4 --n 3 --N 2 --pi 0.01 --pd 0.01 --codebook " + path("book.txt") + writes);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("book.txt"), std::string::npos) << r.output;
  // An undecodable frame (far too long) is reported and the exit status says so.
  std::ofstream(path("long.txt")) << std::string(200, '1') << "\n";
  r = run_cli("decode sync -i " + path("long.txt") + " " + code_args + " --decisions " +
              path("d.txt"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("received length 200"), std::string::npos) << r.output;
  EXPECT_NE(read_all(path("d.txt")).find("# undecodable"), std::string::npos);
  // Command-line errors exit 2 naming the option.
  r = run_cli("simulate sync --p 0.01 --storage fast");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--storage"), std::string::npos) << r.output;
  r = run_cli("simulate sync --p 0.01 --n 40");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--n"), std::string::npos) << r.output;
  // A sweep value no channel can have is a bad command line too, refused before any work.
  r = run_cli("simulate sync --p 0.6 --q 4 --n 3 --N 4 --max-frames 1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("Pi + Pd"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("# gpufec"), std::string::npos) << "no table header: " << r.output;
}

TEST_F(SyncCli, SimulateReportsStateSpaceAndIsDeterministic) {
  const std::string args =
      "simulate sync --backend cpu --q 8 --n 5 --N 20 --p 0.01 --max-frames 30 --max-fe 0 --seed 4 "
      "--json ";
  auto a = run_cli(args + path("a.json") + " --threads 1");
  auto b = run_cli(args + path("b.json") + " --threads 2");
  ASSERT_EQ(a.status, 0) << a.output;
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_NE(a.output.find("M_tau="), std::string::npos) << a.output;
  EXPECT_NE(a.output.find("gamma_MiB_per_frame="), std::string::npos);
  auto counts = [](const std::string& json) {
    const auto at = json.find("\"symbol_errors\"");
    return json.substr(at, 40);
  };
  EXPECT_EQ(counts(read_all(path("a.json"))), counts(read_all(path("b.json"))));
}

}  // namespace
}  // namespace gpufec::sync
