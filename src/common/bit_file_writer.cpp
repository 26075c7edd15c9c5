// Bit files written: whole batches (bit_frames_bytes, write_bit_frames) and streams (bit_writer),
// in the formats of docs/formats.md. Reading is in bit_file.cpp.
#include <string>
#include <vector>

#include "gpufec/common/bit_file.hpp"
#include "gpufec/common/bits.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"

namespace gpufec {

std::string bit_frames_bytes(batch_view<std::uint8_t> frames, bit_format format) {
  require(!frames.on_device(), "bit_frames_bytes: the frames are on the device");
  // batch_view::frame() spans the stride of a padded view; a frame is its own length.
  auto frame = [&](std::size_t f) {
    return std::span<const std::uint8_t>(frames.data + frames.begin_of(f),
                                         frames.is_padded() ? frames.lengths[f] : frames.length(f));
  };
  auto append_packed = [](std::string& bytes, std::span<const std::uint8_t> bits) {
    const std::vector<std::uint8_t> packed = pack_bits(bits);
    bytes.append(reinterpret_cast<const char*>(packed.data()), packed.size());
  };
  std::string bytes;
  if (format == bit_format::framed) {
    bytes = framed_magic;
    for (std::size_t f = 0; f < frames.frames(); ++f) {
      const std::uint64_t count = frame(f).size();
      for (int b = 0; b < 8; ++b) bytes += static_cast<char>((count >> (8 * b)) & 0xff);
      append_packed(bytes, frame(f));
    }
  } else if (format == bit_format::packed) {
    if (frames.frames() == 0) return bytes;
    if (!frames.is_padded()) {  // the frames lie back to back
      const std::size_t first = frames.begin_of(0);
      append_packed(bytes, {frames.data + first, frames.size() - first});
    } else {
      std::vector<std::uint8_t> bits;
      for (std::size_t f = 0; f < frames.frames(); ++f) {
        const auto one = frame(f);
        bits.insert(bits.end(), one.begin(), one.end());
      }
      append_packed(bytes, bits);
    }
  } else {
    for (std::size_t f = 0; f < frames.frames(); ++f) {
      for (const std::uint8_t v : frame(f)) bytes += v ? '1' : '0';
      bytes += '\n';
    }
  }
  return bytes;
}

void write_bit_frames(const std::string& path, batch_view<std::uint8_t> frames, bit_format format) {
  output_file out(path);
  out.write(bit_frames_bytes(frames, format));
  out.commit();
}

bit_writer::bit_writer(output_file& out, bit_format format, std::size_t per_line)
    : out_(&out),
      format_(format == bit_format::automatic ? bit_format::text : format),
      per_line_(per_line) {
  require(format_ != bit_format::framed,
          "a stream of bits has no frames: write it as text or packed, not framed");
}

void bit_writer::write(std::span<const std::uint8_t> bits) {
  require(!finished_, "bit_writer: write after finish()");
  if (format_ == bit_format::text) {
    for (const std::uint8_t v : bits) {
      buffer_ += v ? '1' : '0';
      ++count_;
      if (per_line_ && count_ % per_line_ == 0) buffer_ += '\n';
    }
  } else {
    std::size_t k = 0;
    for (; k < bits.size() && count_ % 8 != 0; ++k, ++count_)
      if (bits[k]) partial_ |= static_cast<std::uint8_t>(0x80u >> (count_ % 8));
    if (k > 0 && count_ % 8 == 0) {
      buffer_ += static_cast<char>(partial_);
      partial_ = 0;
    }
    if (k < bits.size()) {  // byte-aligned now: the rest packs whole, its last byte partial
      const std::size_t n = bits.size() - k;
      const std::vector<std::uint8_t> packed = pack_bits(bits.subspan(k));
      buffer_.append(reinterpret_cast<const char*>(packed.data()), n / 8);
      if (n % 8) partial_ = packed.back();
      count_ += n;
    }
  }
  if (buffer_.size() >= bit_file_chunk_bytes) flush();
}

void bit_writer::finish() {
  if (finished_) return;
  if (format_ == bit_format::text) {
    if (!per_line_ || count_ % per_line_ != 0 || count_ == 0) buffer_ += '\n';
  } else if (count_ % 8 != 0) {
    buffer_ += static_cast<char>(partial_);
  }
  flush();
  finished_ = true;
}

void bit_writer::flush() {
  out_->write(buffer_);
  buffer_.clear();
}

}  // namespace gpufec
