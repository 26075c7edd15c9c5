// Where a plan or chain runs. Chosen at run time (never by #ifdef), so one binary can run and
// compare both. `automatic` resolves to cuda when a CUDA device is usable, else cpu.
#pragma once

#include <string>
#include <string_view>

namespace gpufec {

enum class backend { cpu, cuda, automatic };

// "cpu", "cuda" or "auto"; "auto" is resolved at once (cuda when a CUDA device exists, else cpu).
// Anything else throws invalid_argument naming the value.
backend parse_backend(std::string_view name);
std::string to_string(backend b);
// Resolves `automatic`; a request for cuda without CUDA or a device throws invalid_argument saying
// which is missing.
backend resolve_backend(backend requested);

}  // namespace gpufec
