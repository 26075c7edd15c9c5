// Files in and out, done once for every family and command.
//
// Outputs are never left half-written: an output_file writes to a temporary file beside its target
// (so a bad path fails when it is opened, before any work), checks every write, the flush and the
// close, and only commit() renames it over the target. A target that is a device or a pipe
// (/dev/null, /dev/full, a FIFO) is written in place instead. An output_file destroyed without
// commit() (an error, Ctrl-C) removes its temporary file: an interrupted run leaves the old file,
// or none, never a truncated file that looks finished. "-" is standard output (written as it goes).
//
// Inputs: read_input() reads a whole file ("-": standard input) and names the problem when it is
// missing, a directory or unreadable; input_file reads one in chunks, with the same messages, for
// inputs larger than memory. Two paths that name the same file (by identity when both
// exist, else by their absolute normalized form) are refused by require_distinct().
#pragma once

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json_fwd.hpp>

namespace gpufec {

class output_file {
 public:
  output_file() = default;
  // Opens the temporary file (or standard output for "-"); throws gpufec::error naming `path`.
  explicit output_file(std::string path);
  ~output_file();
  output_file(output_file&& other) noexcept;
  output_file& operator=(output_file&& other) noexcept;
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  explicit operator bool() const { return file_ != nullptr; }
  const std::string& path() const { return path_; }
  // Appends bytes; a failed write throws gpufec::error naming the file.
  void write(std::string_view bytes);
  output_file& operator<<(std::string_view text) {
    write(text);
    return *this;
  }
  // Flushes, closes and renames the temporary file over the target (standard output: flushes).
  // Throws gpufec::error naming the file when any of it fails (a full disk, /dev/full).
  void commit();
  // Drops what was written: the temporary file is removed, the target is left as it was.
  void discard() noexcept;

 private:
  std::string path_, temporary_;
  std::FILE* file_ = nullptr;
  bool standard_output_ = false;
  int slot_ = -1;  // where the temporary file's name is registered for remove_temporary_files()
};

// Removes every output_file's temporary file now. Async-signal-safe (unlink only): a program's
// SIGINT/SIGTERM handler calls it before _exit, so a run killed part-way leaves nothing behind.
void remove_temporary_files() noexcept;

// A file ("-": standard input) read in chunks. Opening throws format_error naming `path` when it
// is missing, a directory, or cannot be opened; a failed read throws naming it too.
class input_file {
 public:
  explicit input_file(std::string path);
  ~input_file();
  input_file(input_file&& other) noexcept;
  input_file& operator=(input_file&& other) noexcept;
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;

  const std::string& path() const { return path_; }
  // "standard input" for "-", else the path in quotes: for messages.
  std::string name() const;
  // Reads up to `size` bytes (fewer only at the end); returns how many, 0 at the end.
  std::size_t read(char* buffer, std::size_t size);
  std::uint64_t bytes_read() const { return bytes_read_; }
  // The size of a regular file in bytes, or -1 when it is not known (standard input, a pipe).
  std::int64_t size() const { return size_; }

 private:
  void close() noexcept;

  std::string path_;
  std::FILE* file_ = nullptr;
  std::int64_t size_ = -1;
  std::uint64_t bytes_read_ = 0;
};

// Writes `contents` as the whole of `path` through an output_file (the one way gpufec writes a
// small file whole: JSON reports, CSV tables).
void write_file(const std::string& path, std::string_view contents);
// The one JSON writer: `j` indented by two spaces, then a newline.
void write_json_file(const std::string& path, const nlohmann::json& j);

// The whole of `path` ("-": standard input). Throws format_error naming `path` when it is missing,
// a directory, or cannot be read.
std::string read_input(const std::string& path);

// The text of a file read by read_input(): without a leading UTF-8 byte order mark. Throws
// format_error naming `path` and the offset when it holds a byte no text file holds (a NUL, another
// control character but tab, CR and LF, or invalid UTF-8); `hint` is appended (e.g. what to give
// for a binary file). Comments may hold any UTF-8 text.
std::string_view as_text(std::string_view bytes, const std::string& path,
                         std::string_view hint = {});
// The offset of the first byte that is not text as as_text() means it, or npos.
std::size_t first_non_text_byte(std::string_view bytes);

// Whether two paths name the same file: the same device and inode when both exist, else the same
// absolute, normalized path (an output that does not exist yet). "-" names only itself.
bool same_file(const std::string& a, const std::string& b);

// Throws invalid_argument when an output names the same file as an input or another output
// (pairs of option name and path; empty paths are skipped; "-" as input and as output are stdin
// and stdout): "--decisions 'x' and --input 'x' name the same file"; and when two inputs are both
// standard input.
using named_path = std::pair<std::string_view, std::string>;
void require_distinct(std::initializer_list<named_path> inputs,
                      std::initializer_list<named_path> outputs);

}  // namespace gpufec
