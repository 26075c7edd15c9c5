// Where a plan or chain runs. Chosen at run time (never by #ifdef), so one binary can run and
// compare both. `automatic` resolves to cuda when a CUDA device is usable, else cpu.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "gpufec/common/enum_names.hpp"

namespace gpufec {

enum class backend { cpu, cuda, automatic };

template <>
struct enum_names<backend> {
  static constexpr std::array entries{enum_entry{backend::cpu, "cpu"},
                                      enum_entry{backend::cuda, "cuda"},
                                      enum_entry{backend::automatic, "auto"}};
};

// "cpu", "cuda" or "auto"; "auto" is resolved at once (cuda when a CUDA device exists, else cpu).
// Anything else throws invalid_argument naming the value.
backend parse_backend(std::string_view name);
std::string to_string(backend b);
// Resolves `automatic`; a request for cuda without CUDA compiled or without a device throws
// backend_unavailable saying which is missing (the one check: src/common/backend_registry.hpp).
backend resolve_backend(backend requested);

// Where a plan runs and, when it was asked for `automatic`, why (empty for a named backend). Every
// family's choose_backend(options, requested) returns one: automatic is CUDA when a device is
// usable and the request can run there, else the CPU.
struct backend_choice {
  backend where = backend::cpu;
  std::string reason;
};
// `automatic` where the request could run on either: CUDA when a device is usable ("a CUDA
// device"), else the CPU with what is missing ("no CUDA device", "built without CUDA"). A named
// backend is returned as it is (cuda checked by the plan that needs it).
backend_choice choose_device_backend(backend requested);

}  // namespace gpufec
