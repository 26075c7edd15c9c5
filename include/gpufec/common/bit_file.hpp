// Files of bits (hard decisions, information bits, codewords, received binary frames), one meaning
// of each format for every family and command.
//
// text: '0'/'1' characters, a frame per line. Spaces, tabs and '\r' are ignored, '#' starts a
// comment to the end of the line (any UTF-8), a line holding no bit holds no frame, a leading UTF-8
// byte order mark is skipped. A file that is not text is an error that says to give packed or
// framed, never a guess.
// packed: the bits back to back, 8 per byte, most significant bit first, no framing; only the last
// byte is padded with zero bits. It has no frames of its own: a reader gives the frame length.
// framed: the GPFSYNC1 container of docs/formats.md: the magic, then per frame a little-endian
// uint64 bit count and ceil(count / 8) bytes, MSB first, the last byte zero-padded.
// auto (inputs only): framed when the file starts with the magic, else text. Packed is never
// guessed, and a packed input that starts with the magic is refused: its header read as data would
// be a wrong answer, not an error.
// Every reader throws format_error naming the file and the place (text: the line; framed: the frame
// and the byte offset) and refuses a file with no bit. "-" reads standard input, writes stdout.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpufec/common/batch.hpp"
#include "gpufec/common/enum_names.hpp"

namespace gpufec {

class output_file;

enum class bit_format { automatic, text, packed, framed };

// The first bytes of a framed file.
inline constexpr std::string_view framed_magic{"GPFSYNC1", 8};
// The bytes a bit_reader reads and a bit_writer buffers at a time.
inline constexpr std::size_t bit_file_chunk_bytes = std::size_t{1} << 16;

// The frames of a whole file. frame_bits 0: frames as the file delimits them (text: its lines;
// framed: its frames; packed: one frame of every bit, 8 per byte). frame_bits F > 0: frames of
// exactly F bits: a text line holds one or more whole frames, a framed frame holds F bits, a packed
// file holds whole frames and at most its last byte's padding (fewer than 8 zero bits).
batch<std::uint8_t> read_bit_frames(const std::string& path, bit_format format,
                                    std::size_t frame_bits = 0);
// The same for the bytes of a file already read (e.g. by read_input); messages name `name` as
// given.
batch<std::uint8_t> parse_bit_frames(std::string_view bytes, const std::string& name,
                                     bit_format format, std::size_t frame_bits = 0);
// Every bit of a whole file in file order, frames concatenated (text: line ends ignored).
std::vector<std::uint8_t> read_bit_stream(const std::string& path, bit_format format);

// A file read in chunks, in memory bounded by the chunk, for streams larger than memory: every bit
// in file order (framed: the frames' bits concatenated). Messages name the file as
// input_file::name() does.
class bit_reader {
 public:
  // Opens `path` and peeks at its first bytes (auto picks the format; packed refuses the magic);
  // throws format_error naming it when it is missing, a directory or unreadable.
  bit_reader(const std::string& path, bit_format format);
  ~bit_reader();
  bit_reader(bit_reader&&) noexcept;
  bit_reader& operator=(bit_reader&&) noexcept;

  // Replaces `out` with the next bits (0/1), at most `max` (>= 1), fewer only at the end; returns
  // how many, 0 at the end. Throws format_error naming the file and the place for a malformed file,
  // and at the end for an empty file or one with no bit.
  std::size_t read(std::vector<std::uint8_t>& out, std::size_t max);

  const std::string& name() const;  // "standard input", or the path in quotes
  bit_format format() const;        // resolved: never automatic
  std::uint64_t bits_read() const;
  std::uint64_t bytes_read() const;  // bytes of the file parsed so far
  std::int64_t size() const;         // bytes of a regular file, -1 when not known (a pipe)

 private:
  class impl;
  std::unique_ptr<impl> impl_;
};

// The bytes of `frames` (a host view of any layout) in `format`: text, a line per frame (a frame
// of 0 bits is an empty line); packed, every bit back to back; framed, GPFSYNC1. automatic writes
// text. Any non-zero value is a 1.
std::string bit_frames_bytes(batch_view<std::uint8_t> frames, bit_format format);
// The same written through an output_file (gpufec/common/files.hpp): complete or not at all.
void write_bit_frames(const std::string& path, batch_view<std::uint8_t> frames, bit_format format);

// Bits written as they come, for streams: text ('0'/'1', a line end every `per_line` bits, 0: one
// line) or packed (automatic writes text). A stream has no frames: framed is invalid_argument.
// Buffered: finish() ends the last text line or writes the last partial byte, and flushes; the
// caller commits `out`.
class bit_writer {
 public:
  bit_writer(output_file& out, bit_format format, std::size_t per_line = 0);

  void write(std::span<const std::uint8_t> bits);  // any non-zero value is a 1
  void finish();
  std::uint64_t count() const { return count_; }

 private:
  void flush();

  output_file* out_;
  bit_format format_;
  std::size_t per_line_;
  std::uint64_t count_ = 0;
  std::string buffer_;
  std::uint8_t partial_ = 0;  // packed: the bits of the byte being filled, MSB first
  bool finished_ = false;
};

}  // namespace gpufec

template <>
struct gpufec::enum_names<gpufec::bit_format> {
  using E = bit_format;
  static constexpr std::array entries{enum_entry{E::automatic, "auto"}, enum_entry{E::text, "text"},
                                      enum_entry{E::packed, "packed"},
                                      enum_entry{E::framed, "framed"}};
};
