// What this build and this machine offer: the version and build options, and the CUDA devices.
// Callable from any backend-neutral code; a build without CUDA simply reports no devices.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpufec {

struct build_info {
  std::string version;
  std::string build_type;
  bool cuda = false;               // compiled with the CUDA backend
  std::string cuda_architectures;  // e.g. "90"
  int cuda_runtime_version = 0;    // e.g. 13000; 0 without CUDA
  int openmp_max_threads = 1;
};
build_info get_build_info();

struct cuda_device_info {
  int index = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  std::size_t total_memory = 0;  // bytes
  std::size_t free_memory = 0;   // bytes, at query time
  int max_threads_per_block = 0;
  std::size_t shared_memory_per_block_optin = 0;  // bytes
  int registers_per_block = 0;
};

// Bytes of host memory a new allocation can take now without swapping: the least of Linux's
// MemAvailable (elsewhere the free physical pages), the headroom under the limits of the
// process's memory cgroups (a container's or a batch job's), and GPUFEC_MEMORY_LIMIT when set
// ("64G", "512M", bytes). Plans check their needs against it before allocating, so a request that
// cannot fit fails at once with a message, not a crash or the OOM killer.
std::size_t available_host_memory();
// "1.5 GiB", "320 MiB", "12 KiB", "100 B": sizes in messages.
std::string bytes_text(std::size_t bytes);

// Number of usable CUDA devices: 0 without the CUDA backend, a driver or a GPU (never throws).
int cuda_device_count();
std::vector<cuda_device_info> cuda_devices();

}  // namespace gpufec
