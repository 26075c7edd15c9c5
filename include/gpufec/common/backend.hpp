// Where a chain or a decoder runs. Chosen at run time (never by #ifdef), so one binary can run and
// compare both.
#pragma once

#include <string>
#include <string_view>

namespace gpufec {

enum class backend { cpu, cuda };

// "cpu", "cuda" or "auto" (cuda when a CUDA device exists, else cpu); anything else throws
// invalid_argument naming the value.
backend parse_backend(std::string_view name);
std::string to_string(backend b);

}  // namespace gpufec
