#include "gpufec/sync/decoder_output_files.hpp"

#include <cstdio>
#include <iterator>
#include <sstream>

#include "gpufec/common/files.hpp"

namespace gpufec::sync {

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
