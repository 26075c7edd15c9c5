// Where a plan executes. `automatic` resolves to cuda when a CUDA device is usable, else cpu.
#pragma once

#include <string>

namespace gpufec {

enum class backend { cpu, cuda, automatic };

// "cpu", "cuda", "auto" <-> backend; parse throws invalid_argument naming the value.
backend parse_backend(const std::string& name);
std::string to_string(backend b);
// Resolves `automatic`; a request for cuda without a device throws invalid_argument saying why.
backend resolve_backend(backend requested);

}  // namespace gpufec
