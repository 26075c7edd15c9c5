// Where a result came from, for every JSON document gpufec writes (simulations and benchmarks):
// the command line, the start time (UTC), the gpufec version and git commit, the host's CPU model
// and thread counts, and the GPU and its driver when one was used. A figure without these cannot
// be reproduced nor compared.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpufec {

// The program's command line, recorded once by main() (each word quoted for a POSIX shell where
// needed, so the line can be pasted back); empty when no program recorded one (a library user).
void record_command_line(int argc, const char* const* argv);
const std::string& recorded_command_line();

// The git commit the library was built from ("unknown" outside a checkout; "-dirty" appended when
// the checkout had uncommitted changes to tracked files at build time).
std::string_view git_commit();

struct host_info {
  std::string cpu_model;     // /proc/cpuinfo's "model name" (empty when not known)
  int hardware_threads = 0;  // logical CPUs online
};
host_info get_host_info();

// The provenance object: {"command_line", "started_utc", "gpufec_version", "git_commit", "host":
// {"cpu_model", "hardware_threads", "openmp_threads"}, "gpu": {"index", "name",
// "compute_capability", "cuda_driver", "nvidia_driver", "cuda_runtime"} or null}. `started`:
// seconds since the epoch when the work began; `gpu_used`: whether the run used the current CUDA
// device (its facts are then read, else "gpu" is null).
nlohmann::json provenance(double started, bool gpu_used);
// Seconds since the epoch now (what `started` takes), and its ISO 8601 UTC text.
double seconds_since_epoch();
std::string utc_text(double seconds_since_epoch);

}  // namespace gpufec
