#include "family_registry.hpp"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/provenance.hpp"

namespace gpufec::cli {

namespace {
// A function-local static, so registration from other files' static objects never runs before
// the table exists.
std::vector<family_commands>& table() {
  static std::vector<family_commands> families;
  return families;
}

// A number in a message: "0.5", "1e-300", "67108864", never 300 digits: whole numbers up to
// 2^53 in full (a range's bounds are often integers), others in their shortest form.
std::string number(double v) {
  char buf[32];
  if (std::floor(v) == v && std::abs(v) <= 9007199254740992.0)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The number in `text`, or an error message.
std::string parse_finite(const std::string& text, double& v) {
  char* end = nullptr;
  errno = 0;
  v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number";
  if (!std::isfinite(v)) return "'" + text + "' is not a finite number";
  return {};
}

CLI::Validator number_check(std::string description, std::function<std::string(double)> check) {
  return CLI::Validator(
      [check](std::string& text) -> std::string {
        double v = 0;
        if (std::string why = parse_finite(text, v); !why.empty()) return why;
        return check(v);
      },
      std::move(description), "");
}
}  // namespace

register_family::register_family(family_commands commands) {
  table().push_back(commands);
}

std::vector<family_commands> registered_families() {
  std::vector<family_commands> sorted = table();
  std::sort(sorted.begin(), sorted.end(),
            [](const family_commands& a, const family_commands& b) { return a.name < b.name; });
  return sorted;
}

sim::options simulate_options::simulator_options() const {
  sim::options o;
  o.seed = seed;
  o.stop.max_fe = max_fe;
  o.stop.max_frames = max_frames;
  o.stop.max_time_s = max_time_s;
  o.threads = threads;
  o.batch_frames = batch_frames;
  return o;
}

std::vector<gpufec::backend> bench_options::resolved_backends() const {
  if (backend != "all") return {parse_backend(backend)};  // cuda without a device: throws
  if (cuda_device_count() > 0) return {gpufec::backend::cpu, gpufec::backend::cuda};
  return {gpufec::backend::cpu};
}

std::ostream& decode_options::log() const {
  static std::ostream discard(nullptr);  // no buffer: every write is dropped
  return quiet ? discard : std::cerr;
}

std::ostream& bench_options::table() const {
  return json_path == "-" ? std::cerr : std::cout;
}

void bench_options::write_json(output_file& json, nlohmann::json document, double started,
                               bool gpu) const {
  if (!json) return;
  document["provenance"] = provenance(started, gpu);
  json.write(document.dump(2) + "\n");
  json.commit();
}

CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto first = text.find_first_not_of(" \t");
        if (first == std::string::npos ||
            text.find_first_not_of("0123456789", first) != std::string::npos)
          return "'" + text + "' is not a non-negative integer";
        errno = 0;
        (void)std::strtoull(text.c_str(), nullptr, 10);
        if (errno == ERANGE) return "'" + text + "' is larger than 2^64 - 1";
        return {};
      },
      "", "unsigned");
}

CLI::Validator in_range(double lo, double hi) {
  return number_check("in [" + number(lo) + ", " + number(hi) + "]", [lo, hi](double v) {
    return v >= lo && v <= hi ? std::string()
                              : "must lie in [" + number(lo) + ", " + number(hi) + "]";
  });
}

CLI::Validator at_least(double lo) {
  return number_check(">= " + number(lo), [lo](double v) {
    return v >= lo ? std::string() : "must be >= " + number(lo);
  });
}

CLI::Validator greater_than(double lo) {
  return number_check("> " + number(lo), [lo](double v) {
    return v > lo ? std::string() : "must be > " + number(lo);
  });
}

CLI::Validator finite() {
  return number_check("", [](double) { return std::string(); });
}

CLI::Validator snr_db() {
  return in_range(-channel::max_ebn0_db, channel::max_ebn0_db);
}

CLI::Validator sweep_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          (void)sim::parse_sweep(text);
        } catch (const gpufec::error& e) {
          return e.what();
        }
        return {};
      },
      "", "sweep");
}

void distinct_paths(std::initializer_list<named_path> inputs,
                    std::initializer_list<named_path> outputs) {
  try {
    require_distinct(inputs, outputs);
  } catch (const invalid_argument& e) {
    throw usage_error(e.what());
  }
}

void use_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

}  // namespace gpufec::cli
