// Files of real samples (received BPSK samples or LLRs) for `gpufec decode` (files of bits:
// bit_file.hpp).
//
// Text: numbers separated by whitespace or commas, '#' starts a comment to the end of the line
// (comments may hold any UTF-8; a leading byte order mark is skipped). f32: raw IEEE-754 binary32
// in this machine's byte order (little-endian on x86 and ARM hosts), asked for explicitly. i8: raw
// signed bytes (-128..127), one sample each, asked for explicitly. Auto reads text: a file that is
// not text (a NUL or another control byte, invalid UTF-8) is an error that says to give f32 or
// i8, never a guess. "-" reads standard input.
// Every reader rejects an empty file, a NaN or infinity, and a truncated f32 file with a
// format_error naming the file and the place (line, or sample and byte offset).
//
// read_samples() reads a whole file; sample_reader reads one in chunks, in memory bounded by the
// chunk, for inputs larger than memory (`gpufec decode conv` in stream mode).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpufec/common/enum_names.hpp"

namespace gpufec {

enum class sample_format { automatic, text, f32, i8 };
sample_format parse_sample_format(std::string_view name);  // "auto", "text", "f32", "i8"

std::vector<float> read_samples(const std::string& path, sample_format format);

// The samples of a file in frames: a text file's frames are its lines (a line holding no sample,
// blank or a comment, is none); a raw file (f32, i8) has no lines: one frame of every sample.
struct sample_frames {
  std::vector<float> samples;
  std::vector<std::size_t> lengths;  // samples per frame, in order, summing to samples.size()
};
sample_frames read_sample_frames(const std::string& path, sample_format format);

class sample_reader {
 public:
  // Opens `path` ("-": standard input); throws format_error naming it when it is missing, a
  // directory, empty, or (a regular file) a truncated f32 file.
  sample_reader(const std::string& path, sample_format format);
  ~sample_reader();
  sample_reader(sample_reader&&) noexcept;
  sample_reader& operator=(sample_reader&&) noexcept;

  // Replaces the contents of `out` with the next samples, at most `max` (>= 1) of them, fewer
  // only at the end; returns how many, 0 at the end. Throws format_error naming the file and the
  // place for a bad sample, and at the end for a file with no sample or a truncated f32 file.
  std::size_t read(std::vector<float>& out, std::size_t max);
  // The same for an i8 file, keeping the raw values (throws invalid_argument for other formats).
  std::size_t read(std::vector<std::int8_t>& out, std::size_t max);

  const std::string& path() const;
  const std::string& name() const;  // for messages: the path, or "standard input" for "-"
  sample_format format() const;
  std::uint64_t samples_read() const;
  // Text: the line (from 1) the reader is on, the last sample's line right after a read of one
  // sample (a number never spans lines); raw formats: 1.
  std::uint64_t line() const;
  std::uint64_t bytes_read() const;  // bytes of the file consumed so far
  std::int64_t size() const;         // bytes of a regular file, -1 when not known (a pipe)

 private:
  class impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace gpufec

template <>
struct gpufec::enum_names<gpufec::sample_format> {
  using E = sample_format;
  static constexpr std::array entries{enum_entry{E::automatic, "auto"}, enum_entry{E::text, "text"},
                                      enum_entry{E::f32, "f32"}, enum_entry{E::i8, "i8"}};
};
