#include "gpufec/sync/received_file.hpp"

#include <cstdio>
#include <cstring>
#include <iterator>
#include <sstream>

#include "gpufec/common/bits.hpp"

namespace gpufec::sync {
namespace {

constexpr char magic[8] = {'G', 'P', 'F', 'S', 'Y', 'N', 'C', '1'};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  require<format_error>(in.good(), "cannot open received file '", path, "'");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

batch<std::uint8_t> parse_text(const std::string& text, const std::string& path) {
  batch<std::uint8_t> frames;
  std::istringstream lines(text);
  std::string line;
  std::vector<std::uint8_t> frame;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    frame.clear();
    for (char c : line) {
      if (c == '#') break;
      if (c == '0' || c == '1')
        frame.push_back(static_cast<std::uint8_t>(c - '0'));
      else
        require<format_error>(c == ' ' || c == '\t' || c == '\r', path, ":", number,
                              ": unexpected character '", c, "' (frames are lines of 0/1)");
    }
    if (!frame.empty()) frames.push_back(frame);
  }
  require<format_error>(frames.frames() > 0, path, ": no frames (empty file or only comments)");
  return frames;
}

batch<std::uint8_t> parse_packed(const std::string& bytes, const std::string& path) {
  batch<std::uint8_t> frames;
  std::size_t pos = sizeof magic;
  while (pos < bytes.size()) {
    require<format_error>(bytes.size() - pos >= 8, path, ": frame ", frames.frames(), " at byte ",
                          pos, ": truncated length field");
    std::uint64_t count = 0;
    for (int b = 7; b >= 0; --b) count = (count << 8) | static_cast<unsigned char>(bytes[pos + b]);
    pos += 8;
    const std::uint64_t need = (count + 7) / 8;
    require<format_error>(count > 0 && count < (std::uint64_t{1} << 40), path, ": frame ",
                          frames.frames(), " declares ", count, " bits");
    require<format_error>(bytes.size() - pos >= need, path, ": frame ", frames.frames(),
                          " at byte ", pos, " is truncated: ", count, " bits need ", need,
                          " bytes, ", bytes.size() - pos, " left");
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data() + pos);
    frames.push_back(unpack_bits(std::span<const std::uint8_t>(data, need), count));
    pos += need;
  }
  require<format_error>(frames.frames() > 0, path, ": packed file holds no frames");
  return frames;
}

}  // namespace

received_format parse_received_format(std::string_view name) {
  return parse_name<received_format>(name, "received format");
}

batch<std::uint8_t> read_received_file(const std::string& path, received_format format) {
  const std::string bytes = slurp(path);
  const bool has_magic =
      bytes.size() >= sizeof magic && std::memcmp(bytes.data(), magic, sizeof magic) == 0;
  if (format == received_format::automatic)
    format = has_magic ? received_format::packed : received_format::text;
  if (format == received_format::packed) {
    require<format_error>(has_magic, path, ": not a packed received file (missing GPFSYNC1 magic)");
    return parse_packed(bytes, path);
  }
  return parse_text(bytes, path);
}

void write_received_file(const std::string& path, const batch<std::uint8_t>& frames,
                         received_format format) {
  std::ofstream out(path, std::ios::binary);
  require<error>(out.good(), "cannot open '", path, "' for writing");
  if (format == received_format::packed) {
    out.write(magic, sizeof magic);
    for (std::size_t f = 0; f < frames.frames(); ++f) {
      const std::uint64_t count = frames.length(f);
      for (int b = 0; b < 8; ++b) out.put(static_cast<char>((count >> (8 * b)) & 0xff));
      const auto packed = pack_bits(frames.frame(f));
      out.write(reinterpret_cast<const char*>(packed.data()),
                static_cast<std::streamsize>(packed.size()));
    }
  } else {
    for (std::size_t f = 0; f < frames.frames(); ++f) {
      for (std::uint8_t v : frames.frame(f)) out.put(static_cast<char>('0' + v));
      out.put('\n');
    }
  }
  require<error>(out.good(), "error writing '", path, "'");
}

app_format parse_app_format(std::string_view name) {
  return parse_name<app_format>(name, "APP format");
}

decoder_output_files::decoder_output_files(const std::string& app_path, app_format format,
                                           const std::string& decisions_path,
                                           const std::string& drift_path)
    : format_(format) {
  auto open = [](std::ofstream& s, const std::string& path, bool binary) {
    if (path.empty()) return;
    s.open(path, binary ? std::ios::binary : std::ios::out);
    require<error>(s.good(), "cannot open '", path, "' for writing");
  };
  open(app_, app_path, format == app_format::f64);
  open(decisions_, decisions_path, false);
  open(drift_, drift_path, false);
  if (app_.is_open() && format == app_format::csv) app_ << "frame,i,D,app\n";
  if (drift_.is_open()) drift_ << "frame,boundary,drift,probability\n";
}

void decoder_output_files::write(const decode_output& out, std::size_t first) {
  char buf[40];
  for (std::size_t f = 0; f < out.frames; ++f) {
    const std::size_t frame = first + f;
    if (app_.is_open()) {
      const double* a = out.frame_app(f);
      if (format_ == app_format::f64) {
        app_.write(reinterpret_cast<const char*>(a),
                   static_cast<std::streamsize>(sizeof(double) * out.N * out.q));
      } else if (format_ == app_format::csv) {
        for (int i = 0; i < out.N; ++i)
          for (int D = 0; D < out.q; ++D) {
            std::snprintf(buf, sizeof buf, "%.17g", a[i * out.q + D]);
            app_ << frame << ',' << i << ',' << D << ',' << buf << '\n';
          }
      } else {
        app_ << "# frame " << frame << (out.decoded[f] ? "" : " undecodable") << '\n';
        for (int i = 0; i < out.N; ++i) {
          for (int D = 0; D < out.q; ++D) {
            std::snprintf(buf, sizeof buf, "%.17g", a[i * out.q + D]);
            app_ << (D ? " " : "") << buf;
          }
          app_ << '\n';
        }
      }
    }
    if (decisions_.is_open()) {
      if (!out.decoded[f]) {
        decisions_ << "# undecodable: " << out.messages[f] << '\n';
      } else {
        for (int i = 0; i < out.N; ++i) decisions_ << (i ? " " : "") << out.frame_decisions(f)[i];
        decisions_ << '\n';
      }
    }
    if (drift_.is_open() && out.decoded[f]) {
      const double* l = out.frame_drift(f);
      for (int i = 0; i <= out.N; ++i)
        for (int m = 0; m < out.M_tau; ++m) {
          const double v = l[static_cast<std::size_t>(i) * out.M_tau + m];
          if (v <= 0) continue;
          std::snprintf(buf, sizeof buf, "%.17g", v);
          drift_ << frame << ',' << i << ',' << out.m_tau_min + m << ',' << buf << '\n';
        }
    }
  }
  require<error>(!app_.is_open() || app_.good(), "error writing the APP file");
  require<error>(!decisions_.is_open() || decisions_.good(), "error writing the decisions file");
  require<error>(!drift_.is_open() || drift_.good(), "error writing the drift file");
}

}  // namespace gpufec::sync
