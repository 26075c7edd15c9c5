// The frozen-set file (gpufec/polar/polar_code.hpp, docs/polar.md): parsing its text, with every
// defect named by its line, and reading it as every gpufec input is read (files.hpp: a missing
// file, a directory, a binary file or standard input named in the message).
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/polar/polar_code.hpp"

namespace gpufec::polar {

frozen_set_file parse_frozen_set_file(std::string_view text, std::string_view source) {
  frozen_set_file file;
  std::istringstream in{std::string(text)};
  std::string line, word;
  std::size_t line_number = 0;
  bool set_named = false;
  // A header value: a decimal integer in [1, 2^20].
  auto header = [&](std::istringstream& words, const char* key) {
    std::string value, extra;
    if (!(words >> value))
      throw format_error(cat(source, " line ", line_number, ": missing value for '", key, "'"));
    if (words >> extra)
      throw format_error(cat(source, " line ", line_number, ": trailing garbage after '", key, " ",
                             value, "': '", extra, "'"));
    char* end = nullptr;
    const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
    if (value[0] == '-' || value[0] == '+' || end != value.c_str() + value.size() || v < 1 ||
        v > (1u << 20))
      throw format_error(cat(source, " line ", line_number, ": '", key, " ", value,
                             "' is not a length in [1, 2^20]"));
    return static_cast<std::uint32_t>(v);
  };
  while (std::getline(in, line)) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream words(line);
    while (words >> word) {
      if (file.indices.empty() && !set_named && (word == "N" || word == "K")) {
        std::uint32_t& slot = word == "N" ? file.N : file.K;
        if (slot)
          throw format_error(cat(source, " line ", line_number, ": duplicate '", word, "' line"));
        slot = header(words, word == "N" ? "N" : "K");
        break;
      }
      if (file.indices.empty() && !set_named && (word == "frozen" || word == "info")) {
        file.which = word == "frozen" ? index_set::frozen : index_set::info;
        set_named = true;
        continue;
      }
      char* end = nullptr;
      const unsigned long long v = std::strtoull(word.c_str(), &end, 10);
      if (word[0] == '-' || word[0] == '+' || end != word.c_str() + word.size() || v > (1u << 20))
        throw format_error(cat(source, " line ", line_number, ": '", word,
                               "' is not an index (a number in [0, N)",
                               file.N ? cat(" = [0, ", file.N, ")") : std::string(), ")"));
      file.indices.push_back(static_cast<std::uint32_t>(v));
      file.lines.push_back(line_number);
    }
  }
  if (file.N && file.K && file.K > file.N)
    throw format_error(cat(source, ": K = ", file.K, " exceeds N = ", file.N));
  return file;
}

std::uint32_t frozen_set_file::implied_K(std::uint32_t length) const {
  if (K) return K;
  if (which == index_set::info) return static_cast<std::uint32_t>(indices.size());
  return indices.size() < length ? length - static_cast<std::uint32_t>(indices.size()) : 0;
}

frozen_set_file read_frozen_set_file(const std::string& path) {
  const std::string name = path == "-" ? "standard input" : path;
  const std::string bytes = read_input(path);
  return parse_frozen_set_file(as_text(bytes, name, "a frozen-set file is text"), name);
}

}  // namespace gpufec::polar
