// The standard way to run a sweep from the CLI: table, progress line, files, Ctrl-C.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "family_registry.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/sim/report.hpp"

namespace gpufec::cli {

namespace {

std::atomic<bool> interrupt_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");

// First Ctrl-C: finish the current point cleanly. Second: leave at once (async-signal-safe _exit).
extern "C" void on_sigint(int) {
  if (interrupt_requested.exchange(true)) {
    remove_temporary_files();
    _exit(130);
  }
}

// Installs the handler for the lifetime of a sweep and restores the previous one after.
class sigint_guard {
 public:
  sigint_guard() {
    interrupt_requested = false;
    previous_ = std::signal(SIGINT, on_sigint);
  }
  ~sigint_guard() { std::signal(SIGINT, previous_); }
  sigint_guard(const sigint_guard&) = delete;
  sigint_guard& operator=(const sigint_guard&) = delete;

 private:
  void (*previous_)(int) = SIG_DFL;
};

// The table on stdout, the report files, and a progress line on stderr: rewritten in place at most
// every 0.2 s when stderr is a terminal (erased before each table row, so pipes never see it), or
// with --progress a plain line every 10 s for the logs of batch jobs.
class cli_observer final : public sim::observer {
 public:
  cli_observer(sim::table_printer& table, sim::report_files& files, std::string sweep_name,
               bool progress_lines)
      : table_(table),
        files_(files),
        sweep_name_(std::move(sweep_name)),
        tty_(isatty(STDERR_FILENO) == 1),
        lines_(progress_lines) {}

  void on_progress(const sim::progress& p) override {
    if (!tty_ && !lines_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < (tty_ ? std::chrono::milliseconds(200) : std::chrono::seconds(10))) return;
    last_ = now;
    char left[48] = "";
    if (p.seconds_left >= 0) std::snprintf(left, sizeof left, ", ~%.0f s left", p.seconds_left);
    std::fprintf(stderr,
                 "%s  %s = %g (point %zu of %zu): %llu frames, %llu frame errors, %llu bit "
                 "errors, %.4g frames/s, %.1f s%s%s",
                 tty_ ? "\r\033[K" : "", sweep_name_.c_str(), p.point, p.index + 1, p.points,
                 static_cast<unsigned long long>(p.frames),
                 static_cast<unsigned long long>(p.frame_errors),
                 static_cast<unsigned long long>(p.bit_errors), p.frames_per_second, p.seconds,
                 left, tty_ ? "" : "\n");
    std::fflush(stderr);
    shown_ = tty_;
  }
  void on_point(const sim::point_result& r) override {
    if (shown_) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
      shown_ = false;
    }
    table_.on_point(r);
    files_.on_point(r);
  }

 private:
  sim::table_printer& table_;
  sim::report_files& files_;
  std::string sweep_name_;
  bool tty_, lines_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

int run_simulation(const sim::family& fam, std::string_view sweep_option, const std::string& sweep,
                   const simulate_options& common) {
  const sigint_guard guard;  // from the start: a Ctrl-C during the set-up ends the run cleanly
  const std::vector<double> points = sim::parse_sweep(sweep);
  for (const double p : points) {
    try {
      fam.validate_point(p);
    } catch (const invalid_argument& e) {
      throw usage_error(cat(sweep_option, " ", p, ": ", e.what()));
    }
  }
  const sim::options opt = common.simulator_options();
  sim::run_description run = sim::describe(fam, opt);
  distinct_paths({}, {{"--json", common.json_path}, {"--csv", common.csv_path}});
  for (const std::string& path : {common.json_path, common.csv_path})
    if (!path.empty()) output_file(path).discard();  // a bad path fails now, before any work
  // The first point's chain, made once before any output: its plan checks its memory needs up
  // front (an impossible request fails here, before the table and the files), and the header
  // shows it.
  if (!points.empty())
    run.first_plan =
        fam.make_chain(points.front(), sim::point_seed(opt.seed, points.front()))->details();
  // The files are written whole after each point: a sweep that dies keeps its finished points.
  sim::report_files files(common.json_path, common.csv_path, run);
  sim::table_printer table(std::cout, run);
  table.print_header();
  cli_observer obs(table, files, run.sweep_name, common.progress);
  const sim::sweep_result result = sim::run_sweep(fam, points, opt, &obs, &interrupt_requested);
  table.print_footer(result);
  std::cout.flush();
  require<error>(!std::cout.fail(), "failed writing the table to standard output");
  return result.interrupted ? 130 : 0;
}

}  // namespace gpufec::cli
