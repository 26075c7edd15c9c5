// The parts of available_host_memory() (gpufec/common/device.hpp) that tests reach directly: the
// cgroup headroom read from a given tree, and the user's cap.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpufec::detail {

// The environment variable that caps the host memory plans count on ("64G", "512M", bytes).
inline constexpr const char* memory_limit_variable = "GPUFEC_MEMORY_LIMIT";

// The least headroom (limit - resident usage) over the memory cgroups named in `self_cgroup` (the
// text of /proc/self/cgroup) and their ancestors, read under `cgroup_root` (/sys/fs/cgroup; v1
// hierarchies under its memory/ folder); SIZE_MAX when none limits memory.
std::size_t cgroup_memory_headroom(const std::string& cgroup_root, const std::string& self_cgroup);

// "64G", "1.5GiB", "512m", "4096": bytes (K, M, G, T are powers of 1024); invalid_argument naming
// the variable otherwise.
std::size_t parse_memory_limit(std::string_view text);

}  // namespace gpufec::detail
