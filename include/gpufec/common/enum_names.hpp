// One table per enum maps its values to the names users type and read (CLI options, JSON, the
// describe() text), so a name is written once: the parser, the help text, the error message that
// lists the allowed values and to_string() all come from it.
//
//   template <> struct gpufec::enum_names<conv::termination> {
//     static constexpr std::array entries{enum_entry{conv::termination::zero_tail, "zero"}, ...};
//   };
//   name_of(conv::termination::zero_tail) == "zero";
//   parse_name<conv::termination>("trunc", "--term") -> truncated, or invalid_argument
//   "unknown --term 'x' (expected zero, trunc or tailbiting)".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpufec/common/error.hpp"

namespace gpufec {

template <class E>
struct enum_entry {
  E value;
  std::string_view name;
};

// Specialize with `static constexpr std::array entries{enum_entry{...}, ...};`.
template <class E>
struct enum_names;

template <class E>
concept named_enum = requires {
  enum_names<E>::entries;
};

template <named_enum E>
constexpr std::string_view name_of(E value) {
  for (const auto& e : enum_names<E>::entries)
    if (e.value == value) return e.name;
  return "?";
}

template <named_enum E>
std::vector<std::string> names_of() {
  std::vector<std::string> out;
  for (const auto& e : enum_names<E>::entries) out.emplace_back(e.name);
  return out;
}

// "a, b or c": the allowed names, for messages.
template <named_enum E>
std::string allowed_names() {
  std::string out;
  const auto& entries = enum_names<E>::entries;
  for (std::size_t k = 0; k < entries.size(); ++k)
    out += cat(k == 0 ? "" : k + 1 == entries.size() ? " or " : ", ", entries[k].name);
  return out;
}

// The value named `text`; `what` names the option or field in the error ("--storage").
template <named_enum E>
E parse_name(std::string_view text, std::string_view what) {
  for (const auto& e : enum_names<E>::entries)
    if (e.name == text) return e.value;
  throw invalid_argument(
      cat("unknown ", what, " '", text, "' (expected ", allowed_names<E>(), ")"));
}

}  // namespace gpufec
