// gpufec._core.channel: BPSK over AWGN as `gpufec channel awgn` sends frames (frame f of seed s
// draws the noise of (s, f): the same values as the CLI's f-th frame).
#include <cstdint>
#include <span>

#include "bindings.hpp"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::python {

namespace {

using namespace nb::literals;

// bits: [frames, n] 0/1; out: the same shape, float32 samples (y = 1 - 2b + noise) or LLRs.
void awgn(host_in<std::uint8_t> bits, host_out<float> out, double sigma, std::uint64_t seed,
          std::uint64_t first_frame, std::size_t n, bool llr) {
  require(out.size() == bits.size(), "awgn: room for ", out.size(), " values, ", bits.size(),
          " needed");
  const std::size_t frames = frames_of(bits.size(), n, "bits");
  for (std::size_t i = 0; i < bits.size(); ++i)
    require(bits.data()[i] <= 1, "awgn: bit ", i % n, " of frame ", i / n, " is ",
            int(bits.data()[i]), " (must be 0 or 1)");
  const channel::bpsk_awgn ch(sigma);
  const auto frames_count = static_cast<std::int64_t>(frames);
#pragma omp parallel for schedule(static)
  for (std::int64_t f = 0; f < frames_count; ++f) {
    const std::span<const std::uint8_t> x(bits.data() + f * n, n);
    const std::span<float> y(out.data() + f * n, n);
    ch.transmit(seed, first_frame + static_cast<std::uint64_t>(f), x, y);
    if (llr) ch.llr(y, y);
  }
}

}  // namespace

void bind_channel(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("channel", "Channels: BPSK over AWGN");
  m.def("sigma_from_ebn0", &channel::sigma_from_ebn0, "ebn0_db"_a, "rate"_a = 1.0,
        "bits_per_symbol"_a = 1);
  m.def("sigma_from_esn0", &channel::sigma_from_esn0, "esn0_db"_a);
  m.def("awgn", &awgn, "bits"_a, "out"_a, "sigma"_a, "seed"_a, "first_frame"_a, "n"_a, "llr"_a,
        nb::call_guard<nb::gil_scoped_release>());
}

}  // namespace gpufec::python
