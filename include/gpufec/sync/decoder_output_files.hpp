// The output files of `gpufec decode sync` (docs/formats.md): APPs, decisions and drift
// posteriors. Its received frames are files of bits (gpufec/common/bit_file.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gpufec/common/enum_names.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/sync/decoder.hpp"

namespace gpufec::sync {

// APPs: text (per frame a "# frame F" line, then one line of q values per symbol, %.17g), csv
// (frame,i,D,app) or f64 (raw little-endian doubles [frame][i][D]).
enum class app_format { text, csv, f64 };
app_format parse_app_format(std::string_view name);  // "text", "csv", "f64"

// Writes decode_output batches as they come; empty paths are skipped. Decisions: one line per
// frame of space-separated symbols ("# undecodable: reason" for a frame that was not decoded).
// Drift: csv frame,boundary,drift,probability (non-zero entries). The files are opened (so a bad
// path fails) at construction and appear complete at commit(); without it (an error, Ctrl-C)
// none is left behind (gpufec/common/files.hpp).
class decoder_output_files {
 public:
  decoder_output_files(const std::string& app_path, app_format format,
                       const std::string& decisions_path, const std::string& drift_path);
  void write(const decode_output& out, std::size_t first_frame);
  void commit();

 private:
  output_file app_, decisions_, drift_;
  app_format format_;
};

}  // namespace gpufec::sync

template <>
struct gpufec::enum_names<gpufec::sync::app_format> {
  using E = sync::app_format;
  static constexpr std::array entries{enum_entry{E::text, "text"}, enum_entry{E::csv, "csv"},
                                      enum_entry{E::f64, "f64"}};
};
