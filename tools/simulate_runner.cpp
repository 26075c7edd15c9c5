// The standard way to run a sweep from the CLI: table, progress line, files, Ctrl-C (or, in an
// embedding, its interrupt flag and progress hook).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>

#include "embedding.hpp"
#include "family_registry.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/sim/report.hpp"

namespace gpufec::cli {

namespace {

std::atomic<bool> interrupt_requested{false};
std::atomic<int> interrupt_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

// The signals that end a sweep cleanly: Ctrl-C, a termination (a batch system's time limit, kill)
// and a hang-up (the terminal closed).
constexpr int sweep_signals[] = {SIGINT, SIGTERM, SIGHUP};

// First signal: finish the current point cleanly (marked interrupted) and write the reports.
// Second: leave at once (async-signal-safe _exit), with the first signal's status.
extern "C" void on_sweep_signal(int signal) {
  int first = 0;
  if (!interrupt_signal.compare_exchange_strong(first, signal)) {
    remove_temporary_files();
    _exit(128 + first);
  }
  interrupt_requested = true;
}

// Installs the handler for the lifetime of a sweep and restores the previous ones after; in an
// embedding (the Python package), which keeps its own handlers, nothing.
class signal_guard {
 public:
  signal_guard() : installed_(!current_embedding()) {
    interrupt_requested = false;
    interrupt_signal = 0;
    if (installed_)
      for (std::size_t k = 0; k < std::size(sweep_signals); ++k)
        previous_[k] = std::signal(sweep_signals[k], on_sweep_signal);
  }
  ~signal_guard() {
    if (installed_)
      for (std::size_t k = 0; k < std::size(sweep_signals); ++k)
        std::signal(sweep_signals[k], previous_[k]);
  }
  signal_guard(const signal_guard&) = delete;
  signal_guard& operator=(const signal_guard&) = delete;

 private:
  bool installed_;
  void (*previous_[std::size(sweep_signals)])(int) = {};
};

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
  }
  return signal ? cat("signal ", signal) : std::string();
}

// The table on stdout, the report files, and a progress line on stderr: rewritten in place at most
// every 0.2 s when stderr is a terminal (erased before each table row, so pipes never see it), or
// with --progress a plain line every 10 s for the logs of batch jobs.
class cli_observer final : public sim::observer {
 public:
  cli_observer(sim::table_printer& table, sim::report_files& files, std::string sweep_name,
               bool progress_lines, embedding* host)
      : table_(table),
        files_(files),
        sweep_name_(std::move(sweep_name)),
        host_(host),
        tty_(!host && isatty(STDERR_FILENO) == 1),
        lines_(!host && progress_lines) {}

  void on_progress(const sim::progress& p) override {
    if (host_ && host_->on_progress) host_->on_progress(p);
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
  embedding* host_;  // an embedding's progress hook (its stderr is not a terminal)
  bool tty_, lines_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

int run_simulation(const sim::family& fam, std::string_view sweep_option, const std::string& sweep,
                   const simulate_options& common) {
  const signal_guard guard;  // from the start: a signal during the set-up ends the run cleanly
  const std::vector<double> points = sim::parse_sweep(sweep);
  // Every point is checked before the first runs: a sweep never fails at its last point for a
  // value it could have refused at once.
  for (const double p : points) {
    try {
      fam.validate_point(p);
    } catch (const invalid_argument& e) {
      throw usage_error(cat(sweep_option, " ", p, ": ", e.what()));
    }
  }
  // The thread count first: CPU plans size their memory by the threads that will run.
  use_threads(common.threads);
  const sim::options opt = common.simulator_options();
  sim::run_description run = sim::describe(fam, opt, points);
  if (common.json_path == "-" && common.csv_path == "-")
    throw usage_error("--json - and --csv - both ask for standard output; give one a file");
  distinct_paths({}, {{"--json", common.json_path}, {"--csv", common.csv_path}});
  for (const std::string& path : {common.json_path, common.csv_path})
    if (!path.empty() && path != "-")
      output_file(path).discard();  // a bad path fails now, before any work
  // The chain of the point that needs the most memory, made before any output: its plan checks
  // its memory needs up front (an impossible request fails here, before the table and the
  // files), and the header shows it. It runs its own point when that point is the first.
  std::unique_ptr<sim::chain> first_chain;
  if (!points.empty()) {
    run.plan_point = fam.largest_point(points);
    std::unique_ptr<sim::chain> ch =
        fam.make_chain(run.plan_point, sim::point_seed(opt.seed, run.plan_point));
    run.first_plan = ch->details();
    if (run.plan_point == points.front()) first_chain = std::move(ch);
  }
  // A document on standard output takes it whole: the table then goes to stderr.
  const bool table_on_stderr = common.json_path == "-" || common.csv_path == "-";
  std::ostream& table_stream = table_on_stderr ? std::cerr : std::cout;
  sim::report_files files(common.json_path, common.csv_path, run);
  sim::table_printer table(table_stream, run);
  table.print_header();
  embedding* const host = current_embedding();
  cli_observer obs(table, files, run.sweep_name, common.progress, host);
  const sim::sweep_result result =
      sim::run_sweep(fam, points, opt, &obs, host ? &host->interrupt : &interrupt_requested,
                     std::move(first_chain));
  // An embedding's interrupt stands for its Ctrl-C.
  if (host && result.interrupted()) interrupt_signal = SIGINT;
  const std::string signal = signal_name(interrupt_signal.load());
  files.finish(result, signal);
  table.print_footer(result, signal);
  table_stream.flush();
  if (result.status == sim::run_status::failed)
    throw error(cat(run.sweep_name, " = ", result.points.back().point, ": ", result.error));
  if (result.interrupted())
    return 128 + (interrupt_signal.load() ? interrupt_signal.load() : SIGINT);
  require<error>(!table_stream.fail(), "failed writing the table to standard ",
                 table_on_stderr ? "error" : "output");
  return 0;
}

}  // namespace gpufec::cli
