// `bench sim`, beside the families' `bench <family>` commands: not a family of its own, the
// chains of all of them.
#pragma once

#include <CLI/CLI.hpp>

#include "family_registry.hpp"

namespace gpufec::cli {

action sim_bench_command(CLI::App& cmd, const bench_options& common);

}  // namespace gpufec::cli
