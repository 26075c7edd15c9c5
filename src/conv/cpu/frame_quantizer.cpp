#include "conv/cpu/frame_quantizer.hpp"

#include <algorithm>
#include <vector>

#include "conv/cpu/fast_kernel.hpp"
#include "conv/model/llr_input.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/conv/decoder.hpp"

namespace gpufec::conv::detail {
namespace {

// Values per task of the quantizer's and the hard bits' loops (a task's start costs nothing
// against it).
constexpr std::size_t kValuesPerTask = std::size_t{1} << 18;

}  // namespace

// The automatic scale's sum is taken run by run of scan_llrs (a task each), and the runs' sums
// added in order: the additions of scan_llrs over the whole frame, so the scale, and hence the
// bits, equal the one-thread path's.
double quantize_frame(std::span<const float> llrs, double fixed_scale, std::int8_t* q,
                      int threads) {
  const std::size_t n = llrs.size();
  const std::size_t runs = (n + kLlrScanRun - 1) / kLlrScanRun;
  if (threads <= 1 || runs < 2) {
    const double scale = fixed_scale > 0 ? fixed_scale : auto_llr_scale(llrs);
    if (fixed_scale > 0) require_finite(llrs);
    quantize_llrs(llrs.data(), n, static_cast<float>(scale), q);
    return scale;
  }
  std::vector<double> run_sums(runs);
  std::size_t first_bad = n;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first_bad)
  for (std::ptrdiff_t r = 0; r < static_cast<std::ptrdiff_t>(runs); ++r) {
    const std::size_t at = static_cast<std::size_t>(r) * kLlrScanRun;
    const std::size_t count = std::min(kLlrScanRun, n - at);
    const llr_scan scan = scan_llrs(llrs.data() + at, count);
    run_sums[static_cast<std::size_t>(r)] = scan.sum_abs;
    if (scan.first_not_finite < count) first_bad = std::min(first_bad, at + scan.first_not_finite);
  }
  if (first_bad < n) throw invalid_argument(not_finite_message(llrs[first_bad], first_bad));
  double scale = fixed_scale;
  if (scale <= 0) {
    double sum = 0;
    for (const double s : run_sums) sum += s;
    scale = auto_scale_of_sum(sum, n);
  }
  const auto tasks = static_cast<std::ptrdiff_t>((n + kValuesPerTask - 1) / kValuesPerTask);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::ptrdiff_t k = 0; k < tasks; ++k) {
    const std::size_t at = static_cast<std::size_t>(k) * kValuesPerTask;
    quantize_llrs(llrs.data() + at, std::min(kValuesPerTask, n - at), static_cast<float>(scale),
                  q + at);
  }
  return scale;
}

void harden_frame(std::span<const std::uint8_t> hard, std::int8_t* q, int threads) {
  const std::size_t n = hard.size();
  const auto tasks = static_cast<std::ptrdiff_t>((n + kValuesPerTask - 1) / kValuesPerTask);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && tasks > 1)
  for (std::ptrdiff_t k = 0; k < tasks; ++k) {
    const std::size_t end = std::min(n, (static_cast<std::size_t>(k) + 1) * kValuesPerTask);
    for (std::size_t i = static_cast<std::size_t>(k) * kValuesPerTask; i < end; ++i)
      q[i] = hard[i] ? -1 : 1;
  }
}

}  // namespace gpufec::conv::detail
