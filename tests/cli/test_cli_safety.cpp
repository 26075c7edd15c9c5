// The command line does not crash, hang or lose data: impossible requests fail up front with a
// message naming the need, Ctrl-C and --max-time take effect within about a second, every output
// is checked, outputs never clobber inputs or each other, and a run that fails leaves no file
// that looks finished. Each test failed before the fix it covers.
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "gpufec/common/device.hpp"

namespace gpufec {
namespace {

using testing::cli_result;
using testing::run_cli;

class CliSafety : public testing::cli_test {};

TEST_F(CliSafety, ImpossibleMemoryRequestsFailUpFrontNamingTheNeed) {
  // Terabytes of gamma storage per frame (more than any machine has): refused before any
  // allocation or any table line, with the way out.
  cli_result r = run_cli(
      "simulate sync --backend cpu --q 1024 --n 20 --N 8400 --p 0.1 --max-frames 1 --storage "
      "global");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("needs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("available"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--storage local"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("# gpufec"), std::string::npos) << "nothing printed before: " << r.output;
  EXPECT_EQ(r.output.find("bad_alloc"), std::string::npos) << r.output;
  // The same plan from decode sync.
  std::ofstream(path("rx.txt")) << std::string(168000, '0') << "\n";
  r = run_cli(
      "decode sync --backend cpu --q 1024 --n 20 --N 8400 --pi 0.1 --pd 0.1 --storage "
      "global -i " +
      path("rx.txt") + " --decisions " + path("d.txt"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("available"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("d.txt"))) << "no output file after a failure";
  EXPECT_EQ(files().size(), 1u) << "no temporary file left behind";
  // A frame of 2^32 bits: 24 GiB for bits, LLRs and decisions.
  if (available_host_memory() < (std::size_t{24} << 30)) {
    r = run_cli("simulate uncoded --ebn0 1 --K 4294967296 --max-frames 1");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("one frame of K = 4294967296"), std::string::npos) << r.output;
  }
  // A huge batch is no allocation of its own: frames still go through the chain in steps.
  r = run_cli("simulate uncoded --ebn0 10 --batch 10000000 --max-frames 100 --backend cpu");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_F(CliSafety, ThreadsAreCappedWithAClearMessage) {
  for (const char* command :
       {"simulate uncoded --ebn0 1 --max-frames 1", "bench uncoded", "decode uncoded -i x -o y"}) {
    const cli_result r = run_cli(std::string(command) + " --threads 100000");
    EXPECT_EQ(r.status, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("--threads: must lie in [0, 1024]"), std::string::npos) << r.output;
  }
}

// One frame of N = 20 000 takes the CPU reference tens of seconds: both the interrupt and the
// time limit must end it within about a second, inside the frame.
TEST_F(CliSafety, CtrlCAndMaxTimeTakeEffectWithinASecondInsideALongFrame) {
  const std::vector<std::string> long_frame = {
      "simulate", "sync",  "--backend", "cpu",  "--q",          "32", "--n",       "10",
      "--N",      "20000", "--p",       "0.01", "--max-frames", "1",  "--threads", "1"};
  const auto interrupted =
      testing::run_and_interrupt(long_frame, path("log1"), std::chrono::milliseconds(1500));
  EXPECT_EQ(interrupted.status, 130) << testing::read_all(path("log1"));
  EXPECT_LT(interrupted.seconds_after_signal, 2.0);
  EXPECT_NE(testing::read_all(path("log1")).find("interrupted"), std::string::npos);

  std::vector<std::string> timed = long_frame;
  timed.insert(timed.end(), {"--max-time", "1"});
  const auto limited = testing::run_and_interrupt(timed, path("log2"), std::chrono::milliseconds(0),
                                                  std::chrono::seconds(20), false);
  EXPECT_EQ(limited.status, 0) << testing::read_all(path("log2"));
  EXPECT_LT(limited.seconds_after_signal, 6.0) << "the plan takes a moment, the frame must not";
  EXPECT_NE(testing::read_all(path("log2")).find("max-time"), std::string::npos);
}

// Every family stops within about a second inside one long frame: conv's three CPU decoders on
// frames of 2^24 bits (each checks its stop token every 2^15 stages or 16 tiles), polar BP on
// N = 2^20 at 100 iterations (between iterations), the uncoded chain on K = 2^28 (its stages
// work in blocks of 2^16 samples over every thread). Each of these runs for many seconds
// uninterrupted.
TEST_F(CliSafety, EveryFamilyStopsWithinASecondInsideALongFrame) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"simulate", "conv", "--frame-bits", "16777216"},
           {"simulate", "conv", "--frame-bits", "16777216", "--decoder", "reference"},
           {"simulate", "conv", "--frame-bits", "16777216", "--decoder", "tiled"},
           {"simulate", "polar", "--N", "1048576", "--K", "524288", "--construct", "ga:2",
            "--decoder", "bp", "--iters", "100"},
           {"simulate", "uncoded", "--K", "268435456"}}) {
    std::vector<std::string> command = args;
    command.insert(command.end(),
                   {"--ebn0", "2", "--backend", "cpu", "--max-fe", "0", "--max-frames", "100"});
    std::string what;
    for (const std::string& a : args) what += a + " ";
    const auto run =
        testing::run_and_interrupt(command, path("log"), std::chrono::milliseconds(2500));
    EXPECT_EQ(run.status, 130) << what << "\n" << testing::read_all(path("log"));
    EXPECT_LT(run.seconds_after_signal, 2.0) << what;
    EXPECT_NE(testing::read_all(path("log")).find("interrupted"), std::string::npos) << what;
  }
}

// Outside a sweep, Ctrl-C ends the program at once: the outputs being written are removed, so no
// half-written file (nor a temporary one) remains.
TEST_F(CliSafety, AnInterruptedDecodeLeavesNoFileBehind) {
  std::ofstream(path("rx.txt")) << std::string(200000, '0') << "\n";  // one frame, N = 20000
  const auto run = testing::run_and_interrupt(
      {"decode",      "sync",        "--backend", "cpu",        "--q",  "32",
       "--n",         "10",          "--N",       "20000",      "--pi", "0.01",
       "--pd",        "0.01",        "--threads", "1",          "-i",   path("rx.txt"),
       "--decisions", path("d.txt"), "--app",     path("a.txt")},
      path("log"), std::chrono::milliseconds(1500));
  EXPECT_EQ(run.status, 130) << testing::read_all(path("log"));
  EXPECT_LT(run.seconds_after_signal, 2.0);
  EXPECT_EQ(files().size(), 2u) << "only the input and the log";
}

TEST_F(CliSafety, WriteErrorsAreErrorsNamingTheFile) {
  std::ofstream(path("rx.txt")) << "1.0 -2.0\n";
  const std::string sync_args =
      "--q 8 --n 5 --N 12 --pi 0.02 --pd 0.02 --backend cpu --codebook-seed 3 -i ";
  std::ofstream(path("frames.txt")) << std::string(60, '0') << "\n";
  for (const std::string& command : std::vector<std::string>{
           "decode uncoded -i " + path("rx.txt") + " -o /dev/full",
           "simulate uncoded --ebn0 1 --max-frames 10 --csv /dev/full",
           "simulate uncoded --ebn0 1 --max-frames 10 --json /dev/full",
           "bench uncoded --frames 10 --backend cpu --json /dev/full",
           "decode sync " + sync_args + path("frames.txt") + " --decisions /dev/full"}) {
    const cli_result r = run_cli(command);
    EXPECT_EQ(r.status, 1) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("/dev/full"), std::string::npos) << command << "\n" << r.output;
  }
  // Standard output too.
  const cli_result r = run_cli("simulate uncoded --ebn0 1 --max-frames 10", "/dev/full");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("standard output"), std::string::npos) << r.output;
}

TEST_F(CliSafety, OutputsNeverClobberInputsOrEachOther) {
  const std::string samples = "1.0 -2.0 0.5\n";
  std::ofstream(path("u.txt")) << samples;
  cli_result r = run_cli("decode uncoded -i " + path("u.txt") + " -o " + path("u.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("name the same file"), std::string::npos) << r.output;
  EXPECT_EQ(testing::read_all(path("u.txt")), samples) << "the input is untouched";
  // The same file under another name (a symbolic link) is the same file.
  std::filesystem::create_symlink(path("u.txt"), path("link.txt"));
  r = run_cli("decode uncoded -i " + path("u.txt") + " -o " + path("link.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  const std::string frames = std::string(60, '0') + "\n";
  std::ofstream(path("in.txt")) << frames;
  const std::string sync =
      "decode sync --q 8 --n 5 --N 12 --pi 0.02 --pd 0.02 --backend cpu -i " + path("in.txt");
  r = run_cli(sync + " --decisions " + path("in.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(testing::read_all(path("in.txt")), frames);
  r = run_cli(sync + " --app " + path("o.txt") + " --decisions " + path("o.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("o.txt")));
  r = run_cli("simulate uncoded --ebn0 1 --max-frames 10 --csv " + path("x") + " --json " +
              path("x"));
  EXPECT_EQ(r.status, 2) << r.output;
}

TEST_F(CliSafety, ABadOutputPathFailsBeforeAnyWork) {
  const auto t0 = std::chrono::steady_clock::now();
  const cli_result r =
      run_cli("simulate uncoded --ebn0 0:8:1 --max-fe 100000 --json /nonexistent/x.json");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/x.json"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("max-fe\n"), std::string::npos) << "no point was run: " << r.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  const cli_result b = run_cli(
      "bench sync --backend cpu --q 8 --n 5 --N 12 --p 0.01 --json "
      "/nonexistent/b.json");
  EXPECT_EQ(b.status, 1) << b.output;
  EXPECT_EQ(b.output.find("cpu (1 thread)"), std::string::npos) << "no row was run: " << b.output;
}

// A sweep cut short keeps its finished points in both files, each a complete, valid file. (At 20 dB
// an uncoded frame error is a 10^-40 event: the second point cannot end before the signal, however
// fast the chain.)
TEST_F(CliSafety, JsonAndCsvKeepTheFinishedPointsOfASweepCutShort) {
  const auto run = testing::run_and_interrupt(
      {"simulate", "uncoded", "--backend", "cpu", "--ebn0", "0,20", "--max-fe", "5", "--json",
       path("s.json"), "--csv", path("s.csv")},
      path("log"), std::chrono::milliseconds(2500));
  EXPECT_EQ(run.status, 130) << testing::read_all(path("log"));
  const nlohmann::json j = nlohmann::json::parse(testing::read_all(path("s.json")));
  ASSERT_EQ(j["points"].size(), 2u) << j.dump(1);
  EXPECT_EQ(j["points"][0]["stop_reason"], "max-fe");
  EXPECT_EQ(j["points"][1]["stop_reason"], "interrupted");
  EXPECT_TRUE(j["interrupted"].get<bool>());
  const std::string csv = testing::read_all(path("s.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  EXPECT_EQ(files().size(), 3u) << "the two reports and the log, no temporary file";
}

TEST_F(CliSafety, FilesAreTextByContentAndSayWhatIsWrong) {
  // A UTF-8 comment does not make a text file binary.
  std::ofstream(path("u.txt")) << "# sigma = 0.5, \xcf\x83\n1.0 -2.0\n";
  cli_result r = run_cli("decode uncoded -i " + path("u.txt") + " -o " + path("b.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(testing::read_all(path("b.txt")), "01\n");
  // Raw float32 is never guessed: it must be asked for.
  const float raw[2] = {1.5f, -2.25f};
  std::ofstream(path("raw.f32"), std::ios::binary)
      .write(reinterpret_cast<const char*>(raw), sizeof raw);
  r = run_cli("decode uncoded -i " + path("raw.f32") + " -o " + path("b.txt"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("not a text file"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--input-format f32"), std::string::npos) << r.output;
  // A byte order mark is skipped; a NUL byte is named; a directory says so.
  std::ofstream(path("bom.txt")) << "\xEF\xBB\xBF-1 1\n";
  r = run_cli("decode uncoded -i " + path("bom.txt") + " -o " + path("b.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(testing::read_all(path("b.txt")), "10\n");
  std::ofstream(path("nul.txt"), std::ios::binary).write("1.0\0-1", 6);
  r = run_cli("decode uncoded -i " + path("nul.txt") + " -o " + path("b.txt"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("NUL byte"), std::string::npos) << r.output;
  r = run_cli("decode uncoded -i " + dir_.string() + " -o " + path("b.txt"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("is a directory"), std::string::npos) << r.output;
  r = run_cli("decode sync --q 8 --n 5 --N 12 --pi 0.01 --pd 0.01 -i " + path("u.txt") +
              " --decisions " + dir_.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("is a directory"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gpufec
