// `gpufec channel <bsid|awgn|bsc>`: frames from a file through a channel, seeded, so that `decode`
// can be fed real frames from the command line alone.
#pragma once

#include <utility>
#include <vector>

#include "family_registry.hpp"

namespace gpufec::cli {

void add_channel_commands(CLI::App& channel, std::vector<std::pair<CLI::App*, action>>& actions);

}  // namespace gpufec::cli
