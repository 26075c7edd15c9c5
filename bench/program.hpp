// The frame every benchmark program shares: `--quick`, `--json FILE` and the program's own
// options; a bad command line exits with status 2, the JSON file is opened before any work (a bad
// path fails at once and nothing is left half-written), a failure exits with status 1.
#pragma once

#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gpufec/common/device.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/provenance.hpp"

namespace gpufec::bench {

struct program_options {
  bool quick = false;
  std::string json_path;
};

// What a program's own option parser throws for a bad value ("--ebn0 'x' is not a finite number").
struct bad_option : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses the command line (`own(flag, value)` returns true when it took a flag and its value),
// then runs `body(options)`, which prints its table and returns the JSON document.
template <class Own, class Body>
int run_program(int argc, char** argv, std::string_view name, std::string_view usage, Own&& own,
                Body&& body) {
  record_command_line(argc, argv);
  const double started = seconds_since_epoch();
  program_options options;
  try {
    for (int a = 1; a < argc; ++a) {
      const std::string_view flag = argv[a];
      if (flag == "--quick") {
        options.quick = true;
      } else if (a + 1 < argc && flag == "--json") {
        options.json_path = argv[++a];
      } else if (a + 1 < argc && own(flag, std::string_view(argv[a + 1]))) {
        ++a;
      } else {
        std::cerr << "usage: " << name << " " << usage << "\n";
        return 2;
      }
    }
  } catch (const bad_option& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 2;
  }
  try {
    output_file json;
    if (!options.json_path.empty()) json = output_file(options.json_path);
    nlohmann::json document = body(options);
    // Where the figures come from (a GPU when one is present: the programs run their CUDA rows
    // then).
    document["provenance"] = provenance(started, cuda_device_count() > 0);
    if (json) {
      json.write(document.dump(2) + "\n");
      json.commit();
    }
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}

// For programs with no options of their own.
inline bool no_own_options(std::string_view, std::string_view) {
  return false;
}

}  // namespace gpufec::bench
