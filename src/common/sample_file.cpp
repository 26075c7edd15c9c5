#include "gpufec/common/sample_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "gpufec/common/bits.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"

namespace gpufec {

sample_format parse_sample_format(std::string_view name) {
  return parse_name<sample_format>(name, "sample format");
}

namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 16;
constexpr std::size_t kMaxToken = 256;  // longer runs of non-separators are not numbers

bool separator(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == '#';
}

// The length of the text character at the start of `rest` (as first_non_text_byte means text):
// 1..4, 0 when it is not text, or npos when `rest` ends inside it and more bytes may follow.
std::size_t text_char(std::string_view rest, bool at_end) {
  const auto c = static_cast<unsigned char>(rest[0]);
  if (c < 0x80) return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f ? 0 : 1;
  const std::size_t length = c >= 0xf0 && c <= 0xf4   ? 4
                             : c >= 0xe0              ? 3
                             : c >= 0xc2 && c <= 0xdf ? 2
                                                      : 0;
  if (length == 0) return 0;
  for (std::size_t j = 1; j < length; ++j) {
    if (j == rest.size()) return at_end ? 0 : std::string_view::npos;
    if ((static_cast<unsigned char>(rest[j]) & 0xc0) != 0x80) return 0;
  }
  return length;
}

std::string byte_name(unsigned char c) {
  if (c == 0) return "a NUL byte";
  return cat("0x", "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]);
}

}  // namespace

class sample_reader::impl {
 public:
  impl(const std::string& path, sample_format format)
      : in_(path), format_(format), name_(path == "-" ? "standard input" : path) {
    require<format_error>(in_.size() != 0, name_, ": empty file (no samples)");
    if (format_ == sample_format::f32 && in_.size() > 0) require_whole_floats(in_.size());
  }

  // The next samples (at most max) into out, as T; returns how many.
  template <class T>
  std::size_t read(std::vector<T>& out, std::size_t max) {
    require(max >= 1, "sample_reader: max = 0");
    out.clear();
    if (format_ == sample_format::f32)
      read_raw<float>(out, max);
    else if (format_ == sample_format::i8)
      read_raw<std::int8_t>(out, max);
    else
      read_text(out, max);
    samples_ += out.size();
    if (out.empty()) {
      require<format_error>(consumed_ > 0, name_, ": empty file (no samples)");
      require<format_error>(samples_ > 0, name_, ": no samples in the file");
    }
    return out.size();
  }

  input_file in_;
  sample_format format_;
  std::string name_;  // for messages: the path, or "standard input"
  std::uint64_t samples_ = 0;
  std::uint64_t consumed_ = 0;  // file offset of buf_[pos_]

 private:
  void require_whole_floats(std::uint64_t bytes) const {
    require<format_error>(bytes % sizeof(float) == 0, name_, ": truncated f32 file (", bytes,
                          " bytes is not a multiple of 4)");
  }

  // At least `want` unconsumed bytes unless the file ends first; returns how many there are.
  std::size_t fill(std::size_t want) {
    if (buf_.size() - pos_ >= want || eof_) return buf_.size() - pos_;
    buf_.erase(0, pos_);
    pos_ = 0;
    const std::size_t have = buf_.size(), chunk = std::max(want - have, kChunkBytes);
    buf_.resize(have + chunk);
    const std::size_t got = in_.read(buf_.data() + have, chunk);
    buf_.resize(have + got);
    if (got < chunk) eof_ = true;
    return buf_.size();
  }

  void consume(std::size_t n) {
    pos_ += n;
    consumed_ += n;
  }

  template <class Raw, class T>
  void read_raw(std::vector<T>& out, std::size_t max) {
    while (out.size() < max) {
      const std::size_t avail =
          fill(std::min((max - out.size()) * sizeof(Raw), kChunkBytes)) / sizeof(Raw);
      const std::size_t n = std::min(avail, max - out.size());
      if (n == 0) {
        if (buf_.size() > pos_) require_whole_floats(consumed_ + (buf_.size() - pos_));
        return;
      }
      for (std::size_t k = 0; k < n; ++k) {
        Raw v;
        std::memcpy(&v, buf_.data() + pos_ + k * sizeof(Raw), sizeof(Raw));
        if constexpr (std::is_same_v<Raw, float>) {
          const std::uint64_t index = samples_ + out.size();
          require<format_error>(std::isfinite(v), name_, ": sample ", index, " (byte offset ",
                                index * sizeof(float), ") is not finite (", v, ")");
        }
        out.push_back(static_cast<T>(v));
      }
      consume(n * sizeof(Raw));
    }
  }

  [[noreturn]] void not_text(std::size_t at) const {
    throw format_error(cat(name_, ": not a text file (byte ", consumed_ + (at - pos_), " is ",
                           byte_name(static_cast<unsigned char>(buf_[at])),
                           "); for raw samples give --input-format f32 or i8"));
  }

  // Validates the text character at buf_[at]; returns its length, or 0 when more bytes are
  // needed first.
  std::size_t text_at(std::size_t at) {
    const std::size_t n = text_char(std::string_view(buf_).substr(at), eof_);
    if (n == std::string_view::npos) return 0;
    if (n == 0) not_text(at);
    return n;
  }

  template <class T>
  void read_text(std::vector<T>& out, std::size_t max) {
    while (out.size() < max) {
      if (pos_ == buf_.size() && fill(1) == 0) return;
      if (consumed_ == 0 && !bom_checked_) {  // a leading UTF-8 byte order mark
        bom_checked_ = true;
        if (fill(3) >= 3 && buf_.compare(pos_, 3, "\xEF\xBB\xBF") == 0) consume(3);
        continue;
      }
      const char c = buf_[pos_];
      if (in_comment_ && c != '\n') {
        const std::size_t n = text_at(pos_);
        if (n == 0) fill(buf_.size() - pos_ + 1);
        consume(n);
        continue;
      }
      if (separator(c)) {
        in_comment_ = c == '#';
        line_ += c == '\n';
        consume(1);
        continue;
      }
      std::size_t end = pos_;
      bool cut = false;  // a character at the end of the buffer is incomplete
      while (end < buf_.size() && !separator(buf_[end]) && end - pos_ <= kMaxToken) {
        const std::size_t n = text_at(end);
        cut = n == 0;
        if (cut) break;
        end += n;
      }
      if ((cut || end == buf_.size()) && !eof_ && end - pos_ <= kMaxToken) {
        fill(buf_.size() - pos_ + 1);  // the token may go on in the next chunk
        continue;
      }
      const std::string token = buf_.substr(pos_, std::min(end - pos_, kMaxToken));
      char* stop = nullptr;
      errno = 0;
      const double v = std::strtod(token.c_str(), &stop);
      require<format_error>(end - pos_ <= kMaxToken && stop == token.c_str() + token.size(), name_,
                            ":", line_, ": '", token.substr(0, 40), token.size() > 40 ? "..." : "",
                            "' is not a number");
      require<format_error>(std::isfinite(v) && std::isfinite(static_cast<float>(v)), name_, ":",
                            line_, ": sample ", samples_ + out.size(), " is not finite ('", token,
                            "')");
      out.push_back(static_cast<T>(v));
      consume(end - pos_);
    }
  }

  std::string buf_;  // bytes read and not yet consumed: [pos_, size)
  std::size_t pos_ = 0;
  bool eof_ = false, bom_checked_ = false, in_comment_ = false;

 public:
  std::uint64_t line_ = 1;
};

sample_reader::sample_reader(const std::string& path, sample_format format)
    : impl_(std::make_unique<impl>(path, format)) {}
sample_reader::~sample_reader() = default;
sample_reader::sample_reader(sample_reader&&) noexcept = default;
sample_reader& sample_reader::operator=(sample_reader&&) noexcept = default;

std::size_t sample_reader::read(std::vector<float>& out, std::size_t max) {
  return impl_->read(out, max);
}

std::size_t sample_reader::read(std::vector<std::int8_t>& out, std::size_t max) {
  require(impl_->format_ == sample_format::i8,
          "sample_reader: raw int8 values come only from an i8 file");
  return impl_->read(out, max);
}

const std::string& sample_reader::path() const {
  return impl_->in_.path();
}
const std::string& sample_reader::name() const {
  return impl_->name_;
}
sample_format sample_reader::format() const {
  return impl_->format_;
}
std::uint64_t sample_reader::samples_read() const {
  return impl_->samples_;
}
std::uint64_t sample_reader::line() const {
  return impl_->line_;
}
std::uint64_t sample_reader::bytes_read() const {
  return impl_->consumed_;
}
std::int64_t sample_reader::size() const {
  return impl_->in_.size();
}

std::vector<float> read_samples(const std::string& path, sample_format format) {
  sample_reader reader(path, format);
  std::vector<float> all, chunk;
  while (reader.read(chunk, std::size_t{1} << 20))
    all.insert(all.end(), chunk.begin(), chunk.end());
  return all;
}

sample_frames read_sample_frames(const std::string& path, sample_format format) {
  sample_reader reader(path, format);
  sample_frames out;
  if (format == sample_format::f32 || format == sample_format::i8) {
    out.samples = read_samples(path, format);
    out.lengths.push_back(out.samples.size());
    return out;
  }
  std::vector<float> one;
  std::uint64_t line = 0;
  while (reader.read(one, 1)) {  // one at a time: the reader's line is then the sample's
    if (out.lengths.empty() || reader.line() != line) out.lengths.push_back(0);
    line = reader.line();
    out.samples.push_back(one[0]);
    ++out.lengths.back();
  }
  return out;
}

}  // namespace gpufec
