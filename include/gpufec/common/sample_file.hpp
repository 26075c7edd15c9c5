// Files of real samples (received BPSK samples or LLRs) for `gpufec decode`, and of decided bits.
//
// Text: numbers separated by whitespace or commas, '#' starts a comment to the end of the line
// (comments may hold any UTF-8; a leading byte order mark is skipped). f32: raw IEEE-754 binary32
// in this machine's byte order (little-endian on x86 and ARM hosts), asked for explicitly. Auto
// reads text: a file that is not text (a NUL or another control byte, invalid UTF-8) is an error
// that says to give f32, never a guess. "-" reads standard input.
// Every reader rejects an empty file, a NaN or infinity, and a truncated f32 file with a
// format_error naming the file and the place.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpufec/common/enum_names.hpp"

namespace gpufec {

enum class sample_format { automatic, text, f32 };
sample_format parse_sample_format(std::string_view name);  // "auto", "text", "f32"

std::vector<float> read_samples(const std::string& path, sample_format format);

enum class bits_format { text, packed };
bits_format parse_bits_format(std::string_view name);  // "text", "packed"

// text: '0'/'1' characters, `per_line` bits per line (0 = all on one line), newline-terminated.
// packed: pack_bits (MSB first), the last byte padded with zeros. Written through an output_file
// (gpufec/common/files.hpp): complete or not at all; "-" writes standard output.
void write_bits(const std::string& path, std::span<const std::uint8_t> bits, bits_format format,
                std::size_t per_line = 0);

}  // namespace gpufec

template <>
struct gpufec::enum_names<gpufec::sample_format> {
  using E = sample_format;
  static constexpr std::array entries{enum_entry{E::automatic, "auto"}, enum_entry{E::text, "text"},
                                      enum_entry{E::f32, "f32"}};
};
template <>
struct gpufec::enum_names<gpufec::bits_format> {
  using E = bits_format;
  static constexpr std::array entries{enum_entry{E::text, "text"}, enum_entry{E::packed, "packed"}};
};
