// The CLI's table of code families. `gpufec simulate|decode|bench <family>` are built from it:
// the frame (main.cpp) owns the options every family shares; each family adds its own subcommands
// and options from its own file and registers itself with one static object. No string dispatch.
//
// How to add a family (e.g. tools/sync_commands.cpp):
//
//   #include "family_registry.hpp"
//   namespace gpufec::cli {
//   namespace {
//   action sync_simulate(CLI::App& cmd, const simulate_options& common) {
//     auto o = std::make_shared<sync_cli_options>();   // the family's own options, kept alive
//     cmd.add_option("--p", o->sweep, "deletion probabilities, e.g. 1e-3:1e-2:1e-3")
//         ->required()->check(sweep_validator());
//     cmd.add_option("--n", o->n, "codeword length")->check(CLI::PositiveNumber);
//     return [o, &common] {                               // runs after a successful parse
//       const sync::sim_family fam(o->code(), common.resolved_backend());
//       return run_simulation(fam, sim::parse_sweep(o->sweep), common);
//     };
//   }
//   }  // namespace
//   const register_family sync_entry{{"sync", "insertion/deletion channel, MAP decoder",
//                                     &sync_simulate, /*decode=*/nullptr, /*bench=*/nullptr}};
//   }  // namespace gpufec::cli
//
// A null builder means the family has no such subcommand. Builders add options to `cmd` (already
// named after the family, under simulate/decode/bench, with the shared options added) and return
// the action; they must not run anything themselves. An action returns the exit status; it may
// throw gpufec::error (the frame prints one line and exits with status 1). Put option checks in
// CLI11 validators so bad values exit with status 2 before anything runs.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "gpufec/common/backend.hpp"
#include "gpufec/sim/family.hpp"
#include "gpufec/sim/simulator.hpp"

namespace gpufec::cli {

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

// Options shared by every `decode <family>`.
struct decode_options {
  std::string backend = "auto";
  int threads = 0;
  gpufec::backend resolved_backend() const { return parse_backend(backend); }
};

// Options shared by every `bench <family>`; backend "all" means cpu, plus cuda when a device
// exists.
struct bench_options {
  std::string backend = "all";
  std::uint64_t seed = 0;
  int threads = 0;
  std::string json_path;
  std::vector<gpufec::backend> resolved_backends() const;
};

using action = std::function<int()>;

struct family_commands {
  std::string_view name;     // the subcommand name: "uncoded", "sync", ...
  std::string_view summary;  // one line for --help
  action (*simulate)(CLI::App& cmd, const simulate_options& common) = nullptr;
  action (*decode)(CLI::App& cmd, const decode_options& common) = nullptr;
  action (*bench)(CLI::App& cmd, const bench_options& common) = nullptr;
};

// Registers a family at static-initialization time (one object per family file).
struct register_family {
  explicit register_family(family_commands commands);
};
// Every registered family, sorted by name.
std::vector<family_commands> registered_families();

// --- Helpers for family builders and actions. ---------------------------------------------
// Rejects a negative number for an unsigned option (CLI11 would wrap "-1" to 2^64 - 1).
CLI::Validator unsigned_integer();
// Checks a sweep text ("0:8:1", "1e-3,1e-2") with sim::parse_sweep at parse time.
CLI::Validator sweep_validator();
// Runs a sweep the standard way: table on stdout, progress on a terminal's stderr, --json/--csv,
// Ctrl-C ends the current point. Returns the exit status (0, or 130 when interrupted).
int run_simulation(const sim::family& fam, std::span<const double> points,
                   const simulate_options& common);

}  // namespace gpufec::cli
