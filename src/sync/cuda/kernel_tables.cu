// The run-time tables of kernel instantiations (see kernel_tables.cuh).
#include <array>
#include <utility>

#include "sync/cuda/kernel_tables.cuh"
#include "sync/cuda/kernels/alpha_beta_kernels.cuh"
#include "sync/cuda/kernels/app_kernel.cuh"
#include "sync/cuda/kernels/folded_kernels.cuh"
#include "sync/cuda/kernels/gamma_kernel.cuh"
#include "sync/cuda/kernels/gamma_warp_kernel.cuh"

namespace gpufec::sync::cuda_detail {
namespace {

// The register-row kernel families, one instantiation per row width and channel.
struct gamma_warp_kernels {
  template <int W, bool NoSub>
  static constexpr gamma_warp_fn fn = gamma_warp_kernel<W, NoSub>;
};
struct gamma_beta_kernels {
  template <int W, bool NoSub>
  static constexpr gamma_beta_fn fn = gamma_beta_kernel<W, NoSub>;
};

struct gamma_beta_frame_kernels {
  template <int W, bool NoSub>
  static constexpr gamma_beta_frame_fn fn = gamma_beta_frame_kernel<W, NoSub>;
};

template <class Kernels, bool NoSub, int... W>
auto width_table(std::integer_sequence<int, W...>) {
  return std::array{Kernels::template fn<W + 2, NoSub>...};
}

template <class Kernels>
auto kernel_for_width(int W, bool nosub) {
  static const auto with_sub = width_table<Kernels, false>(std::make_integer_sequence<int, 31>{});
  static const auto no_sub = width_table<Kernels, true>(std::make_integer_sequence<int, 31>{});
  if (W < 2 || W > gamma_warp_max_width) return typename decltype(with_sub)::value_type{};
  return nosub ? no_sub[W - 2] : with_sub[W - 2];
}

template <int... J>
std::array<fb_ring_fn, sizeof...(J)> fb_ring_table(std::integer_sequence<int, J...>) {
  return {fb_ring_kernel<4 * (J + 1)>...};
}
template <int... J>
std::array<fb_step_fn, sizeof...(J)> fb_step_table(std::integer_sequence<int, J...>) {
  return {fb_step_kernel<4 * J>...};  // J = 0: fb_kernel's order
}

}  // namespace

gamma_fn gamma_general_for(bool f64) {
  return f64 ? gamma_kernel<double> : gamma_kernel<float>;
}

gamma_warp_fn gamma_warp_for(int W, bool nosub) {
  return kernel_for_width<gamma_warp_kernels>(W, nosub);
}
gamma_beta_fn gamma_beta_for(int W, bool nosub) {
  return kernel_for_width<gamma_beta_kernels>(W, nosub);
}

gamma_beta_frame_fn gamma_beta_frame_for(int W, bool nosub) {
  return kernel_for_width<gamma_beta_frame_kernels>(W, nosub);
}

fb_ring_fn fb_ring_for(int K) {
  static const auto table = fb_ring_table(std::make_integer_sequence<int, 8>{});
  return K >= 4 && K <= 32 && K % 4 == 0 ? table[K / 4 - 1] : nullptr;
}

fb_step_fn fb_step_for(int K) {
  static const auto table = fb_step_table(std::make_integer_sequence<int, 9>{});
  return K >= 0 && K <= 32 && K % 4 == 0 ? table[K / 4] : nullptr;
}

app_fn app_for(bool f64, app_source source, int vw) {
  if (f64)
    return source == app_from_gamma ? app_kernel<double, app_from_gamma, 1>
                                    : app_kernel<double, app_from_lattice, 1>;
  if (source == app_from_v) return app_kernel<float, app_from_v, 1>;
  if (source == app_from_gamma)
    return vw == 4 ? app_kernel<float, app_from_gamma, 4> : app_kernel<float, app_from_gamma, 1>;
  return app_kernel<float, app_from_lattice, 1>;
}

}  // namespace gpufec::sync::cuda_detail
