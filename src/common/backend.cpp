#include "gpufec/common/backend.hpp"

#include "common/backend_registry.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec {

backend parse_backend(std::string_view name) {
  return resolve_backend(parse_name<backend>(name, "backend"));
}

std::string to_string(backend b) {
  return std::string(name_of(b));
}

backend resolve_backend(backend requested) {
  if (requested == backend::cpu) return backend::cpu;
  if (requested == backend::automatic)
    return cuda_compiled() && cuda_device_count() > 0 ? backend::cuda : backend::cpu;
  require_cuda("backend 'cuda'");
  return backend::cuda;
}

backend_choice choose_device_backend(backend requested) {
  if (requested != backend::automatic) return {requested, {}};
  if (!cuda_compiled()) return {backend::cpu, "built without CUDA"};
  if (cuda_device_count() == 0) return {backend::cpu, "no usable CUDA device"};
  return {backend::cuda, "a CUDA device"};
}

}  // namespace gpufec
