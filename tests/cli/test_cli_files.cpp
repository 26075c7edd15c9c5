// Options and the files that describe a code: an option that contradicts what a file says is
// refused (exit 2, naming both), and an option the file already fixes may be left out.
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"

namespace gpufec {
namespace {

using testing::cli_result;
using testing::read_all;
using testing::run_cli;

class CliFiles : public testing::cli_test {
 protected:
  nlohmann::json json_of(const std::string& name) {
    return nlohmann::json::parse(read_all(path(name)));
  }
};

// An option that contradicts what a file says is refused (exit 2, naming both); an option the
// file fixes may be left out. Sync codebook files fix q, n, N (an N line, a marker, or one codebook
// per position) and the marker; polar frozen-set files fix K (and N with an N line).
TEST_F(CliFiles, OptionsThatContradictAFileAreRefusedNamingBoth) {
  // A code of N = 12 positions written by encode sync: the file says N = 12.
  std::ofstream(path("m.txt")) << "0 1 2 3 4 5 6 7 0 1 2 3\n";
  ASSERT_EQ(run_cli("encode sync --q 8 --n 5 --N 12 --codebook-seed 4 -i " + path("m.txt") +
                    " -o " + path("x.txt") + " --write-code " + path("code.txt"))
                .status,
            0);
  EXPECT_NE(read_all(path("code.txt")).find("\nN 12"), std::string::npos);
  const std::string decode = "decode sync --backend cpu --pi 0.01 --pd 0.01 -i " + path("x.txt") +
                             " --decisions " + path("d.txt") + " --codebook " + path("code.txt");
  cli_result r = run_cli(decode + " --N 13");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--N 13 contradicts the codebook file"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("N = 12"), std::string::npos) << r.output;
  r = run_cli(decode);  // N from the file
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(path("d.txt")), "0 1 2 3 4 5 6 7 0 1 2 3\n");
  // A hand-written file of 3 codebooks (one per position: N = 3) against --N 7; with an N line it
  // cycles its codebooks over that N.
  const std::string books = "q 2\nn 2\ncodebook\n00\n11\ncodebook\n01\n10\ncodebook\n00\n01\n";
  std::ofstream(path("three.txt")) << books;
  std::ofstream(path("cycled.txt")) << "N 7\n" << books;
  std::ofstream(path("y.txt")) << std::string(14, '0') << "\n";
  const std::string small = "decode sync --backend cpu --pi 0.01 --pd 0.01 -i " + path("y.txt") +
                            " --decisions " + path("e.txt") + " --codebook ";
  r = run_cli(small + path("three.txt") + " --N 7");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("its 3 codebooks, one per position"), std::string::npos) << r.output;
  EXPECT_EQ(run_cli(small + path("cycled.txt") + " --N 7").status, 0);
  EXPECT_EQ(run_cli(small + path("cycled.txt")).status, 0);
  // A file with a marker: --marker none (or random) contradicts it; left out, the file's.
  ASSERT_EQ(run_cli("encode sync --q 8 --n 5 --N 12 --marker random -i " + path("m.txt") + " -o " +
                    path("xm.txt") + " --write-code " + path("marked.txt"))
                .status,
            0);
  const std::string marked = "decode sync --backend cpu --pi 0.01 --pd 0.01 -i " + path("xm.txt") +
                             " --decisions " + path("dm.txt") + " --codebook " + path("marked.txt");
  for (const char* marker : {"none", "random"}) {
    r = run_cli(marked + " --marker " + marker);
    EXPECT_EQ(r.status, 2) << marker << "\n" << r.output;
    EXPECT_NE(r.output.find(std::string("--marker ") + marker + " contradicts"), std::string::npos)
        << r.output;
  }
  r = run_cli(marked);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(path("dm.txt")), "0 1 2 3 4 5 6 7 0 1 2 3\n");

  // Polar: `info polar` writes N and K lines; --N or --K that differ are refused, left out they
  // come from the file.
  ASSERT_EQ(run_cli("info polar --N 256 --K 100 --construct ga:2 -o " + path("f.txt")).status, 0);
  const std::string sim =
      "simulate polar --backend cpu --ebn0 3 --max-frames 4 --construct " + path("f.txt");
  r = run_cli(sim + " --N 512");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--N 512 contradicts the frozen-set file"), std::string::npos)
      << r.output;
  r = run_cli(sim + " --K 128");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--K 128 contradicts the frozen-set file"), std::string::npos)
      << r.output;
  r = run_cli(sim + " --json " + path("p.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(json_of("p.json")["parameters"]["N"], 256);
  EXPECT_EQ(json_of("p.json")["parameters"]["K"], 100);
  // A file of bare indices fixes K by its count at the given N.
  std::ofstream(path("bare.txt")) << "0 1 2 4\n";
  r = run_cli("simulate polar --backend cpu --ebn0 3 --max-frames 4 --N 8 --K 2 --construct " +
              path("bare.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("K = 4, from its 4 frozen indices at N = 8"), std::string::npos)
      << r.output;
  EXPECT_EQ(run_cli("simulate polar --backend cpu --ebn0 3 --max-frames 4 --N 8 --construct " +
                    path("bare.txt"))
                .status,
            0);
}

}  // namespace
}  // namespace gpufec
