// Running the real gpufec binary from tests: its exit status and output, in a scratch folder of
// the test's own; and a run that the test interrupts (SIGINT) or times.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace gpufec::testing {

struct cli_result {
  int status = -1;     // the exit status, or -1 when killed by a signal
  std::string output;  // stdout and stderr together
};

// Sets an environment variable for the scope (the runs it starts inherit it), then restores it.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) had_ = true, old_ = old;
    ::setenv(name, value, 1);
  }
  ~scoped_env() { had_ ? ::setenv(name_, old_.c_str(), 1) : ::unsetenv(name_); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// `stdout_to`: where standard output goes instead of the result (a file); stderr is still read.
inline cli_result run_cli(const std::string& args, const std::string& stdout_to = {}) {
  const std::string command = std::string(GPUFEC_CLI_PATH) + " " + args + " 2>&1" +
                              (stdout_to.empty() ? "" : " >" + stdout_to);
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {};
  cli_result r;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    r.output.append(buffer, n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// Runs a shell command line in which GPUFEC stands for the binary (pipes between commands).
inline cli_result run_shell(std::string line) {
  for (std::size_t at; (at = line.find("GPUFEC")) != std::string::npos;)
    line.replace(at, 6, GPUFEC_CLI_PATH);
  FILE* pipe = popen(("( " + line + " ) 2>&1").c_str(), "r");
  if (!pipe) return {};
  cli_result r;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    r.output.append(buffer, n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A scratch folder per test, removed afterwards.
class cli_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gpufec_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // The names in the scratch folder, sorted (to see that no temporary file was left behind).
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::filesystem::path dir_;
};

// Runs gpufec with `args` (its output into `log`), sends `signal` (SIGINT: Ctrl-C) after `after`,
// and returns the exit status and the seconds from the signal to the exit (or -1 and a large time
// when it did not exit within `limit`, in which case it is killed).
struct interrupted_run {
  int status = -1;
  double seconds_after_signal = 0;
};
inline interrupted_run run_and_interrupt(const std::vector<std::string>& args,
                                         const std::string& log, std::chrono::milliseconds after,
                                         std::chrono::seconds limit = std::chrono::seconds(20),
                                         bool send = true, int signal = SIGINT) {
  const pid_t pid = fork();
  if (pid == 0) {
    FILE* out = std::freopen(log.c_str(), "w", stdout);
    (void)out;
    dup2(fileno(stdout), fileno(stderr));
    std::vector<char*> argv;
    std::string program = GPUFEC_CLI_PATH;
    argv.push_back(program.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  std::this_thread::sleep_for(after);
  if (send) kill(pid, signal);
  const auto sent = std::chrono::steady_clock::now();
  interrupted_run r;
  for (;;) {
    int raw = 0;
    if (waitpid(pid, &raw, WNOHANG) == pid) {
      r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
      break;
    }
    if (std::chrono::steady_clock::now() - sent > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      r.status = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  r.seconds_after_signal =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  return r;
}

}  // namespace gpufec::testing
