// The CLI's table of code families. `gpufec simulate|decode|encode|bench|info <family>` are built
// from it: the frame (main.cpp) owns the options every family shares and the exit statuses; each
// family adds its own subcommands and options from its own folder (tools/<family>/commands.cpp)
// and registers itself with one static object. No string dispatch.
//
//   namespace gpufec::cli {
//   namespace {
//   action simulate_sync(CLI::App& cmd, const simulate_options& common) {
//     auto o = std::make_shared<sync_cli_options>();   // the family's own options, kept alive
//     cmd.add_option("--p", o->sweep, "deletion probabilities")->required()
//         ->check(sweep_validator());
//     cmd.add_option("--n", o->n, "codeword length")->check(in_range(1, 32));
//     return [o, &common] {                               // runs after a successful parse
//       const sync::sim_family fam(o->setup(), common.resolved_backend());
//       return run_simulation(fam, "--p", o->sweep, common);
//     };
//   }
//   }  // namespace
//   const register_family sync_entry{{.name = "sync", .summary = "...", .examples = "...",
//                                     .simulate = &simulate_sync}};
//   }  // namespace gpufec::cli
//
// A null builder means the family has no such subcommand. Builders add options to `cmd` (already
// named after the family, with the shared options added) and return the action; they must not run
// anything themselves. An action returns the exit status; it may throw gpufec::error (the frame
// prints one line and exits 1) or usage_error (a bad combination of options found after parsing:
// exit 2). Put single-option checks in CLI11 validators (below) so that bad values exit with
// status 2, naming the option, before anything runs.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpufec/common/backend.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/sim/family.hpp"
#include "gpufec/sim/simulator.hpp"

namespace gpufec::cli {

// A command line that parses but cannot run as given (two options that clash, an output missing):
// exit status 2, like a parse error.
class usage_error : public invalid_argument {
 public:
  using invalid_argument::invalid_argument;
};

// The OpenMP threads a command may ask for: more makes no sense on any machine, and the runtime
// fails (segfaults at 100 000) far beyond.
inline constexpr int max_threads = 1024;

// Options shared by every `simulate <family>`.
struct simulate_options {
  std::string backend = "auto";
  std::uint64_t seed = 0;
  std::uint64_t max_fe = 100;
  std::uint64_t max_frames = 0;
  double max_time_s = 0.0;
  int threads = 0;
  std::size_t batch_frames = 0;
  std::string json_path, csv_path;
  bool progress = false;  // progress lines on stderr even when it is not a terminal

  sim::options simulator_options() const;
  gpufec::backend resolved_backend() const { return parse_backend(backend); }
};

// Options shared by every `decode <family>` and `encode <family>`.
struct decode_options {
  std::string backend = "auto";
  int threads = 0;
  bool quiet = false;  // no plan description, progress or summary on stderr (errors still)
  gpufec::backend resolved_backend() const { return parse_backend(backend); }
  // Where a decode's informational lines go: stderr, or nowhere with --quiet.
  std::ostream& log() const;
};
struct encode_options {
  int threads = 0;
};

// Options shared by every `bench <family>`; backend "all" means cpu, plus cuda when a device
// exists; "cuda" without a usable device is an error (exit 1), never a CPU-only run.
struct bench_options {
  std::string backend = "all";
  std::uint64_t seed = 0;
  int threads = 0;
  std::string json_path;
  std::vector<gpufec::backend> resolved_backends() const;
  // Where the table goes: standard error when the JSON document takes standard output (--json -),
  // so that each stream holds one clean thing.
  std::ostream& table() const;
  // Writes `document` with its provenance (the run began at `started`, seconds since the epoch;
  // `gpu`: whether CUDA rows ran) to the --json output opened before the work, and commits it.
  void write_json(output_file& json, nlohmann::json document, double started, bool gpu) const;
};

struct info_options {};

using action = std::function<int()>;

struct family_commands {
  std::string_view name;      // the subcommand name: "uncoded", "sync", ...
  std::string_view summary;   // one line for --help
  std::string_view examples;  // the footer of each of the family's subcommands' --help
  action (*simulate)(CLI::App& cmd, const simulate_options& common) = nullptr;
  action (*decode)(CLI::App& cmd, const decode_options& common) = nullptr;
  action (*encode)(CLI::App& cmd, const encode_options& common) = nullptr;
  action (*bench)(CLI::App& cmd, const bench_options& common) = nullptr;
  action (*info)(CLI::App& cmd, const info_options& common) = nullptr;
};

// Registers a family at static-initialization time (one object per family file).
struct register_family {
  explicit register_family(family_commands commands);
};
// Every registered family, sorted by name.
std::vector<family_commands> registered_families();

// --- Validators: messages a user reads ("must lie in [0, 1]", never 300 digits). -----------
// A decimal integer that fits 64 bits (CLI11 would wrap "-1" to 2^64 - 1 and clamp 2^64).
CLI::Validator unsigned_integer();
// A finite number in [lo, hi] (NaN and infinities refused).
CLI::Validator in_range(double lo, double hi);
// A finite number >= lo, or > lo.
CLI::Validator at_least(double lo);
CLI::Validator greater_than(double lo);
// A finite number.
CLI::Validator finite();
// An Eb/N0 or Es/N0 in dB, within the range every channel accepts (channel::max_ebn0_db).
CLI::Validator snr_db();
// A sweep text ("0:8:1", "1e-3,1e-2") checked with sim::parse_sweep at parse time.
CLI::Validator sweep_validator();

// --- Helpers for actions. -------------------------------------------------------------------
// Refuses, as a bad command line (usage_error, exit 2), an output that names the same file as an
// input or another output: pairs of option and path (gpufec/common/files.hpp, require_distinct).
void distinct_paths(std::initializer_list<named_path> inputs,
                    std::initializer_list<named_path> outputs);
// Runs `make`, turning the library's invalid_argument (a description that names its bad field)
// into a usage_error (exit 2): the values came from the command line. A missing CUDA device
// (backend_unavailable) stays what it is: the command line is valid, this machine cannot run it
// (exit 1).
template <class Fn>
auto from_options(Fn&& make) {
  try {
    return make();
  } catch (const backend_unavailable&) {
    throw;
  } catch (const invalid_argument& e) {
    throw usage_error(e.what());
  }
}

// Sets the OpenMP threads when asked for (0 keeps OpenMP's default).
void use_threads(int threads);
// Runs a sweep the standard way: table on stdout, progress on stderr, --json/--csv rewritten
// after each point, Ctrl-C ends the current point within a second. `sweep` is the text of the
// family's sweep option (checked by sweep_validator) and `sweep_option` its name: a point the
// family cannot simulate is a bad command line (usage_error naming the option and the point).
// Returns the exit status (0, or 130 when interrupted).
int run_simulation(const sim::family& fam, std::string_view sweep_option, const std::string& sweep,
                   const simulate_options& common);

}  // namespace gpufec::cli
