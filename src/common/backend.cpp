#include "gpufec/common/backend.hpp"

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec {

backend parse_backend(std::string_view name) {
  if (name == "cpu") return backend::cpu;
  if (name == "cuda") return backend::cuda;
  if (name == "auto") return resolve_backend(backend::automatic);
  throw invalid_argument(cat("unknown backend '", name, "' (expected cpu, cuda or auto)"));
}

std::string to_string(backend b) {
  switch (b) {
    case backend::cpu:
      return "cpu";
    case backend::cuda:
      return "cuda";
    case backend::automatic:
      return "auto";
  }
  return "?";
}

backend resolve_backend(backend requested) {
  if (requested == backend::cpu) return backend::cpu;
  const bool have_device = cuda_device_count() > 0;
  if (requested == backend::automatic) return have_device ? backend::cuda : backend::cpu;
  require(get_build_info().cuda, "backend 'cuda' requested but gpufec was built without CUDA");
  require(have_device, "backend 'cuda' requested but no CUDA device is available");
  return backend::cuda;
}

}  // namespace gpufec
