#include "gpufec/common/backend.hpp"

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec {

backend parse_backend(std::string_view name) {
  if (name == "cpu") return backend::cpu;
  if (name == "cuda") return backend::cuda;
  if (name == "auto") return cuda_device_count() > 0 ? backend::cuda : backend::cpu;
  throw invalid_argument(cat("unknown backend '", name, "' (expected cpu, cuda or auto)"));
}

std::string to_string(backend b) {
  return b == backend::cuda ? "cuda" : "cpu";
}

}  // namespace gpufec
