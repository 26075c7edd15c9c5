// Bit files read: the formats of docs/formats.md parsed whole (read_bit_frames) or as a stream
// (bit_reader). Writing is in bit_file_writer.cpp.
#include "gpufec/common/bit_file.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "gpufec/common/bits.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"

namespace gpufec {
namespace {

constexpr std::size_t kChunkBytes = bit_file_chunk_bytes;
constexpr std::size_t kAll = std::numeric_limits<std::size_t>::max();
constexpr std::uint64_t kMaxFrameBits = std::uint64_t{1} << 40;
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
constexpr std::string_view kTextHint = "for binary bits give --input-format packed or framed";

std::span<const std::uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// ceil(bits / 8), without the overflow of (bits + 7) / 8.
std::uint64_t bytes_for(std::uint64_t bits) {
  return bits / 8 + (bits % 8 != 0);
}

std::string name_of_path(const std::string& path) {
  return path == "-" ? "standard input" : path;
}

// The format to read: auto resolved by the magic, a packed file that is framed refused.
bit_format resolve(bit_format format, std::string_view head, const std::string& name) {
  const bool magic = head.substr(0, framed_magic.size()) == framed_magic;
  if (format == bit_format::automatic) return magic ? bit_format::framed : bit_format::text;
  require<format_error>(format != bit_format::packed || !magic, name,
                        ": starts with the GPFSYNC1 magic: it is a framed file, not packed bits "
                        "(give --input-format framed or auto)");
  return format;
}

void require_some(std::uint64_t bits, bit_format format, const std::string& name) {
  if (bits > 0) return;
  if (format == bit_format::framed) throw format_error(cat(name, ": framed file holds no frames"));
  throw format_error(cat(name, ": no bits in the file (only blank lines and comments)"));
}

struct frame_end {
  std::uint64_t bits;
  std::uint64_t at;  // text: the line (from 1); framed: the byte offset of the length field
};

// The one parser of the three formats: bits and frame ends from a file's bytes, fed in pieces of
// any size (text: cut only between characters, already checked to be text; the byte order mark
// skipped).
class bit_parser {
 public:
  bit_parser() = default;
  bit_parser(bit_format format, std::string name, std::uint64_t offset)
      : format_(format), name_(std::move(name)), offset_(offset) {}

  // Parses `bytes`, the file's from offset() on, until they run out or `bits` holds `want` bits or
  // more (a byte gives up to 8); appends the frames that end to `ends` when given. Returns the
  // bytes consumed.
  std::size_t parse(std::string_view bytes, std::vector<std::uint8_t>& bits, std::size_t want,
                    std::vector<frame_end>* ends) {
    const std::size_t used = format_ == bit_format::text ? parse_text(bytes, bits, want, ends)
                             : format_ == bit_format::packed
                                 ? parse_packed(bytes, bits, want)
                                 : parse_framed(bytes, bits, want, ends);
    offset_ += used;
    return used;
  }

  // The end of the file: the last line's frame, or the error for a framed file cut short.
  void finish(std::vector<frame_end>* ends) {
    if (format_ == bit_format::text) return end_line(ends);
    if (format_ != bit_format::framed) return;
    require<format_error>(magic_seen_ == framed_magic.size(), name_,
                          ": not a framed file (missing GPFSYNC1 magic)");
    require<format_error>(field_bytes_ == 0, name_, ": frame ", frames_, " at byte ", frame_at_,
                          ": truncated length field");
    require<format_error>(left_ == 0, name_, ": frame ", frames_, " at byte ", data_at_,
                          " is truncated: ", count_, " bits need ", bytes_for(count_), " bytes, ",
                          offset_ - data_at_, " left");
  }

  std::uint64_t offset() const { return offset_; }

 private:
  void end_line(std::vector<frame_end>* ends) {
    if (line_bits_ > 0) {
      if (ends) ends->push_back({line_bits_, line_});
      ++frames_;
    }
    line_bits_ = 0;
  }

  std::size_t parse_text(std::string_view bytes, std::vector<std::uint8_t>& bits, std::size_t want,
                         std::vector<frame_end>* ends) {
    std::size_t k = 0;
    while (k < bytes.size() && bits.size() < want) {
      const char c = bytes[k];
      if (comment_) {
        const std::size_t end = bytes.find('\n', k);
        k = end == std::string_view::npos ? bytes.size() : end;
        comment_ = end == std::string_view::npos;
        continue;
      }
      ++k;
      if (c == '0' || c == '1') {
        bits.push_back(static_cast<std::uint8_t>(c - '0'));
        ++line_bits_;
      } else if (c == '\n') {
        end_line(ends);
        ++line_;
      } else if (c == '#') {
        comment_ = true;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        // The whole character, which is text: a UTF-8 sequence is 2 to 4 bytes.
        const auto lead = static_cast<unsigned char>(c);
        const std::size_t length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
        throw format_error(cat(name_, ":", line_, ": unexpected character '",
                               bytes.substr(k - 1, length), "' (bits are 0 and 1)"));
      }
    }
    return k;
  }

  std::size_t parse_packed(std::string_view bytes, std::vector<std::uint8_t>& bits,
                           std::size_t want) {
    std::size_t n = bytes.size();
    if (want != kAll) n = std::min<std::uint64_t>(n, bytes_for(want - bits.size()));
    const std::vector<std::uint8_t> unpacked = unpack_bits(as_bytes(bytes.substr(0, n)), 8 * n);
    bits.insert(bits.end(), unpacked.begin(), unpacked.end());
    return n;
  }

  std::size_t parse_framed(std::string_view bytes, std::vector<std::uint8_t>& bits,
                           std::size_t want, std::vector<frame_end>* ends) {
    std::size_t k = 0;
    while (k < bytes.size() && bits.size() < want) {
      if (magic_seen_ < framed_magic.size()) {
        const std::size_t n = std::min(framed_magic.size() - magic_seen_, bytes.size() - k);
        require<format_error>(bytes.substr(k, n) == framed_magic.substr(magic_seen_, n), name_,
                              ": not a framed file (missing GPFSYNC1 magic)");
        magic_seen_ += n;
        k += n;
      } else if (left_ == 0) {  // a byte of a length field, least significant first
        if (field_bytes_ == 0) frame_at_ = offset_ + k;
        count_ |= std::uint64_t{static_cast<unsigned char>(bytes[k++])} << (8 * field_bytes_);
        if (++field_bytes_ < 8) continue;
        require<format_error>(count_ > 0 && count_ < kMaxFrameBits, name_, ": frame ", frames_,
                              " declares ", count_, " bits");
        field_bytes_ = 0;
        left_ = count_;
        data_at_ = offset_ + k;
      } else {
        std::size_t n = std::min<std::uint64_t>(bytes_for(left_), bytes.size() - k);
        if (want != kAll) n = std::min<std::uint64_t>(n, bytes_for(want - bits.size()));
        const std::size_t got = std::min<std::uint64_t>(8 * n, left_);
        const std::vector<std::uint8_t> unpacked = unpack_bits(as_bytes(bytes.substr(k, n)), got);
        bits.insert(bits.end(), unpacked.begin(), unpacked.end());
        k += n;
        left_ -= got;
        if (left_ > 0) continue;
        if (ends) ends->push_back({count_, frame_at_});
        ++frames_;
        count_ = 0;
      }
    }
    return k;
  }

  bit_format format_ = bit_format::text;
  std::string name_;
  std::uint64_t offset_ = 0;  // of the next byte in the file
  std::uint64_t frames_ = 0;  // frames ended so far
  // text
  std::uint64_t line_ = 1, line_bits_ = 0;
  bool comment_ = false;
  // framed
  std::size_t magic_seen_ = 0, field_bytes_ = 0;  // bytes of the magic, of the length field
  std::uint64_t count_ = 0, left_ = 0;            // the frame's bits, those still to come
  std::uint64_t frame_at_ = 0, data_at_ = 0;      // offsets of its length field and its data
};

// Every bit of a whole file, and its frame ends when asked; `format` comes back resolved.
std::vector<std::uint8_t> parse_all(std::string_view bytes, const std::string& name,
                                    bit_format& format, std::vector<frame_end>* ends) {
  require<format_error>(!bytes.empty(), name, ": empty file (no bits)");
  format = resolve(format, bytes, name);
  std::size_t offset = 0;  // of the first byte parsed: past a byte order mark
  if (format == bit_format::text) {
    const std::size_t all = bytes.size();
    bytes = as_text(bytes, name, kTextHint);
    offset = all - bytes.size();
  }
  bit_parser parser(format, name, offset);
  std::vector<std::uint8_t> bits;
  if (format != bit_format::text) bits.reserve(8 * bytes.size());
  parser.parse(bytes, bits, kAll, ends);
  parser.finish(ends);
  require_some(bits.size(), format, name);
  return bits;
}

// `bits` as frames of `length` bits each (the buffer moves in, not copied).
batch<std::uint8_t> uniform_frames(std::vector<std::uint8_t>&& bits, std::size_t length) {
  batch<std::uint8_t> frames(bits.size() / length, length);
  frames.data().swap(bits);
  return frames;
}

}  // namespace

batch<std::uint8_t> parse_bit_frames(std::string_view bytes, const std::string& name,
                                     bit_format format, std::size_t frame_bits) {
  std::vector<frame_end> ends;
  std::vector<std::uint8_t> bits = parse_all(bytes, name, format, &ends);
  const std::size_t F = frame_bits;
  if (format == bit_format::packed) {
    if (F == 0) {
      const std::size_t all = bits.size();
      return uniform_frames(std::move(bits), all);
    }
    // Whole frames, then at most the last byte's padding.
    const std::size_t whole = bits.size() / F * F, over = bits.size() - whole;
    const bool padding = over < 8 && std::all_of(bits.begin() + static_cast<std::ptrdiff_t>(whole),
                                                 bits.end(), [](std::uint8_t b) { return b == 0; });
    require<format_error>(padding, name, ": ", bytes.size(), " bytes (", bits.size(),
                          " bits) are not a whole number of frames of ", F, " bits: ", whole / F,
                          whole / F == 1 ? " frame and " : " frames and ", over, " bits over",
                          over < 8 ? " that are not all zero" : "",
                          " (only the last byte's padding, fewer than 8 zero bits, may be over)");
    bits.resize(whole);
    return uniform_frames(std::move(bits), F);
  }
  if (F > 0) {
    for (std::size_t f = 0; f < ends.size(); ++f) {
      if (format == bit_format::text)
        require<format_error>(ends[f].bits % F == 0, name, ":", ends[f].at, ": line holds ",
                              ends[f].bits, " bits, not a whole number of frames of ", F, " bits");
      else
        require<format_error>(ends[f].bits == F, name, ": frame ", f, " at byte ", ends[f].at,
                              " holds ", ends[f].bits, " bits, expected frames of ", F, " bits");
    }
    return uniform_frames(std::move(bits), F);
  }
  const bool uniform = std::all_of(ends.begin(), ends.end(),
                                   [&](const frame_end& e) { return e.bits == ends[0].bits; });
  if (uniform) return uniform_frames(std::move(bits), static_cast<std::size_t>(ends[0].bits));
  batch<std::uint8_t> frames;
  auto from = bits.begin();
  for (const frame_end& e : ends) {
    const auto to = from + static_cast<std::ptrdiff_t>(e.bits);
    std::copy(from, to, frames.append(static_cast<std::size_t>(e.bits)).begin());
    from = to;
  }
  return frames;
}

batch<std::uint8_t> read_bit_frames(const std::string& path, bit_format format,
                                    std::size_t frame_bits) {
  return parse_bit_frames(read_input(path), name_of_path(path), format, frame_bits);
}

std::vector<std::uint8_t> read_bit_stream(const std::string& path, bit_format format) {
  return parse_all(read_input(path), name_of_path(path), format, nullptr);
}

class bit_reader::impl {
 public:
  impl(const std::string& path, bit_format format) : in_(path), name_(in_.name()) {
    read_chunk();  // the format is told by the first bytes
    format_ = resolve(format, buf_, name_);
    if (format_ == bit_format::text && std::string_view(buf_).starts_with(kByteOrderMark))
      pos_ = valid_ = kByteOrderMark.size();
    check_text();
    parser_ = bit_parser(format_, name_, pos_);
  }

  std::size_t read(std::vector<std::uint8_t>& out, std::size_t max) {
    require(max >= 1, "bit_reader: max = 0");
    out.clear();
    while (out.size() < max) {
      if (taken_ == pending_.size()) {
        pending_.clear();
        taken_ = 0;
        if (!parse_more(max - out.size())) break;
      }
      const std::size_t n = std::min(max - out.size(), pending_.size() - taken_);
      const auto from = pending_.begin() + static_cast<std::ptrdiff_t>(taken_);
      out.insert(out.end(), from, from + static_cast<std::ptrdiff_t>(n));
      taken_ += n;
    }
    bits_ += out.size();
    if (out.empty()) {
      require<format_error>(in_.bytes_read() > 0, name_, ": empty file (no bits)");
      require_some(bits_, format_, name_);
    }
    return out.size();
  }

  input_file in_;
  std::string name_;
  bit_format format_ = bit_format::text;
  bit_parser parser_;
  std::uint64_t bits_ = 0;

 private:
  // Parses until some bits are pending (false: the file ended without more).
  bool parse_more(std::size_t want) {
    for (;;) {
      if (pos_ < valid_) {
        pos_ += parser_.parse(std::string_view(buf_).substr(pos_, valid_ - pos_), pending_, want,
                              nullptr);
        if (!pending_.empty()) return true;
      } else if (!eof_) {
        fill();
      } else {
        if (!finished_ && in_.bytes_read() > 0) parser_.finish(nullptr);  // empty: read() says so
        finished_ = true;
        return false;
      }
    }
  }

  // Reads the next chunk after the unparsed bytes.
  void fill() {
    buf_.erase(0, pos_);
    valid_ -= pos_;
    base_ += pos_;
    pos_ = 0;
    read_chunk();
    check_text();
  }

  void read_chunk() {
    const std::size_t have = buf_.size();
    buf_.resize(have + kChunkBytes);
    const std::size_t got = in_.read(buf_.data() + have, kChunkBytes);
    buf_.resize(have + got);
    eof_ = got < kChunkBytes;  // input_file reads fewer only at the end
  }

  // Moves valid_ over the bytes that are text (all of them for binary formats), holding back a
  // character that the chunk cuts (a UTF-8 sequence is at most 4 bytes).
  void check_text() {
    if (format_ != bit_format::text) {
      valid_ = buf_.size();
      return;
    }
    const std::size_t bad = first_non_text_byte(std::string_view(buf_).substr(valid_));
    if (bad == std::string_view::npos) {
      valid_ = buf_.size();
      return;
    }
    valid_ += bad;
    if (!eof_ && buf_.size() - valid_ < 4) return;
    const auto c = static_cast<unsigned char>(buf_[valid_]);
    throw format_error(cat(name_, ": not a text file (byte ", base_ + valid_, " is ",
                           c == 0
                               ? std::string("a NUL byte")
                               : cat("0x", "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]),
                           "); ", kTextHint));
  }

  std::string buf_;  // bytes read: [pos_, valid_) to parse, [valid_, size) held back
  std::size_t pos_ = 0, valid_ = 0;
  std::uint64_t base_ = 0;  // file offset of buf_[0]
  bool eof_ = false, finished_ = false;
  std::vector<std::uint8_t> pending_;  // bits parsed and not yet read: [taken_, size)
  std::size_t taken_ = 0;
};

bit_reader::bit_reader(const std::string& path, bit_format format)
    : impl_(std::make_unique<impl>(path, format)) {}
bit_reader::~bit_reader() = default;
bit_reader::bit_reader(bit_reader&&) noexcept = default;
bit_reader& bit_reader::operator=(bit_reader&&) noexcept = default;

std::size_t bit_reader::read(std::vector<std::uint8_t>& out, std::size_t max) {
  return impl_->read(out, max);
}
const std::string& bit_reader::name() const {
  return impl_->name_;
}
bit_format bit_reader::format() const {
  return impl_->format_;
}
std::uint64_t bit_reader::bits_read() const {
  return impl_->bits_;
}
std::uint64_t bit_reader::bytes_read() const {
  return impl_->parser_.offset();
}
std::int64_t bit_reader::size() const {
  return impl_->in_.size();
}

}  // namespace gpufec
