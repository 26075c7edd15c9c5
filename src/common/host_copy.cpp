#include "common/host_copy.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace gpufec {

void host_copy(void* to, const void* from, std::size_t bytes) {
  constexpr std::size_t block = std::size_t{1} << 20;
  const std::size_t blocks = (bytes + block - 1) / block;
  // Below a few blocks, or inside a parallel region, threads cost more than they bring.
  if (blocks < 4 || omp_in_parallel()) {
    std::memcpy(to, from, bytes);
    return;
  }
  auto* out = static_cast<unsigned char*>(to);
  const auto* in = static_cast<const unsigned char*>(from);
  const int threads = static_cast<int>(std::min<std::size_t>(blocks / 2, omp_get_max_threads()));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(blocks); ++k) {
    const std::size_t at = static_cast<std::size_t>(k) * block;
    std::memcpy(out + at, in + at, std::min(block, bytes - at));
  }
}

void host_parallel_for(std::size_t n, const std::function<void(std::size_t)>& body) {
  constexpr std::size_t block = 256;
  const std::size_t blocks = (n + block - 1) / block;
  if (blocks < 2 || omp_in_parallel()) {
    for (std::size_t k = 0; k < n; ++k) body(k);
    return;
  }
  const int threads = static_cast<int>(std::min<std::size_t>(blocks, omp_get_max_threads()));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::ptrdiff_t b = 0; b < static_cast<std::ptrdiff_t>(blocks); ++b)
    for (std::size_t k = static_cast<std::size_t>(b) * block; k < std::min(n, (b + 1) * block); ++k)
      body(k);
}

}  // namespace gpufec
