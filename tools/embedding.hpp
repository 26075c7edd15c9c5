// The command line as a function, for the `gpufec` program (main.cpp) and for programs that embed
// it (the Python package's gpufec.simulate runs `simulate <family> ...` in its own process, so
// that a script and a CLI run with the same options give the same validation, messages, counts
// and JSON).
//
//   gpufec::cli::embedding e;            // e.interrupt ends a sweep as Ctrl-C does
//   e.on_progress = [](const gpufec::sim::progress& p) { ... };   // from the sweep's thread
//   const auto r = gpufec::cli::run_embedded({"simulate", "uncoded", "--ebn0", "3"}, e);
//   // r.status (0, 1, 2, 130), r.out (the table), r.err, r.kind and r.message on failure
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "gpufec/common/enum_names.hpp"
#include "gpufec/sim/simulator.hpp"

namespace gpufec::cli {

// The program: argv as the shell gives it, the process's standard streams and signals. Returns
// the exit status (0 success, 1 run-time error, 2 bad command line, 128 + a signal).
int run_command_line(int argc, char** argv);

// What made a command fail, for an embedding to raise the matching exception.
enum class failure_kind {
  none,
  usage,     // a bad command line (status 2)
  value,     // a value refused after parsing (status 1): a code that cannot exist, a bad file
  memory,    // a request that cannot fit in host or device memory
  runtime,   // anything else the command reports (a device that is missing or fails, I/O)
  internal,  // an unexpected exception: a bug
};

}  // namespace gpufec::cli

template <>
struct gpufec::enum_names<gpufec::cli::failure_kind> {
  using E = cli::failure_kind;
  static constexpr std::array entries{
      enum_entry{E::none, "none"},       enum_entry{E::usage, "usage"},
      enum_entry{E::value, "value"},     enum_entry{E::memory, "memory"},
      enum_entry{E::runtime, "runtime"}, enum_entry{E::internal, "internal"}};
};

namespace gpufec::cli {

// A host program's side of a command: set `interrupt` (from any thread) to end a sweep's current
// point cleanly, marked interrupted (status 130, as a first Ctrl-C); progress of every batch.
struct embedding {
  std::atomic<bool> interrupt{false};
  std::function<void(const sim::progress&)> on_progress;

  // Called by the frame on a failure (its one-line message, without the "gpufec: error: ").
  void failed(failure_kind k, std::string m) {
    kind = k;
    message = std::move(m);
  }
  failure_kind kind = failure_kind::none;
  std::string message;
};

struct embedded_result {
  int status = 0;
  std::string out, err;  // what the command wrote on standard output and standard error
  failure_kind kind = failure_kind::none;
  std::string message;
};

// Runs `gpufec ARGS...` in this process: the command's standard output and error captured, the
// process's signal handlers and OpenMP thread count left as they were. One command at a time
// (calls from several threads wait for each other: the streams are the process's).
embedded_result run_embedded(const std::vector<std::string>& args, embedding& e);

// The embedding of the command running now, or null (the program).
embedding* current_embedding();

}  // namespace gpufec::cli
