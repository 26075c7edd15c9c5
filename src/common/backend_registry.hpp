// The CUDA backends register themselves: each CUDA translation unit that implements a family's
// engine (or the device queries) sets its entry's factory at static initialization, so the
// backend-neutral code never names a CUDA symbol and needs no stand-in file when CUDA is off.
// Whether a CUDA path can run is decided in one function, cuda_factory(), with one error type:
//
//   struct sync_engine_entry { using factory = std::unique_ptr<engine> (*)(const plan&); };
//   // in the .cu file:
//   const register_cuda_backend<sync_engine_entry> registered{&make_cuda_engine};
//   // in the plan:
//   auto make = cuda_factory<sync_engine_entry>("the CUDA sync decoder");  // or throws
//
// The library is linked as an object library (CMakeLists.txt), so every registering object is in
// every program and no linker drops one.
#pragma once

#include <string_view>

namespace gpufec {

namespace detail {
template <class Entry>
struct cuda_slot {
  static inline typename Entry::factory factory = nullptr;  // constant-initialized
};
void mark_cuda_compiled();
}  // namespace detail

// True when this program holds CUDA code (any backend registered).
bool cuda_compiled();

// Throws backend_unavailable naming `who` and what is missing: CUDA not compiled into this build,
// or no usable CUDA device.
void require_cuda(std::string_view who);

// The factory of `Entry` once require_cuda(who) passed; throws backend_unavailable if this build
// has CUDA but not this entry (cannot happen in gpufec's own builds: a guard, not a mode).
template <class Entry>
typename Entry::factory cuda_factory(std::string_view who);

// Factories that need no device (the device queries themselves): null without CUDA.
template <class Entry>
typename Entry::factory cuda_factory_or_null() {
  return detail::cuda_slot<Entry>::factory;
}

template <class Entry>
struct register_cuda_backend {
  explicit register_cuda_backend(typename Entry::factory f) {
    detail::cuda_slot<Entry>::factory = f;
    detail::mark_cuda_compiled();
  }
};

void throw_entry_missing(std::string_view who);

template <class Entry>
typename Entry::factory cuda_factory(std::string_view who) {
  require_cuda(who);
  const auto f = detail::cuda_slot<Entry>::factory;
  if (!f) throw_entry_missing(who);
  return f;
}

}  // namespace gpufec
