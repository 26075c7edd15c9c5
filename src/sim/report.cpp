#include "gpufec/sim/report.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/provenance.hpp"

namespace gpufec::sim {

run_description describe(const family& fam, const options& opt, std::vector<double> points) {
  run_description run{fam.name(),
                      fam.backend(),
                      fam.sweep_name(),
                      fam.parameters(),
                      opt,
                      std::move(points),
                      {},
                      0.0,
                      {}};
  run.provenance = provenance(seconds_since_epoch(), run.backend == "cuda");
  return run;
}

std::string text_of(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return cat(value.get<double>());
  return value.dump();
}

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
std::string sci(double v) {
  return fmt("%.3e", v);
}

std::string ci_text(const interval& ci) {
  return sci(ci.lower) + "," + sci(ci.upper);
}

std::string pad_left(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

}  // namespace

table_printer::table_printer(std::ostream& out, run_description run)
    : out_(out), run_(std::move(run)) {}

void table_printer::print_header() {
  const auto b = get_build_info();
  out_ << "# gpufec " << b.version << ": simulate " << run_.family << " on " << run_.backend
       << "\n";
  for (const auto& [key, value] : run_.parameters)
    out_ << "# " << key << " = " << text_of(value) << "\n";
  if (!run_.first_plan.empty()) {
    out_ << (run_.points.size() > 1 && run_.plan_point != run_.points.front()
                 ? "# plan (" + run_.sweep_name + " = " + cat(run_.plan_point) +
                       ", the point that needs the most memory):"
                 : std::string("# plan (first point):"));
    for (const auto& [key, value] : run_.first_plan) out_ << " " << key << "=" << text_of(value);
    out_ << "\n";
  }
  out_ << "# seed = " << run_.opt.seed << ", max-fe = " << run_.opt.stop.max_fe
       << ", max-frames = " << run_.opt.stop.max_frames
       << ", max-time = " << run_.opt.stop.max_time_s << " s (0 = no limit)\n";
  out_
      << "# BER/FER intervals: Wilson 95%; Dec Mb/s counts decoder time only; '-': not defined\n"
         "# (BER: symbols that carry no whole bits, see SER; every rate: a point of 0 frames)\n#\n";
  out_ << "# " << pad_left(run_.sweep_name, 8) << " | " << pad_left("FRA", 10) << " | "
       << pad_left("BE", 10) << " | " << pad_left("FE", 8) << " | " << pad_left("BER", 9) << " | "
       << pad_left("BER 95% CI", 19) << " | " << pad_left("FER", 9) << " | "
       << pad_left("FER 95% CI", 19) << " | " << pad_left("Dec Mb/s", 9) << " | "
       << pad_left("Chain Mb/s", 10) << " | " << pad_left("time s", 7) << " | stop\n";
  out_ << "# " << std::string(150, '-') << "\n" << std::flush;
}

void table_printer::on_point(const point_result& r) {
  const bool ber = r.has_ber(), rates = r.has_rates();
  auto defined = [](bool yes, const std::string& text) { return yes ? text : std::string("-"); };
  out_ << "  " << pad_left(fmt("%.4g", r.point), 8) << " | "
       << pad_left(std::to_string(r.frames), 10) << " | "
       << pad_left(r.shape.has_ber() ? std::to_string(r.bit_errors) : "-", 10) << " | "
       << pad_left(std::to_string(r.frame_errors), 8) << " | "
       << pad_left(defined(ber, sci(r.ber)), 9) << " | "
       << pad_left(defined(ber, ci_text(r.ber_ci)), 19) << " | "
       << pad_left(defined(rates, sci(r.fer)), 9) << " | "
       << pad_left(defined(rates, ci_text(r.fer_ci)), 19) << " | "
       << pad_left(defined(r.decoder_seconds > 0, fmt("%.2f", r.decoder_mbps)), 9) << " | "
       << pad_left(defined(r.chain_seconds > 0, fmt("%.2f", r.chain_mbps)), 10) << " | "
       << pad_left(fmt("%.2f", r.wall_seconds), 7) << " | " << to_string(r.reason)
       << (r.reason == stop_reason::interrupted || r.reason == stop_reason::failed ? " *" : "")
       << "\n";
  // SER gets its own line, so the columns are the same for every family.
  if (r.shape.q_ary)
    out_ << "  " << pad_left("", 8) << "   SER " << defined(rates, sci(r.ser)) << " ["
         << defined(rates, ci_text(r.ser_ci)) << "], symbol errors " << r.symbol_errors << "\n";
  if (r.undecodable > 0)
    out_ << "  " << pad_left("", 8) << "   undecodable frames " << r.undecodable
         << " (frame errors; their all-zero decisions are scored as decided)\n";
  if (!r.details.empty()) {  // the family's per-point facts (state-space sizes, memory, ...)
    out_ << "  " << pad_left("", 8) << "  ";
    for (const auto& [key, value] : r.details) out_ << " " << key << "=" << text_of(value);
    out_ << "\n";
  }
  out_ << std::flush;
}

void table_printer::print_footer(const sweep_result& s, const std::string& signal_name) {
  const std::size_t run = s.points.size(), asked = run_.points.size();
  switch (s.status) {
    case run_status::complete:
    case run_status::running:
      out_ << "# complete: " << run << " of " << asked << " point(s)\n";
      break;
    case run_status::interrupted:
      out_ << "# interrupted" << (signal_name.empty() ? "" : " by " + signal_name)
           << ": * marks the point cut short; " << run << " of " << asked << " point(s) run"
           << (run < asked ? ", the others not\n" : "\n");
      break;
    case run_status::failed:
      out_ << "# failed: * marks the point that failed (" << s.error << "); " << run << " of "
           << asked << " point(s) run" << (run < asked ? ", the others not\n" : "\n");
      break;
  }
  out_ << std::flush;
}

namespace {

nlohmann::json defined(bool yes, const nlohmann::json& value) {
  return yes ? value : nlohmann::json();
}

}  // namespace

nlohmann::json to_json(const run_description& run, const sweep_result& s,
                       const std::string& signal_name) {
  const auto b = get_build_info();
  nlohmann::json j;
  j["gpufec_version"] = b.version;
  j["family"] = run.family;
  j["backend"] = run.backend;
  j["sweep"] = run.sweep_name;
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [key, value] : run.parameters) params[key] = value;
  j["parameters"] = params;
  j["options"] = {{"seed", run.opt.seed},
                  {"max_fe", run.opt.stop.max_fe},
                  {"max_frames", run.opt.stop.max_frames},
                  {"max_time_s", run.opt.stop.max_time_s},
                  {"batch_frames", run.opt.batch_frames},
                  {"threads", run.opt.threads}};
  j["status"] = to_string(s.status);
  j["completed"] = s.status == run_status::complete;
  j["interrupted"] = s.interrupted();
  j["signal"] = defined(s.interrupted() && !signal_name.empty(), signal_name);
  j["error"] = defined(s.status == run_status::failed, s.error);
  j["points_requested"] = run.points;
  j["provenance"] = run.provenance;
  nlohmann::json points = nlohmann::json::array();
  for (const point_result& r : s.points) {
    const bool ber = r.has_ber(), rates = r.has_rates();
    nlohmann::json p = {
        {"index", r.index},
        {"point", r.point},
        {"seed", r.seed},
        {"info_bits_per_frame", r.shape.info_bits},
        {"bits_per_symbol", r.shape.bits_per_symbol},
        {"symbols_per_frame", r.shape.symbols},
        {"frames", r.frames},
        {"simulated_frames", r.simulated_frames},
        {"frame_errors", r.frame_errors},
        {"bit_errors", defined(r.shape.has_ber(), r.bit_errors)},
        {"undecodable", r.undecodable},
        {"ber", defined(ber, r.ber)},
        {"ber_ci95", defined(ber, nlohmann::json{r.ber_ci.lower, r.ber_ci.upper})},
        {"fer", defined(rates, r.fer)},
        {"fer_ci95", defined(rates, nlohmann::json{r.fer_ci.lower, r.fer_ci.upper})},
        {"decoder_seconds", r.decoder_seconds},
        {"chain_seconds", r.chain_seconds},
        {"wall_seconds", r.wall_seconds},
        {"decoder_mbps", defined(r.decoder_seconds > 0, r.decoder_mbps)},
        {"chain_mbps", defined(r.chain_seconds > 0, r.chain_mbps)},
        {"stop_reason", to_string(r.reason)},
        {"error", defined(r.reason == stop_reason::failed, r.error)}};
    if (r.shape.q_ary) {
      p["symbol_errors"] = r.symbol_errors;
      p["ser"] = defined(rates, r.ser);
      p["ser_ci95"] = defined(rates, nlohmann::json{r.ser_ci.lower, r.ser_ci.upper});
    }
    nlohmann::json details = nlohmann::json::object();
    for (const auto& [key, value] : r.details) details[key] = value;
    p["details"] = details;
    points.push_back(p);
  }
  j["points"] = points;
  return j;
}

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

std::string to_csv(const run_description& run, const sweep_result& s) {
  std::ostringstream out;
  out << "family,backend,sweep,seed,max_fe,max_frames,max_time_s";
  for (const auto& kv : run.parameters) out << "," << csv_field(kv.first);
  out << ",run_status,index,point,point_seed,frames,simulated_frames,frame_errors,bit_errors,"
         "symbol_errors,undecodable,ber,ber_ci95_lower,ber_ci95_upper,fer,fer_ci95_lower,"
         "fer_ci95_upper,ser,ser_ci95_lower,ser_ci95_upper,decoder_seconds,chain_seconds,"
         "wall_seconds,decoder_mbps,chain_mbps,stop_reason\n";
  out.precision(17);
  const std::string status = to_string(s.status);
  // Every requested point: those run with their figures, the others with their value alone.
  const std::size_t lines = std::max(run.points.size(), s.points.size());
  for (std::size_t k = 0; k < lines; ++k) {
    out << csv_field(run.family) << "," << run.backend << "," << csv_field(run.sweep_name) << ","
        << run.opt.seed << "," << run.opt.stop.max_fe << "," << run.opt.stop.max_frames << ","
        << run.opt.stop.max_time_s;
    for (const auto& kv : run.parameters) out << "," << csv_field(text_of(kv.second));
    out << "," << status << "," << k << ",";
    if (k >= s.points.size()) {
      out << run.points[k] << std::string(22, ',') << "not-run\n";  // 22 fields after point
      continue;
    }
    const point_result& r = s.points[k];
    const bool ber = r.has_ber(), rates = r.has_rates();
    auto maybe = [](bool yes, double v) { return yes ? cat(v) : std::string(); };
    out << r.point << "," << r.seed << "," << r.frames << "," << r.simulated_frames << ","
        << r.frame_errors << ","
        << (r.shape.has_ber() ? std::to_string(r.bit_errors) : std::string()) << ","
        << r.symbol_errors << "," << r.undecodable << "," << maybe(ber, r.ber) << ","
        << maybe(ber, r.ber_ci.lower) << "," << maybe(ber, r.ber_ci.upper) << ","
        << maybe(rates, r.fer) << "," << maybe(rates, r.fer_ci.lower) << ","
        << maybe(rates, r.fer_ci.upper) << "," << maybe(rates && r.shape.q_ary, r.ser) << ","
        << maybe(rates && r.shape.q_ary, r.ser_ci.lower) << ","
        << maybe(rates && r.shape.q_ary, r.ser_ci.upper) << "," << r.decoder_seconds << ","
        << r.chain_seconds << "," << r.wall_seconds << ","
        << maybe(r.decoder_seconds > 0, r.decoder_mbps) << ","
        << maybe(r.chain_seconds > 0, r.chain_mbps) << "," << to_string(r.reason) << "\n";
  }
  return out.str();
}

void write_json(const std::string& path, const run_description& run, const sweep_result& s) {
  write_json_file(path, to_json(run, s));
}

void write_csv(const std::string& path, const run_description& run, const sweep_result& s) {
  write_file(path, to_csv(run, s));
}

report_files::report_files(std::string json_path, std::string csv_path, run_description run)
    : json_path_(std::move(json_path)), csv_path_(std::move(csv_path)), run_(std::move(run)) {
  require_distinct({}, {{"--json", json_path_}, {"--csv", csv_path_}});
  require(!(json_path_ == "-" && csv_path_ == "-"),
          "--json - and --csv - both ask for standard output; give one of them a file");
  write(false);  // before any work: a bad path fails now, and a run cut short keeps a valid file
}

void report_files::on_point(const point_result& r) {
  done_.points.push_back(r);
  write(false);
}

void report_files::finish(const sweep_result& s, std::string signal_name) {
  done_ = s;
  signal_ = std::move(signal_name);
  write(true);
}

void report_files::write(bool last) const {
  // Standard output takes one document, the last one; files are rewritten as the sweep goes.
  if (!json_path_.empty() && (last || json_path_ != "-")) {
    write_json_file(json_path_, to_json(run_, done_, signal_));
  }
  if (!csv_path_.empty() && (last || csv_path_ != "-")) write_file(csv_path_, to_csv(run_, done_));
}

}  // namespace gpufec::sim
