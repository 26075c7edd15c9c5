#include "gpufec/sync/received_file.hpp"

#include <cstdio>
#include <iterator>
#include <sstream>

#include "gpufec/common/bit_file.hpp"
#include "gpufec/common/files.hpp"

namespace gpufec::sync {
namespace {

batch<std::uint8_t> parse_text(std::string_view text, const std::string& path) {
  batch<std::uint8_t> frames;
  std::istringstream lines{std::string(text)};
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

}  // namespace

received_format parse_received_format(std::string_view name) {
  return parse_name<received_format>(name, "received format");
}

batch<std::uint8_t> read_received_file(const std::string& path, received_format format) {
  const std::string bytes = read_input(path);
  const bool has_magic = bytes.starts_with(framed_magic);
  if (format == received_format::automatic)
    format = has_magic ? received_format::packed : received_format::text;
  if (format == received_format::packed) {
    // Sync's packed is the framed container; these two messages are its own.
    require<format_error>(has_magic, path, ": not a packed received file (missing GPFSYNC1 magic)");
    require<format_error>(bytes.size() > framed_magic.size(), path,
                          ": packed file holds no frames");
    return parse_bit_frames(bytes, path, bit_format::framed);
  }
  return parse_text(as_text(bytes, path, "a packed file starts with GPFSYNC1"), path);
}

void write_received_file(const std::string& path, const batch<std::uint8_t>& frames,
                         received_format format) {
  output_file out(path);
  out.write(received_file_bytes(frames, format));
  out.commit();
}

std::string received_file_bytes(const batch<std::uint8_t>& frames, received_format format) {
  return bit_frames_bytes(
      frames.view(), format == received_format::packed ? bit_format::framed : bit_format::text);
}

app_format parse_app_format(std::string_view name) {
  return parse_name<app_format>(name, "APP format");
}

decoder_output_files::decoder_output_files(const std::string& app_path, app_format format,
                                           const std::string& decisions_path,
                                           const std::string& drift_path)
    : format_(format) {
  if (!app_path.empty()) app_ = output_file(app_path);
  if (!decisions_path.empty()) decisions_ = output_file(decisions_path);
  if (!drift_path.empty()) drift_ = output_file(drift_path);
  if (app_ && format == app_format::csv) app_ << "frame,i,D,app\n";
  if (drift_) drift_ << "frame,boundary,drift,probability\n";
}

void decoder_output_files::commit() {
  for (output_file* f : {&app_, &decisions_, &drift_})
    if (*f) f->commit();
}

void decoder_output_files::write(const decode_output& out, std::size_t first) {
  char buf[40];
  std::string app_text, decisions_text, drift_text;
  for (std::size_t f = 0; f < out.frames; ++f) {
    const std::size_t frame = first + f;
    if (app_) {
      const double* a = out.frame_app(f);
      if (format_ == app_format::f64) {
        app_text.append(reinterpret_cast<const char*>(a), sizeof(double) * out.N * out.q);
      } else if (format_ == app_format::csv) {
        for (int i = 0; i < out.N; ++i)
          for (int D = 0; D < out.q; ++D) {
            std::snprintf(buf, sizeof buf, "%.17g", a[i * out.q + D]);
            app_text += cat(frame, ',', i, ',', D, ',', buf, '\n');
          }
      } else {
        app_text += cat("# frame ", frame, out.decoded[f] ? "" : " undecodable", '\n');
        for (int i = 0; i < out.N; ++i) {
          for (int D = 0; D < out.q; ++D) {
            std::snprintf(buf, sizeof buf, "%.17g", a[i * out.q + D]);
            app_text += cat(D ? " " : "", buf);
          }
          app_text += '\n';
        }
      }
    }
    if (decisions_) {
      if (!out.decoded[f]) {
        decisions_text += cat("# undecodable: ", out.messages[f], '\n');
      } else {
        for (int i = 0; i < out.N; ++i)
          decisions_text += cat(i ? " " : "", out.frame_decisions(f)[i]);
        decisions_text += '\n';
      }
    }
    if (drift_ && out.decoded[f]) {
      const double* l = out.frame_drift(f);
      for (int i = 0; i <= out.N; ++i)
        for (int m = 0; m < out.M_tau; ++m) {
          const double v = l[static_cast<std::size_t>(i) * out.M_tau + m];
          if (v <= 0) continue;
          std::snprintf(buf, sizeof buf, "%.17g", v);
          drift_text += cat(frame, ',', i, ',', out.m_tau_min + m, ',', buf, '\n');
        }
    }
  }
  if (app_) app_.write(app_text);
  if (decisions_) decisions_.write(decisions_text);
  if (drift_) drift_.write(drift_text);
}

}  // namespace gpufec::sync
