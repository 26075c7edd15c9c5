// The standard way to run a sweep from the CLI: table, progress line, files, Ctrl-C.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "family_registry.hpp"
#include "gpufec/sim/report.hpp"

namespace gpufec::cli {

namespace {

std::atomic<bool> interrupt_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");

// First Ctrl-C: finish the current point cleanly. Second: leave at once (async-signal-safe _exit).
extern "C" void on_sigint(int) {
  if (interrupt_requested.exchange(true)) _exit(130);
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

// The table on stdout, plus a one-line progress report on stderr when stderr is a terminal (it is
// erased before each table row, so logs and pipes never see it).
class cli_observer final : public sim::observer {
 public:
  cli_observer(sim::table_printer& table, std::string sweep_name)
      : table_(table), sweep_name_(std::move(sweep_name)), tty_(isatty(STDERR_FILENO) == 1) {}

  void on_progress(const sim::progress& p) override {
    if (!tty_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    std::fprintf(stderr,
                 "\r\033[K  %s = %g: %llu frames, %llu frame errors, %llu bit errors, %.1f s",
                 sweep_name_.c_str(), p.point, static_cast<unsigned long long>(p.frames),
                 static_cast<unsigned long long>(p.frame_errors),
                 static_cast<unsigned long long>(p.bit_errors), p.seconds);
    std::fflush(stderr);
    shown_ = true;
  }
  void on_point(const sim::point_result& r) override {
    if (shown_) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
      shown_ = false;
    }
    table_.on_point(r);
  }

 private:
  sim::table_printer& table_;
  std::string sweep_name_;
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

int run_simulation(const sim::family& fam, std::span<const double> points,
                   const simulate_options& common) {
  const sim::options opt = common.simulator_options();
  const sim::run_description run = sim::describe(fam, opt);
  sim::table_printer table(std::cout, run);
  table.print_header();
  cli_observer obs(table, run.sweep_name);
  sim::sweep_result result;
  {
    const sigint_guard guard;
    result = sim::run_sweep(fam, points, opt, &obs, &interrupt_requested);
  }
  table.print_footer(result);
  if (!common.json_path.empty()) sim::write_json(common.json_path, run, result);
  if (!common.csv_path.empty()) sim::write_csv(common.csv_path, run, result);
  return result.interrupted ? 130 : 0;
}

}  // namespace gpufec::cli
