#include "gpufec/common/provenance.hpp"

#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "common/device_queries.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec {

namespace detail {
extern const char* const built_git_commit;  // generated at build time (cmake/git_commit.cmake)
}

namespace {

std::string& command_line_text() {
  static std::string text;
  return text;
}

// A word as a POSIX shell reads it back: as it is when it holds only safe characters, else in
// single quotes (a quote inside written '\'').
std::string shell_word(std::string_view word) {
  constexpr std::string_view safe =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+-@%";
  if (!word.empty() && word.find_first_not_of(safe) == std::string_view::npos)
    return std::string(word);
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The NVIDIA kernel module's version ("570.86.15"), from /proc/driver/nvidia/version; empty when
// it is not there (no driver, another OS).
std::string nvidia_driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return {};
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Tue Jan 14 ..." : the first word
  // that starts with a digit and holds a dot.
  std::istringstream words(line);
  for (std::string w; words >> w;)
    if (!w.empty() && w[0] >= '0' && w[0] <= '9' && w.find('.') != std::string::npos) return w;
  return {};
}

std::string version_text(int v) {  // 13000 -> "13.0"
  return v > 0 ? std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) : std::string();
}

}  // namespace

void record_command_line(int argc, const char* const* argv) {
  std::string text;
  for (int a = 0; a < argc; ++a) {
    if (a) text += ' ';
    text += shell_word(argv[a]);
  }
  command_line_text() = std::move(text);
}

const std::string& recorded_command_line() {
  return command_line_text();
}

std::string_view git_commit() {
  return detail::built_git_commit;
}

host_info get_host_info() {
  host_info h;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    h.cpu_model = line.substr(line.find_first_not_of(" \t", colon + 1));
    break;
  }
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  h.hardware_threads = online > 0 ? static_cast<int>(online) : 0;
  return h;
}

double seconds_since_epoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string utc_text(double seconds) {
  const auto whole = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

nlohmann::json provenance(double started, bool gpu_used) {
  const build_info b = get_build_info();
  const host_info h = get_host_info();
  nlohmann::json j;
  j["command_line"] = recorded_command_line();
  j["started_utc"] = utc_text(started);
  j["gpufec_version"] = b.version;
  j["git_commit"] = std::string(git_commit());
  j["build_type"] = b.build_type;
  j["host"] = {{"cpu_model", h.cpu_model},
               {"hardware_threads", h.hardware_threads},
               {"openmp_threads", omp_get_max_threads()}};
  j["gpu"] = nullptr;
  const device_queries* q = cuda_factory_or_null<device_queries_entry>();
  if (gpu_used && q && q->device_count() > 0) {
    const int index = q->current_device();
    for (const cuda_device_info& d : q->devices())
      if (d.index == index)
        j["gpu"] = {{"index", d.index},
                    {"name", d.name},
                    {"compute_capability", cat(d.compute_major, ".", d.compute_minor)},
                    {"sm_count", d.sm_count},
                    {"memory_bytes", d.total_memory},
                    {"cuda_driver", version_text(q->driver_version())},
                    {"nvidia_driver", nvidia_driver_version()},
                    {"cuda_runtime", version_text(b.cuda_runtime_version)}};
  }
  return j;
}

}  // namespace gpufec
