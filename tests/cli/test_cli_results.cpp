// Every number and file a run produces can be believed: a run a signal ends is marked so (and
// exits 128 + the signal), every report says which points were asked for and whether the run
// completed, a document on standard output is one clean document, every point is checked before
// the first runs (values and memory), the memory check counts the threads asked for, and every
// JSON says where it came from.
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"

namespace gpufec {
namespace {

using testing::cli_result;
using testing::read_all;
using testing::run_cli;
using testing::scoped_env;

class CliResults : public testing::cli_test {
 protected:
  nlohmann::json json_of(const std::string& name) {
    return nlohmann::json::parse(read_all(path(name)));
  }
};

// SIGTERM (a batch system's limit, kill) and SIGHUP (the terminal closed) end a sweep as Ctrl-C
// does: the point in progress kept and marked, the files written whole and marked interrupted,
// the exit status 128 + the signal.
TEST_F(CliResults, TerminationAndHangUpEndASweepLikeCtrlC) {
  for (const auto& [signal, status, name] :
       {std::tuple{SIGTERM, 143, "SIGTERM"}, std::tuple{SIGHUP, 129, "SIGHUP"},
        std::tuple{SIGINT, 130, "SIGINT"}}) {
    SCOPED_TRACE(name);
    const auto run = testing::run_and_interrupt(
        {"simulate", "uncoded", "--backend", "cpu", "--ebn0", "0,20,21", "--max-fe", "5", "--json",
         path("s.json"), "--csv", path("s.csv")},
        path("log"), std::chrono::milliseconds(2000), std::chrono::seconds(20), true, signal);
    EXPECT_EQ(run.status, status) << read_all(path("log"));
    EXPECT_LT(run.seconds_after_signal, 2.0);
    EXPECT_NE(read_all(path("log")).find(std::string("interrupted by ") + name), std::string::npos)
        << read_all(path("log"));
    const nlohmann::json j = json_of("s.json");
    EXPECT_EQ(j["status"], "interrupted");
    EXPECT_EQ(j["interrupted"], true);
    EXPECT_EQ(j["completed"], false);
    EXPECT_EQ(j["signal"], name);
    EXPECT_EQ(j["points_requested"].size(), 3u);
    ASSERT_EQ(j["points"].size(), 2u);
    EXPECT_EQ(j["points"][1]["stop_reason"], "interrupted");
    const std::string csv = read_all(path("s.csv"));
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4) << "header and 3 points: " << csv;
    EXPECT_NE(csv.find("not-run\n"), std::string::npos) << csv;
    EXPECT_EQ(files().size(), 3u) << "no temporary file left";
  }
}

// A report rewritten between points says the run is not finished, so a run killed outright
// (SIGKILL, a crash) leaves a file that does not look complete; a finished run says complete.
TEST_F(CliResults, ReportsSayWhetherTheRunCompleted) {
  const auto killed = testing::run_and_interrupt(
      {"simulate", "uncoded", "--backend", "cpu", "--ebn0", "0,20", "--max-fe", "5", "--json",
       path("k.json")},
      path("log"), std::chrono::milliseconds(1500), std::chrono::seconds(20), true, SIGKILL);
  EXPECT_EQ(killed.status, -1);
  nlohmann::json j = json_of("k.json");
  EXPECT_EQ(j["status"], "running");
  EXPECT_EQ(j["completed"], false);
  EXPECT_EQ(j["points"].size(), 1u);
  ASSERT_EQ(
      run_cli("simulate uncoded --backend cpu --ebn0 0:2 --max-frames 5 --json " + path("c.json"))
          .status,
      0);
  j = json_of("c.json");
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(j["completed"], true);
  EXPECT_EQ(j["points_requested"], nlohmann::json({0.0, 1.0, 2.0}));
  EXPECT_EQ(j["points"].size(), 3u);
}

// --json - and --csv - put one clean document on standard output and the table on stderr; both
// at once are refused.
TEST_F(CliResults, DocumentsOnStandardOutputAreCleanAndTheTableGoesToStderr) {
  const std::string sweep = "simulate uncoded --backend cpu --ebn0 0,1 --max-frames 5";
  cli_result r = run_cli(sweep + " --json -", path("out"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(read_all(path("out")));  // throws if mixed
  EXPECT_EQ(j["points"].size(), 2u);
  EXPECT_NE(r.output.find("# gpufec"), std::string::npos) << "the table on stderr";
  r = run_cli(sweep + " --csv -", path("out"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string csv = read_all(path("out"));
  EXPECT_EQ(csv.rfind("family,", 0), 0u) << csv;
  EXPECT_EQ(csv.find('#'), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  r = run_cli(sweep + " --json - --csv -");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("standard output"), std::string::npos) << r.output;
  // A benchmark's document too.
  r = run_cli("bench uncoded --backend cpu --frames 100 --json -", path("out"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(read_all(path("out")))["family"], "uncoded");
}

// Every point of a sweep is checked before the first runs, naming the option: a bad last point
// never costs the points before it.
TEST_F(CliResults, EveryPointIsCheckedBeforeTheFirstRuns) {
  for (const std::string command :
       {"simulate uncoded --ebn0 0,1e300", "simulate conv --ebn0 0,1e300",
        "simulate polar --N 64 --K 32 --ebn0 0,-1e300",
        "simulate sync --q 4 --n 3 --N 10 --p "
        "0.01,0.6"}) {
    const cli_result r = run_cli(command + " --backend cpu --max-frames 2");
    EXPECT_EQ(r.status, 2) << command << "\n" << r.output;
    EXPECT_EQ(r.output.find("# gpufec"), std::string::npos) << "nothing ran: " << r.output;
    EXPECT_NE(r.output.find(command.find("sync") != std::string::npos ? "--p" : "--ebn0"),
              std::string::npos)
        << r.output;
  }
  // The memory of the point that needs the most: at p = 0.3 one frame of N = 4000 needs ~80 GB
  // of global storage, at 0.001 under 1 GB; the sweep fails before its first point runs. The
  // cap makes the test the same on a machine that has the 80 GB.
  const scoped_env cap("GPUFEC_MEMORY_LIMIT", "16G");
  const cli_result r = run_cli(
      "simulate sync --backend cpu --q 32 --n 10 --N 4000 --p 0.001,0.3 --storage global "
      "--max-frames 1 --threads 1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("needs"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("# gpufec"), std::string::npos) << "nothing ran: " << r.output;
}

// The memory check and the plan use the threads asked for: --threads 1 plans one frame at a time.
TEST_F(CliResults, ThePlanCountsTheThreadsAskedFor) {
  auto plan_frames = [&](int threads) {
    const cli_result r = run_cli(
        "simulate sync --backend cpu --q 8 --n 5 --N 100 --p 0.01 --max-frames 4 "
        "--storage global --threads " +
        std::to_string(threads) + " --json " + path("t.json"));
    EXPECT_EQ(r.status, 0) << r.output;
    const nlohmann::json j = json_of("t.json");
    const auto& d = j["points"][0]["details"];
    return d["plan_MiB"].get<double>() / d["gamma_MiB_per_frame"].get<double>();
  };
  EXPECT_DOUBLE_EQ(plan_frames(1), 1.0);
  EXPECT_DOUBLE_EQ(plan_frames(2), 2.0);
}

// Every JSON says where it came from: the command line, the start time (UTC), the version and
// commit, the host's CPU and threads, and the GPU (none on the CPU backend).
TEST_F(CliResults, EveryJsonCarriesItsProvenance) {
  ASSERT_EQ(run_cli("simulate uncoded --backend cpu --ebn0 1 --max-frames 2 --threads 1 --json " +
                    path("s.json"))
                .status,
            0);
  ASSERT_EQ(run_cli("bench uncoded --backend cpu --frames 10 --json " + path("b.json")).status, 0);
  for (const char* name : {"s.json", "b.json"}) {
    const nlohmann::json p = json_of(name)["provenance"];
    SCOPED_TRACE(name);
    EXPECT_NE(p["command_line"].get<std::string>().find(" uncoded "), std::string::npos) << p;
    const std::string started = p["started_utc"];
    EXPECT_EQ(started.size(), 20u) << started;  // 2026-12-02T00:24:42Z
    EXPECT_EQ(started.back(), 'Z');
    EXPECT_FALSE(p["gpufec_version"].get<std::string>().empty());
    EXPECT_FALSE(p["git_commit"].get<std::string>().empty());
    EXPECT_TRUE(p["host"]["cpu_model"].is_string());
    EXPECT_GT(p["host"]["hardware_threads"].get<int>(), 0);
    EXPECT_TRUE(p["gpu"].is_null());
  }
  EXPECT_EQ(json_of("s.json")["provenance"]["host"]["openmp_threads"], 1);
}

}  // namespace
}  // namespace gpufec
