// How much host memory a plan may count on: the least of what the kernel says is available
// (MemAvailable), the headroom of every cgroup the process is in (a container's or a batch job's
// limit, which MemAvailable does not see: exceeding it ends the run at the OOM killer instead of
// with a message) and the user's cap GPUFEC_MEMORY_LIMIT.
#include "common/host_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec {
namespace detail {

namespace {

constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();

// The first number in a file ("max" and unreadable files mean no limit).
std::size_t read_bytes(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return unlimited;
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(word, &used);
    return used == word.size() ? static_cast<std::size_t>(v) : unlimited;
  } catch (const std::exception&) {
    return unlimited;
  }
}

// The value of `key` in a "key value" file such as memory.stat (0 when absent).
std::size_t read_stat(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string k;
  std::size_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

// limit - (usage - reclaimable page cache): what a new allocation can take before the cgroup's
// limit is reached. No limit: unlimited.
std::size_t headroom(std::size_t limit, std::size_t usage, std::size_t reclaimable) {
  if (limit == unlimited) return unlimited;
  const std::size_t resident = usage - std::min(usage, reclaimable);
  return limit > resident ? limit - resident : 0;
}

}  // namespace

std::size_t cgroup_memory_headroom(const std::string& cgroup_root, const std::string& self_cgroup) {
  std::size_t least = unlimited;
  std::istringstream lines(self_cgroup);
  for (std::string line; std::getline(lines, line);) {
    // "0::/path" (cgroup v2) or "N:memory:/path" (v1, also "N:memory,other:/path").
    const std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    const bool v2 = controllers.empty();
    if (!v2 && ("," + controllers + ",").find(",memory,") == std::string::npos) continue;
    const std::string mount = v2 ? cgroup_root : cgroup_root + "/memory";
    // A container sees its own cgroup at the mount's root while /proc still names the host's
    // path; limits nest, so every ancestor of the path that exists counts, the root included.
    while (true) {
      const std::string dir = mount + (path == "/" ? "" : path);
      const std::size_t h =
          v2 ? headroom(read_bytes(dir + "/memory.max"), read_bytes(dir + "/memory.current"),
                        read_stat(dir + "/memory.stat", "inactive_file"))
             : headroom(read_bytes(dir + "/memory.limit_in_bytes"),
                        read_bytes(dir + "/memory.usage_in_bytes"),
                        read_stat(dir + "/memory.stat", "total_inactive_file"));
      // v1 reports "no limit" as a page-rounded LONG_MAX: anything above 2^62 is none.
      if (h < (std::size_t{1} << 62)) least = std::min(least, h);
      if (path.empty() || path == "/") break;
      const std::size_t slash = path.find_last_of('/');
      path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
  }
  return least;
}

std::size_t parse_memory_limit(std::string_view text) {
  auto refuse = [&] {
    return invalid_argument(cat(memory_limit_variable, " = \"", text,
                                "\" is not a size: use bytes or a number with K, M, G or T "
                                "(powers of 1024), e.g. 64G"));
  };
  std::string s(text);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) throw refuse();
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    throw refuse();
  }
  std::string unit = s.substr(used);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() == 3 && unit.substr(1) == "IB") unit = unit.substr(0, 1);
  if (unit.size() == 2 && unit[1] == 'B') unit = unit.substr(0, 1);
  int shift = 0;
  if (unit == "K")
    shift = 10;
  else if (unit == "M")
    shift = 20;
  else if (unit == "G")
    shift = 30;
  else if (unit == "T")
    shift = 40;
  else if (!unit.empty() && unit != "B")
    throw refuse();
  const double bytes = value * static_cast<double>(std::size_t{1} << shift);
  if (!(bytes >= 1) || bytes >= 18446744073709551615.0) throw refuse();
  return static_cast<std::size_t>(bytes);
}

}  // namespace detail

std::size_t available_host_memory() {
  std::size_t available = std::numeric_limits<std::size_t>::max();
  {
    std::ifstream meminfo("/proc/meminfo");
    bool found = false;
    for (std::string line; !found && std::getline(meminfo, line);) {
      std::istringstream words(line);
      std::string key;
      std::size_t kib = 0;
      if (words >> key >> kib && key == "MemAvailable:") available = kib * 1024, found = true;
    }
    if (!found) {
      const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
      if (pages > 0 && page > 0)
        available = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
    }
  }
  std::ifstream self("/proc/self/cgroup");
  std::stringstream cgroups;
  cgroups << self.rdbuf();
  available = std::min(available, detail::cgroup_memory_headroom("/sys/fs/cgroup", cgroups.str()));
  if (const char* cap = std::getenv(detail::memory_limit_variable); cap && *cap)
    available = std::min(available, detail::parse_memory_limit(cap));
  return available;
}

}  // namespace gpufec
