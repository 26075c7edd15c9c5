#include "family_registry.hpp"

#include <algorithm>

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::cli {

namespace {
// A function-local static, so registration from other files' static objects never runs before
// the table exists.
std::vector<family_commands>& table() {
  static std::vector<family_commands> families;
  return families;
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
  if (backend != "all") return {parse_backend(backend)};
  if (cuda_device_count() > 0) return {gpufec::backend::cpu, gpufec::backend::cuda};
  return {gpufec::backend::cpu};
}

CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto first = text.find_first_not_of(" \t");
        if (first == std::string::npos || text[first] < '0' || text[first] > '9')
          return "'" + text + "' is not a non-negative integer";
        return {};
      },
      "", "unsigned");
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

}  // namespace gpufec::cli
