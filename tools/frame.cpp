// The command-line frame (embedding.hpp: run_command_line). It owns the shared options and the
// exit-status contract
// (0 success, 1 run-time error, 2 bad command line, 128 + the signal when a signal ended it: 130
// Ctrl-C, 143 SIGTERM, 129 SIGHUP), builds `simulate`, `decode`,
// `encode`, `bench` and `info` from the family table (family_registry.hpp), `channel` from the
// channels (channel_commands.cpp), and answers a bare `info` itself.
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "channel_commands.hpp"
#include "embedding.hpp"
#include "family_registry.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/provenance.hpp"
#include "sim_bench_command.hpp"

namespace gpufec::cli {
namespace {

constexpr const char* exit_statuses =
    "\nExit status: 0 success, 1 run-time error, 2 invalid command line, 130 interrupted "
    "(Ctrl-C), 143 terminated (SIGTERM), 129 hung up (SIGHUP).";

constexpr const char* examples = R"(
Examples:
  gpufec simulate uncoded --ebn0 0:8:1                 BPSK/AWGN BER curve, 100 frame errors per point
  gpufec simulate sync --q 32 --n 10 --N 210 --p 1e-3,1e-2 --backend cuda
  gpufec encode sync --q 8 --n 5 --N 12 --write-code code.txt -i messages.txt -o frames.txt
  gpufec channel bsid --pi 0.01 --pd 0.01 -i frames.txt -o received.txt --seed 1
  gpufec decode sync --codebook code.txt --pi 0.01 --pd 0.01 -i received.txt --decisions d.txt
  gpufec bench sync --p 1e-3 --batches 1,1000
  gpufec simulate conv --K 7 --polys 171,133 --rate 3/4 --ebn0 2:6:0.5
  gpufec simulate polar --N 1024 --K 512 --construct 5g --decoder bp --early-stop --ebn0 1:4:0.5
  gpufec encode polar --N 1024 --K 512 -i bits.txt -o - | gpufec channel awgn --ebn0 3 --rate 0.5 \
      -i - -o - | gpufec decode polar --N 1024 --K 512 -i - -o bits.out
  gpufec info                                          version, build options, CUDA devices
Every subcommand has --help with its own examples.
)";

int print_info() {
  const build_info b = get_build_info();
  std::cout << "gpufec " << b.version << "\n"
            << "  git commit:        " << git_commit() << "\n"
            << "  build type:        " << b.build_type << "\n"
            << "  CUDA backend:      " << (b.cuda ? "compiled" : "not compiled") << "\n";
  if (b.cuda) {
    std::cout << "  CUDA architectures: " << b.cuda_architectures << "\n"
              << "  CUDA runtime:      " << b.cuda_runtime_version / 1000 << "."
              << (b.cuda_runtime_version % 1000) / 10 << "\n";
  }
  std::cout << "  OpenMP threads:    " << b.openmp_max_threads << "\n";
  const std::vector<cuda_device_info> devices = cuda_devices();
  if (devices.empty()) {
    std::cout << "  CUDA devices:      none"
              << (b.cuda ? " (no usable GPU or driver found)" : " (built without CUDA)") << "\n";
  }
  for (const cuda_device_info& d : devices) {
    std::cout << "  CUDA device " << d.index << ":     " << d.name << ", compute capability "
              << d.compute_major << "." << d.compute_minor << ", " << d.sm_count << " SMs, "
              << d.total_memory / (1024 * 1024) << " MiB (" << d.free_memory / (1024 * 1024)
              << " MiB free)\n";
  }
  return 0;
}

void add_threads_option(CLI::App& cmd, int& threads) {
  cmd.add_option("--threads", threads,
                 "OpenMP threads for CPU work (0 = OpenMP's default, at most " +
                     std::to_string(max_threads) + ")")
      ->check(in_range(0, max_threads));
}

// The shared options, added to every family's subcommand by the frame.
void add_simulate_options(CLI::App& cmd, simulate_options& o) {
  cmd.add_option("--backend", o.backend, "cpu, cuda, or auto (cuda when a GPU exists)")
      ->check(CLI::IsMember(names_of<gpufec::backend>()))
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "seed of every random draw")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd.add_option("--max-fe", o.max_fe, "frame errors that end a point (0 = no limit)")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd.add_option("--max-frames", o.max_frames, "frames that end a point (0 = no limit)")
      ->check(unsigned_integer())
      ->capture_default_str();
  cmd.add_option("--max-time", o.max_time_s, "seconds that end a point (0 = no limit)")
      ->check(at_least(0))
      ->capture_default_str();
  add_threads_option(cmd, o.threads);
  cmd.add_option("--batch", o.batch_frames,
                 "frames per chain call (0 = the chain's choice; never changes results)")
      ->check(unsigned_integer() & in_range(0, 1e8));
  cmd.add_option("--json", o.json_path, "write every parameter and figure to this JSON file");
  cmd.add_option("--csv", o.csv_path, "write one CSV line per point to this file");
  cmd.add_flag("--progress", o.progress,
               "a progress line every 10 s on stderr, also when it is not a terminal (logs)");
  cmd.parse_complete_callback([&o] {
    if (o.max_fe == 0 && o.max_frames == 0 && o.max_time_s <= 0.0)
      throw CLI::ValidationError("--max-fe",
                                 "0 with no --max-frames nor --max-time would never stop a point");
  });
}

void add_decode_options(CLI::App& cmd, decode_options& o) {
  cmd.add_option("--backend", o.backend, "cpu, cuda, or auto (cuda when a GPU exists)")
      ->check(CLI::IsMember(names_of<gpufec::backend>()))
      ->capture_default_str();
  add_threads_option(cmd, o.threads);
  cmd.add_flag("--quiet", o.quiet,
               "no plan description, progress or summary on stderr (errors are still reported)");
}

// The bench backends: every backend name, and "all".
std::vector<std::string> bench_backends() {
  std::vector<std::string> names = names_of<gpufec::backend>();
  names.emplace_back("all");
  return names;
}

void add_bench_options(CLI::App& cmd, bench_options& o) {
  cmd.add_option("--backend", o.backend,
                 "cpu, cuda, auto, or all (cpu, and cuda when a GPU exists)")
      ->check(CLI::IsMember(bench_backends()))
      ->capture_default_str();
  cmd.add_option("--seed", o.seed, "seed of every random draw")
      ->check(unsigned_integer())
      ->capture_default_str();
  add_threads_option(cmd, o.threads);
  cmd.add_option("--json", o.json_path, "write the measurements to this JSON file");
}

// The first word naming a command or family that does not exist, e.g. "frobnicate" or the "foo"
// of `simulate foo`, which CLI11 reports only as a missing subcommand.
std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  std::string path = "gpufec";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return {};
    if (level->get_subcommands({}).empty()) return {};
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : level->get_subcommands({}))
      if (sub->get_name() == word) next = sub;
    if (!next) {
      std::string known;
      for (const CLI::App* sub : level->get_subcommands({}))
        known += (known.empty() ? "" : ", ") + sub->get_name();
      return "unknown " + std::string(level == &app ? "command" : "family") + " '" + word +
             "' for '" + path + "' (known: " + known + ")";
    }
    path += " " + word;
    level = next;
  }
  return {};
}

// CLI11's own wording, rewritten to name the option and say what to do: "--backend: At Most 1
// required but received 2" -> "--backend was given 2 times; give it once", and likewise a missing
// value, an unexpected word, a value of the wrong type, a name outside a set, and the first of
// several validators' complaints.
std::string readable_parse_error(const std::string& message) {
  auto starts = [&](std::string_view prefix) { return message.rfind(prefix, 0) == 0; };
  auto ends = [&](std::string_view suffix) {
    return message.size() >= suffix.size() &&
           message.compare(message.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  // "NAME: REST": the option CLI11 names first, and what it says of it.
  const std::size_t colon = message.find(": ");
  const std::string name = colon == std::string::npos ? std::string() : message.substr(0, colon);
  const std::string rest = colon == std::string::npos ? message : message.substr(colon + 2);
  const bool named = !name.empty() && name[0] == '-' && name.find(' ') == std::string::npos;
  constexpr std::string_view at_most = "At Most 1 required but received ";
  if (named && rest.rfind(at_most, 0) == 0)
    return name + " was given " + rest.substr(at_most.size()) + " times; give it once";
  if (named && ends(" missing") && rest.find(" required ") != std::string::npos)
    return name + " needs a value";
  for (const std::string_view unexpected :
       {"The following argument was not expected: ", "The following arguments were not expected: "})
    if (starts(unexpected)) {
      const std::string words = message.substr(unexpected.size());
      if (!words.empty() && words[0] == '-') return "unknown option '" + words + "'";
      return "unexpected argument '" + words +
             "' (options take one value each; lists are comma-separated)";
    }
  constexpr std::string_view conversion = "Could not convert: ";
  if (const std::size_t eq = message.find(" = "); starts(conversion) && eq != std::string::npos) {
    const std::string option = message.substr(conversion.size(), eq - conversion.size());
    const std::string value = message.substr(eq + 3);
    char* end = nullptr;
    (void)std::strtod(value.c_str(), &end);
    const bool number = !value.empty() && end == value.c_str() + value.size();
    return option + ": '" + value + "' is not " +
           (number ? "a whole number in decimal digits" : "a value it takes");
  }
  if (const std::size_t set = rest.find(" not in {");
      named && set != std::string::npos && ends("}")) {
    std::string names = rest.substr(set + 9, rest.size() - set - 10);
    for (std::size_t at = 0; (at = names.find(',', at)) != std::string::npos; at += 2)
      names.replace(at, 1, ", ");
    return name + ": '" + rest.substr(0, set) + "' is not one of " + names;
  }
  if (named && rest.size() > 2 && rest[0] == '(') {  // several validators: the first one's words
    const std::size_t close = rest.find(") AND (");
    if (close != std::string::npos) return name + ": " + rest.substr(1, close - 1);
  }
  if (const std::size_t ex = message.find(" excludes ");
      ex != std::string::npos && message[0] == '-' && message.find(' ') == ex)
    return message.substr(0, ex) + " and " + message.substr(ex + 10) +
           " exclude each other: give one of them";
  return message;
}

// The one line a failure prints on stderr ("gpufec: error: ...", "(see --help)" after a bad
// command line), also handed to an embedding; returns the exit status.
int report_failure(failure_kind kind, const std::string& message, int status,
                   bool see_help = true) {
  std::cerr << (kind == failure_kind::internal ? "gpufec: internal error: " : "gpufec: error: ")
            << message << (status == 2 && see_help ? " (see --help)" : "") << "\n";
  if (embedding* e = current_embedding()) e->failed(kind, message);
  return status;
}

// A one-line message for every parse error; help and version are not errors.
int report_parse_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (dynamic_cast<const CLI::CallForHelp*>(&e) || dynamic_cast<const CLI::CallForAllHelp*>(&e) ||
      dynamic_cast<const CLI::CallForVersion*>(&e))
    return app.exit(e);
  if (const std::string unknown = unknown_command(app, argc, argv); !unknown.empty())
    return report_failure(failure_kind::usage, unknown, 2, false);
  std::string message = e.what();
  for (char& c : message)
    if (c == '\n') c = ' ';
  return report_failure(failure_kind::usage, readable_parse_error(message), 2);
}

// Outside a sweep (which ends its point cleanly on a first Ctrl-C), an interrupt or a termination
// ends the program at once, leaving no temporary output file behind.
extern "C" void on_terminating_signal(int signal) {
  remove_temporary_files();
  _exit(128 + signal);
}

}  // namespace

int run_command_line(int argc, char** argv) {
  record_command_line(argc, argv);
  // An embedding (the Python package) keeps its own signal handlers and interrupts through its
  // flag instead.
  if (!current_embedding())
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal, on_terminating_signal);
  CLI::App app{"gpufec: fast channel decoders on the GPU, with an exact CPU reference", "gpufec"};
  app.footer(std::string(examples) + exit_statuses);
  app.set_version_flag("--version", get_build_info().version);
  app.require_subcommand(1);
  app.fallthrough(false);

  simulate_options sim_common;
  decode_options decode_common;
  encode_options encode_common;
  bench_options bench_common;
  info_options info_common;
  std::vector<std::pair<CLI::App*, action>> actions;

  CLI::App* simulate = app.add_subcommand("simulate", "Monte Carlo error-rate sweep of a family");
  CLI::App* decode = app.add_subcommand("decode", "decode received frames from a file");
  CLI::App* encode = app.add_subcommand("encode", "encode messages from a file into codewords");
  CLI::App* channel =
      app.add_subcommand("channel", "send frames from a file through a channel (seeded)");
  CLI::App* bench = app.add_subcommand("bench", "throughput of a family's decoders, CPU vs CUDA");
  CLI::App* info = app.add_subcommand(
      "info", "version, build options and CUDA devices; with a family, its code's facts");
  for (CLI::App* parent : {simulate, decode, encode, channel, bench}) {
    parent->require_subcommand(1);
    parent->footer(std::string(examples) + exit_statuses);
  }
  info->require_subcommand(0, 1);

  for (const family_commands& fam : registered_families()) {
    const std::string name(fam.name), summary(fam.summary);
    const std::string footer = std::string(fam.examples) + exit_statuses;
    auto add = [&](CLI::App* parent) {
      CLI::App* cmd = parent->add_subcommand(name, summary);
      cmd->footer(footer);
      return cmd;
    };
    if (fam.simulate) {
      CLI::App* cmd = add(simulate);
      add_simulate_options(*cmd, sim_common);
      actions.emplace_back(cmd, fam.simulate(*cmd, sim_common));
    }
    if (fam.decode) {
      CLI::App* cmd = add(decode);
      add_decode_options(*cmd, decode_common);
      actions.emplace_back(cmd, fam.decode(*cmd, decode_common));
    }
    if (fam.encode) {
      CLI::App* cmd = add(encode);
      add_threads_option(*cmd, encode_common.threads);
      actions.emplace_back(cmd, fam.encode(*cmd, encode_common));
    }
    if (fam.bench) {
      CLI::App* cmd = add(bench);
      add_bench_options(*cmd, bench_common);
      actions.emplace_back(cmd, fam.bench(*cmd, bench_common));
    }
    if (fam.info) {
      CLI::App* cmd = add(info);
      actions.emplace_back(cmd, fam.info(*cmd, info_common));
    }
  }
  add_channel_commands(*channel, actions);
  {
    CLI::App* cmd = bench->add_subcommand(
        "sim", "the simulation chain of every family against its decoder (Mb/s and ratio)");
    cmd->footer(
        std::string("\nExamples:\n  gpufec bench sim                       every workload, CPU "
                    "and (with a GPU) CUDA\n  gpufec bench sim --workloads conv-int8 --seconds 5 "
                    "--backend cpu --json sim.json\n") +
        exit_statuses);
    add_bench_options(*cmd, bench_common);
    actions.emplace_back(cmd, sim_bench_command(*cmd, bench_common));
  }

  if (argc <= 1) {  // a bare `gpufec`: its usage, and the status of a bad command line
    std::cerr << app.help();
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_parse_error(app, e, argc, argv);
  }

  try {
    for (const auto& [cmd, act] : actions)
      if (cmd->parsed()) {
        const int status = act();
        // Standard output is an output too: a table written into a full disk is an error (a run
        // a signal ended keeps its signal's status: its terminal may be gone).
        std::cout.flush();
        if (status == 0 && (std::cout.fail() || std::fflush(stdout) != 0 || std::ferror(stdout))) {
          return report_failure(failure_kind::runtime, "failed writing standard output", 1);
        }
        return status;
      }
    if (info->parsed()) return print_info();
    return report_failure(failure_kind::usage, "no command to run", 2);
  } catch (const usage_error& e) {
    return report_failure(failure_kind::usage, e.what(), 2);
  } catch (const out_of_memory& e) {
    return report_failure(failure_kind::memory, e.what(), 1);
  } catch (const invalid_argument& e) {
    return report_failure(
        dynamic_cast<const backend_unavailable*>(&e) ? failure_kind::runtime : failure_kind::value,
        e.what(), 1);
  } catch (const gpufec::error& e) {
    return report_failure(failure_kind::runtime, e.what(), 1);
  } catch (const std::bad_alloc&) {
    return report_failure(failure_kind::memory,
                          "out of memory (a request larger than this machine can hold; ask for "
                          "smaller frames or batches)",
                          1);
  } catch (const std::exception& e) {
    return report_failure(failure_kind::internal, e.what(), 1);
  }
}

}  // namespace gpufec::cli
