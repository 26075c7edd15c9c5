// One exception hierarchy for the whole library. Every message names the offending parameter and
// its value, so a user reading a CLI error knows what to change without opening the source.
#pragma once

#include <charconv>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace gpufec {

class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A parameter, option or size that is impossible or out of range.
class invalid_argument : public error {
 public:
  using error::error;
};
// A file or stream that is truncated, corrupt or not in the expected format.
class format_error : public error {
 public:
  using error::error;
};
// An allocation (host or device) that could not be satisfied.
class out_of_memory : public error {
 public:
  using error::error;
};
// A backend that cannot run here: CUDA not compiled into this build, or no CUDA device. Thrown by
// the one check every CUDA path goes through (src/common/backend_registry.hpp).
class backend_unavailable : public invalid_argument {
 public:
  using invalid_argument::invalid_argument;
};
// A CUDA runtime failure: what failed and CUDA's own words, the source place last (for a report).
class cuda_error : public error {
 public:
  using error::error;
};
// A received frame the decoder cannot decode by construction (e.g. its length is outside the
// drift limits); the simulator counts these as undecodable frames instead of stopping.
class undecodable_error : public error {
 public:
  using error::error;
};

namespace detail {
// Writes one part of a message; floating-point values in their shortest form that reads back
// exactly ("0.6", not "0.59999999999999998"), so a message quotes what the user typed.
template <class T>
void put_message_part(std::ostringstream& os, const T& value) {
  if constexpr (std::is_floating_point_v<T>) {
    char text[64];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    os.write(text, end - text);
  } else {
    os << value;
  }
}
}  // namespace detail

// Concatenates anything streamable into a message.
template <class... Args>
std::string cat(Args&&... args) {
  std::ostringstream os;
  (detail::put_message_part(os, args), ...);
  return os.str();
}

template <class Exception = invalid_argument, class... Args>
void require(bool ok, Args&&... message) {
  if (!ok) throw Exception(cat(std::forward<Args>(message)...));
}

}  // namespace gpufec
