#include "gpufec/common/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/common/error.hpp"

namespace gpufec {
namespace {

std::string system_error(int error) {
  return std::strerror(error);
}

// A temporary name beside `path`, unique to this process and call.
std::string temporary_beside(const std::string& path) {
  static int counter = 0;
  const std::filesystem::path p(path);
  std::string name = p.filename().string();
  name.insert(0, 1, '.');
  name.append(cat(".gpufec-", ::getpid(), "-", ++counter, ".tmp"));
  return (p.parent_path() / name).string();
}

// The temporary files being written, for remove_temporary_files(): fixed storage, so a signal
// handler can walk it without allocating or locking.
constexpr int temporary_slots = 64;
constexpr std::size_t name_bytes = 4096;
char temporary_names[temporary_slots][name_bytes];
std::atomic<bool> temporary_used[temporary_slots];
std::atomic<bool> temporary_claimed[temporary_slots];

int register_temporary(const std::string& name) {
  if (name.size() >= name_bytes) return -1;
  for (int k = 0; k < temporary_slots; ++k) {
    bool expected = false;
    if (!temporary_claimed[k].compare_exchange_strong(expected, true)) continue;
    std::memcpy(temporary_names[k], name.c_str(), name.size() + 1);
    temporary_used[k].store(true);
    return k;
  }
  return -1;  // more than 64 at once: this one is not cleaned up by a signal
}

void unregister_temporary(int slot) {
  if (slot < 0) return;
  temporary_used[slot].store(false);
  temporary_claimed[slot].store(false);
}

}  // namespace

void remove_temporary_files() noexcept {
  for (int k = 0; k < temporary_slots; ++k)
    if (temporary_used[k].load()) ::unlink(temporary_names[k]);
}

output_file::output_file(std::string path) : path_(std::move(path)) {
  require(!path_.empty(), "an output path is empty");
  if (path_ == "-") {
    file_ = stdout;
    standard_output_ = true;
    return;
  }
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  require<error>(!exists || !S_ISDIR(st.st_mode), "output '", path_,
                 "' is a directory, not a file");
  // A device, pipe or socket (/dev/null, /dev/stdout, a FIFO) is written in place: there is
  // nothing to replace, and renaming a regular file over it would destroy it.
  if (!exists || S_ISREG(st.st_mode)) {
    temporary_ = temporary_beside(path_);
    slot_ = register_temporary(temporary_);
  }
  file_ = std::fopen((temporary_.empty() ? path_ : temporary_).c_str(), "wb");
  if (!file_) {
    const int e = errno;
    throw error(cat("cannot write output file '", path_, "': ", system_error(e)));
  }
}

output_file::~output_file() {
  discard();
}

output_file::output_file(output_file&& other) noexcept
    : path_(std::move(other.path_)),
      temporary_(std::move(other.temporary_)),
      file_(std::exchange(other.file_, nullptr)),
      standard_output_(other.standard_output_),
      slot_(std::exchange(other.slot_, -1)) {}

output_file& output_file::operator=(output_file&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    temporary_ = std::move(other.temporary_);
    file_ = std::exchange(other.file_, nullptr);
    standard_output_ = other.standard_output_;
    slot_ = std::exchange(other.slot_, -1);
  }
  return *this;
}

void output_file::write(std::string_view bytes) {
  require<error>(file_ != nullptr, "output file '", path_, "' is closed");
  if (bytes.empty()) return;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    const int e = errno;
    discard();
    throw error(cat("failed writing '", path_, "': ", system_error(e)));
  }
}

void output_file::commit() {
  require<error>(file_ != nullptr, "output file '", path_, "' is closed");
  if (standard_output_) {
    const bool ok = std::fflush(file_) == 0 && !std::ferror(file_);
    const int e = errno;
    file_ = nullptr;
    require<error>(ok, "failed writing standard output: ", system_error(e));
    return;
  }
  const bool in_place = temporary_.empty();
  const bool flushed =
      std::fflush(file_) == 0 && (in_place || ::fsync(::fileno(file_)) == 0) && !std::ferror(file_);
  int e = errno;
  const bool closed = std::fclose(file_) == 0;
  if (flushed && !closed) e = errno;
  file_ = nullptr;
  if (!flushed || !closed) {
    if (!in_place) std::remove(temporary_.c_str());
    unregister_temporary(std::exchange(slot_, -1));
    throw error(cat("failed writing '", path_, "': ", system_error(e)));
  }
  if (in_place) return;
  const bool renamed = std::rename(temporary_.c_str(), path_.c_str()) == 0;
  e = errno;
  if (!renamed) std::remove(temporary_.c_str());
  unregister_temporary(std::exchange(slot_, -1));
  temporary_.clear();
  require<error>(renamed, "cannot replace output file '", path_, "': ", system_error(e));
}

void output_file::discard() noexcept {
  if (!file_) return;
  if (standard_output_) {
    std::fflush(file_);
    file_ = nullptr;
    return;
  }
  std::fclose(file_);
  file_ = nullptr;
  if (!temporary_.empty()) std::remove(temporary_.c_str());
  unregister_temporary(std::exchange(slot_, -1));
}

void write_file(const std::string& path, std::string_view contents) {
  output_file out(path);
  out.write(contents);
  out.commit();
}

void write_json_file(const std::string& path, const nlohmann::json& j) {
  write_file(path, j.dump(2) + "\n");
}

input_file::input_file(std::string path) : path_(std::move(path)) {
  require<format_error>(!path_.empty(), "an input path is empty");
  if (path_ == "-") {
    file_ = stdin;
    return;
  }
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    const int e = errno;
    throw format_error(cat("cannot open input file '", path_, "': ", system_error(e)));
  }
  require<format_error>(!S_ISDIR(st.st_mode), "input '", path_, "' is a directory, not a file");
  file_ = std::fopen(path_.c_str(), "rb");
  if (!file_) {
    const int e = errno;
    throw format_error(cat("cannot open input file '", path_, "': ", system_error(e)));
  }
  if (S_ISREG(st.st_mode)) size_ = static_cast<std::int64_t>(st.st_size);
}

input_file::~input_file() {
  close();
}

input_file::input_file(input_file&& other) noexcept
    : path_(std::move(other.path_)),
      file_(std::exchange(other.file_, nullptr)),
      size_(other.size_),
      bytes_read_(other.bytes_read_) {}

input_file& input_file::operator=(input_file&& other) noexcept {
  if (this != &other) {
    close();
    path_ = std::move(other.path_);
    file_ = std::exchange(other.file_, nullptr);
    size_ = other.size_;
    bytes_read_ = other.bytes_read_;
  }
  return *this;
}

void input_file::close() noexcept {
  if (file_ && file_ != stdin) std::fclose(file_);
  file_ = nullptr;
}

std::string input_file::name() const {
  return path_ == "-" ? std::string("standard input") : cat("'", path_, "'");
}

std::size_t input_file::read(char* buffer, std::size_t size) {
  require<format_error>(file_ != nullptr, "input ", name(), " is closed");
  std::size_t got = 0;
  while (got < size) {
    const std::size_t n = std::fread(buffer + got, 1, size - got, file_);
    got += n;
    if (n == 0) break;
  }
  if (got < size && std::ferror(file_)) {
    const int e = errno;
    throw format_error(cat("failed reading ", name(), ": ", system_error(e)));
  }
  bytes_read_ += got;
  return got;
}

std::string read_input(const std::string& path) {
  input_file in(path);
  std::string bytes;
  std::vector<char> buffer(1 << 16);
  while (const std::size_t got = in.read(buffer.data(), buffer.size()))
    bytes.append(buffer.data(), got);
  return bytes;
}

std::size_t first_non_text_byte(std::string_view bytes) {
  for (std::size_t k = 0; k < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[k]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return k;
      if (c == 0x7f) return k;
      ++k;
      continue;
    }
    // A UTF-8 sequence: a lead byte of 2-4 bytes, then continuation bytes 10xxxxxx.
    const int length = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
    if (length == 0 || k + length > bytes.size()) return k;
    for (int j = 1; j < length; ++j)
      if ((static_cast<unsigned char>(bytes[k + j]) & 0xc0) != 0x80) return k;
    k += length;
  }
  return std::string_view::npos;
}

std::string_view as_text(std::string_view bytes, const std::string& path, std::string_view hint) {
  const std::size_t mark = bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // UTF-8 byte order mark
  bytes.remove_prefix(mark);
  const std::size_t bad = first_non_text_byte(bytes);
  if (bad != std::string_view::npos) {
    const auto c = static_cast<unsigned char>(bytes[bad]);
    throw format_error(cat(path, ": not a text file (byte ", bad + mark, " is ",
                           c == 0
                               ? std::string("a NUL byte")
                               : cat("0x", "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]),
                           ")", hint.empty() ? "" : "; ", hint));
  }
  return bytes;
}

bool same_file(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return a == b;
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b), eb);
  return !ea && !eb && ca == cb;
}

void require_distinct(std::initializer_list<named_path> inputs,
                      std::initializer_list<named_path> outputs) {
  auto check = [](const named_path& a, const named_path& b) {
    if (a.second.empty() || b.second.empty()) return;
    require(!same_file(a.second, b.second), a.first, " '", a.second, "' and ", b.first, " '",
            b.second, "' name the same file");
  };
  const std::vector<named_path> in(inputs), out(outputs);
  // Standard input can be read once: two inputs from it would split it between them.
  for (std::size_t i = 0; i < in.size(); ++i)
    for (std::size_t j = i + 1; j < in.size(); ++j)
      require(!(in[i].second == "-" && in[j].second == "-"), in[i].first, " and ", in[j].first,
              " both read standard input ('-'); give one of them a file");
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (const named_path& x : in)
      if (!(x.second == "-" && out[i].second == "-")) check(out[i], x);  // stdin, stdout
    for (std::size_t j = i + 1; j < out.size(); ++j) check(out[i], out[j]);
  }
}

}  // namespace gpufec
