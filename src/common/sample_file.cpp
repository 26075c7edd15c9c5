#include "gpufec/common/sample_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "gpufec/common/bits.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"

namespace gpufec {

sample_format parse_sample_format(std::string_view name) {
  return parse_name<sample_format>(name, "sample format");
}

bits_format parse_bits_format(std::string_view name) {
  return parse_name<bits_format>(name, "bits format");
}

namespace {

std::vector<float> parse_text(const std::string& path, std::string_view bytes) {
  std::vector<float> out;
  std::size_t line = 1, pos = 0;
  while (pos < bytes.size()) {
    const char c = bytes[pos];
    if (c == '\n') ++line;
    if (c == '#') {
      while (pos < bytes.size() && bytes[pos] != '\n') ++pos;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',') {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < bytes.size() && !std::strchr(" \t\r\n,#", bytes[end])) ++end;
    const std::string token(bytes.substr(pos, end - pos));
    char* stop = nullptr;
    errno = 0;
    const double v = std::strtod(token.c_str(), &stop);
    require<format_error>(stop == token.c_str() + token.size(), path, ":", line, ": '", token,
                          "' is not a number");
    require<format_error>(std::isfinite(v) && std::isfinite(static_cast<float>(v)), path, ":", line,
                          ": sample ", out.size(), " is not finite ('", token, "')");
    out.push_back(static_cast<float>(v));
    pos = end;
  }
  return out;
}

std::vector<float> parse_f32(const std::string& path, const std::string& bytes) {
  require<format_error>(bytes.size() % sizeof(float) == 0, path, ": truncated f32 file (",
                        bytes.size(), " bytes is not a multiple of 4)");
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    require<format_error>(std::isfinite(out[i]), path, ": sample ", i, " (byte offset ",
                          i * sizeof(float), ") is not finite (", out[i], ")");
  return out;
}

}  // namespace

std::vector<float> read_samples(const std::string& path, sample_format format) {
  const std::string bytes = read_input(path);
  require<format_error>(!bytes.empty(), path, ": empty file (no samples)");
  // Text unless asked for raw float32: a file of floats is never guessed from its bytes (a UTF-8
  // comment looks like binary to a byte test, and some float files look like text).
  std::vector<float> out =
      format == sample_format::f32
          ? parse_f32(path, bytes)
          : parse_text(path,
                       as_text(bytes, path, "for raw float32 samples give --input-format f32"));
  require<format_error>(!out.empty(), path, ": no samples in the file");
  return out;
}

void write_bits(const std::string& path, std::span<const std::uint8_t> bits, bits_format format,
                std::size_t per_line) {
  output_file out(path);
  if (format == bits_format::packed) {
    const std::vector<std::uint8_t> packed = pack_bits(bits);
    out.write(std::string_view(reinterpret_cast<const char*>(packed.data()), packed.size()));
  } else {
    std::string text;
    text.reserve(bits.size() + bits.size() / (per_line ? per_line : bits.size() + 1) + 1);
    for (std::size_t i = 0; i < bits.size(); ++i) {
      text += bits[i] ? '1' : '0';
      if (per_line && (i + 1) % per_line == 0) text += '\n';
    }
    if (text.empty() || text.back() != '\n') text += '\n';
    out.write(text);
  }
  out.commit();
}

}  // namespace gpufec
