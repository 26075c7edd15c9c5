// Codebook files (docs/formats.md, "Codebook files").
#include <cctype>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/sync/tvb_code.hpp"

namespace gpufec::sync {
namespace {

std::string strip_comment(const std::string& line) {
  const auto hash = line.find('#');
  return hash == std::string::npos ? line : line.substr(0, hash);
}

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> words;
  for (std::string w; is >> w;) words.push_back(w);
  return words;
}

// A decimal integer in [lo, hi], or -1.
long parse_int(const std::string& s, long lo, long hi) {
  if (s.empty() || s.size() > 9) return -1;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  const long v = std::stol(s);
  return v >= lo && v <= hi ? v : -1;
}

// FNV-1a, 64 bits: a content fingerprint for reports, not a cryptographic hash.
std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

code_file parse_code_file(const std::string& text, const std::string& source_name) {
  std::istringstream in(text);
  std::string raw;
  long lineno = 0;
  int q = -1, n = -1, N = 0;  // N: the optional header's positions (0: not given)
  std::vector<codebook> books;
  std::vector<long> section_line;             // where each codebook section starts
  std::unordered_map<std::string, int> seen;  // codewords of the current codebook
  auto fail = [&](long line, auto&&... what) {
    throw format_error(cat(source_name, ":", line, ": ", what...));
  };
  auto close_section = [&](long line) {
    if (books.empty()) return;
    const codebook& cb = books.back();
    const auto have = cb.symbols.size() / static_cast<std::size_t>(n);
    if (have != static_cast<std::size_t>(q))
      fail(line, "codebook ", books.size() - 1, " (from line ", section_line.back(), ") has ", have,
           " codewords, expected q = ", q);
  };
  bool any_content = false;
  std::vector<std::uint8_t> marker;
  long marker_line = 0;  // where the marker section starts (0: none yet)
  while (std::getline(in, raw)) {
    ++lineno;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const auto words = split_words(strip_comment(raw));
    if (words.empty()) continue;
    any_content = true;
    const std::string& key = words[0];
    if (key == "q" || key == "n" || key == "N") {
      if (!books.empty()) fail(lineno, "header line '", key, "' after the first codebook");
      if (words.size() < 2) fail(lineno, "missing value for '", key, "'");
      if (words.size() > 2)
        fail(lineno, "trailing garbage after '", key, " ", words[1], "': '", words[2], "'");
      if (key == "q") {
        if (q != -1) fail(lineno, "duplicate header line 'q'");
        q = static_cast<int>(parse_int(words[1], 2, 1L << 30));
        if (q < 0) fail(lineno, "invalid header: q = '", words[1], "' (an integer >= 2 is needed)");
      } else if (key == "n") {
        if (n != -1) fail(lineno, "duplicate header line 'n'");
        n = static_cast<int>(parse_int(words[1], 1, 32));
        if (n < 0) fail(lineno, "invalid header: n = '", words[1], "' (an integer in [1, 32])");
      } else {
        if (N != 0) fail(lineno, "duplicate header line 'N'");
        N = static_cast<int>(parse_int(words[1], 1, 1L << 24));
        if (N < 0) fail(lineno, "invalid header: N = '", words[1], "' (an integer in [1, 2^24])");
      }
      continue;
    }
    if (q < 0 || n < 0)
      fail(lineno, "missing header: expected 'q <value>' and 'n <value>' before '", key, "'");
    if (n < 31 && q > (1L << n))
      fail(lineno, "invalid header: q = ", q, " exceeds 2^n = ", 1L << n, " (n = ", n, ")");
    if (key == "marker") {
      if (words.size() != 1) fail(lineno, "trailing garbage after 'marker': '", words[1], "'");
      if (marker_line)
        fail(lineno, "a second 'marker' section (the first at line ", marker_line, ")");
      if (books.empty()) fail(lineno, "'marker' before the first 'codebook' section");
      close_section(lineno);
      marker_line = lineno;
      continue;
    }
    if (key == "codebook") {
      if (marker_line) fail(lineno, "'codebook' after the marker section (line ", marker_line, ")");
      if (words.size() != 1) fail(lineno, "trailing garbage after 'codebook': '", words[1], "'");
      close_section(lineno);
      books.push_back(codebook{q, n, {}});
      books.back().symbols.reserve(static_cast<std::size_t>(q) * static_cast<std::size_t>(n));
      section_line.push_back(lineno);
      seen.clear();
      continue;
    }
    if (marker_line) {  // marker symbols: '0'/'1', any number per line, spaces ignored
      for (char c : strip_comment(raw)) {
        if (c == ' ' || c == '\t') continue;
        if (c != '0' && c != '1')
          fail(lineno, "bad symbol '", c, "' in the marker (expected 0 or 1)");
        marker.push_back(static_cast<std::uint8_t>(c - '0'));
      }
      continue;
    }
    // A codeword: '0'/'1' symbols, spaces ignored.
    if (books.empty())
      fail(lineno, "codeword before the first 'codebook' line (or unknown keyword '", key, "')");
    std::string word;
    for (char c : strip_comment(raw)) {
      if (c == ' ' || c == '\t') continue;
      if (c != '0' && c != '1') fail(lineno, "bad symbol '", c, "' in codeword (expected 0 or 1)");
      word += c;
    }
    if (word.size() != static_cast<std::size_t>(n))
      fail(lineno, "codeword has ", word.size(), " symbols, expected n = ", n);
    codebook& cb = books.back();
    const auto index = static_cast<int>(cb.symbols.size() / static_cast<std::size_t>(n));
    if (index >= q)
      fail(lineno, "codebook ", books.size() - 1, " (from line ", section_line.back(),
           ") has more than q = ", q, " codewords");
    const auto [it, fresh] = seen.emplace(word, index);
    if (!fresh)
      fail(lineno, "codebook ", books.size() - 1, ": codewords ", it->second, " and ", index,
           " are equal (", word, ")");
    for (char c : word) cb.symbols.push_back(static_cast<std::uint8_t>(c - '0'));
  }
  if (!any_content) fail(lineno, "empty codebook file (no header, no codebook)");
  if (q < 0 || n < 0) fail(lineno, "missing header: expected 'q <value>' and 'n <value>'");
  if (books.empty()) fail(lineno, "no 'codebook' section");
  if (marker_line) {
    if (marker.empty()) fail(lineno, "empty marker section (from line ", marker_line, ")");
    if (marker.size() % static_cast<std::size_t>(n) != 0)
      fail(lineno, "the marker has ", marker.size(), " symbols, not a multiple of n = ", n);
  } else {
    close_section(lineno);
  }
  if (N) {
    if (books.size() > static_cast<std::size_t>(N))
      fail(lineno, books.size(), " codebooks for N = ", N,
           " positions (the header): a code uses at most one codebook per position");
    if (!marker.empty() && marker.size() != static_cast<std::size_t>(N) * n)
      fail(lineno, "the marker has ", marker.size(), " symbols, but N = ", N,
           " positions of n = ", n, " need ", static_cast<long>(N) * n);
  }
  return {std::move(books), std::move(marker), fnv1a64(text), N};
}

std::string code_file::positions_source() const {
  if (header_positions) return "its N header";
  if (!marker.empty()) return cat("its marker of ", marker.size(), " symbols");
  return cat("its ", codebooks.size(), " codebooks, one per position");
}

std::vector<codebook> parse_codebooks(const std::string& text, const std::string& source_name) {
  return parse_code_file(text, source_name).codebooks;
}

code_file read_code_file(const std::string& path) {
  std::string bytes;
  try {
    bytes = read_input(path);
  } catch (const format_error& e) {
    throw format_error(cat(path, ": cannot open codebook file (", e.what(), ")"));
  }
  return parse_code_file(std::string(as_text(bytes, path)), path);
}

std::vector<codebook> read_codebook_file(const std::string& path) {
  return read_code_file(path).codebooks;
}

void write_codebook_file(const std::string& path, const std::vector<codebook>& codebooks) {
  write_code_file(path, codebooks, {}, 0);
}

void write_code_file(const std::string& path, const std::vector<codebook>& codebooks,
                     const std::vector<std::uint8_t>& marker, int positions) {
  require(!codebooks.empty(), "write_codebook_file: no codebook to write");
  const int q = codebooks[0].q, n = codebooks[0].n;
  require(q >= 2 && n >= 1 && n <= 32, "write_codebook_file: q = ", q, ", n = ", n, " are invalid");
  for (std::size_t c = 0; c < codebooks.size(); ++c) {
    const codebook& cb = codebooks[c];
    require(cb.q == q && cb.n == n, "write_codebook_file: codebook ", c, " has q = ", cb.q,
            ", n = ", cb.n, " but codebook 0 has q = ", q, ", n = ", n);
    require(cb.symbols.size() == static_cast<std::size_t>(q) * static_cast<std::size_t>(n),
            "write_codebook_file: codebook ", c, " holds ", cb.symbols.size(),
            " symbols, expected q*n = ", static_cast<long>(q) * n);
    for (std::size_t k = 0; k < cb.symbols.size(); ++k)
      require(cb.symbols[k] <= 1, "write_codebook_file: codebook ", c, ", codeword ", k / n,
              " has symbol ", int{cb.symbols[k]}, " (only binary codebooks can be written)");
  }
  std::ostringstream os;
  os << "# gpufec codebook file: " << codebooks.size() << " codebook(s) of q = " << q
     << " codewords of n = " << n << " symbols\n";
  os << "q " << q << "\nn " << n << "\n";
  if (positions > 0) {
    require(codebooks.size() <= static_cast<std::size_t>(positions),
            "write_code_file: ", codebooks.size(), " codebooks for N = ", positions, " positions");
    os << "N " << positions << "  # positions: codebook i mod " << codebooks.size()
       << " at position i\n";
  }
  for (std::size_t c = 0; c < codebooks.size(); ++c) {
    os << "codebook  # " << c << "\n";
    for (int D = 0; D < q; ++D) {
      for (int b = 0; b < n; ++b)
        os << static_cast<char>('0' + codebooks[c].symbols[static_cast<std::size_t>(D) * n + b]);
      os << "\n";
    }
  }
  if (!marker.empty()) {
    require(marker.size() % static_cast<std::size_t>(n) == 0, "write_code_file: a marker of ",
            marker.size(), " symbols is not a multiple of n = ", n);
    os << "marker  # " << marker.size() << " symbols, " << marker.size() / n << " codewords\n";
    for (std::size_t k = 0; k < marker.size(); ++k) {
      require(marker[k] <= 1, "write_code_file: marker symbol ", k, " is ", int{marker[k]});
      os << static_cast<char>('0' + marker[k]);
      if ((k + 1) % static_cast<std::size_t>(n) == 0) os << (k + 1 == marker.size() ? "\n" : " ");
      if ((k + 1) % (8 * static_cast<std::size_t>(n)) == 0 && k + 1 < marker.size()) os << "\n";
    }
  }
  write_file(path, os.str());
}

}  // namespace gpufec::sync
