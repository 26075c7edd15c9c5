// gpufec._core.polar: a polar code (its length, information set, construction, encoding), its
// encoder, and SC/BP decoder plans made once and called on batches (hard bits or soft LLRs).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "gpufec/common/enum_names.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/polar/decoder.hpp"
#include "gpufec/polar/encoder.hpp"

namespace gpufec::python {
namespace {

using namespace nb::literals;

polar::polar_code make_code(std::uint32_t N, std::uint32_t K, const std::string& construct,
                            bool systematic, const std::vector<std::uint32_t>& frozen) {
  const polar::encoding enc =
      systematic ? polar::encoding::systematic : polar::encoding::non_systematic;
  if (!frozen.empty() || construct.empty())
    return polar::polar_code::from_indices(N, frozen, polar::index_set::frozen, enc);
  return polar::polar_code(N, K, polar::construction_spec::parse(construct), enc);
}

void encode(const polar::polar_code& code, host_in<std::uint8_t> bits,
            host_out<std::uint8_t> coded) {
  const std::size_t frames = frames_of(bits.size(), code.K(), "information bits");
  require(coded.size() == frames * code.N(), "encode: room for ", coded.size(), " coded bits, ",
          frames * code.N(), " needed");
  polar::encode(code, batch_view<std::uint8_t>::uniform(bits.data(), frames, code.K()),
                batch_span<std::uint8_t>::uniform(coded.data(), frames, code.N()));
}

// The CLI's --bp-update names, with "scaled:X" for a scale.
polar::decoder_options options(const std::string& decoder, const std::string& update,
                               int iterations, bool early_stop, const std::string& schedule,
                               const std::string& output, const std::string& implementation,
                               const std::string& precision, const std::string& kernel,
                               const std::string& refill, int threads) {
  polar::decoder_options d;
  d.decoder = parse_name<polar::decoder_kind>(decoder, "decoder");
  constexpr std::string_view scaled = "scaled:";
  if (update.rfind(scaled, 0) == 0) {
    const std::string number = update.substr(scaled.size());
    char* end = nullptr;
    const double scale = std::strtod(number.c_str(), &end);
    require(!number.empty() && end == number.c_str() + number.size() && std::isfinite(scale) &&
                scale > 0 && scale <= 1,
            "the scale in update '", update, "' must be a number in (0, 1] (e.g. scaled:0.9375)");
    d.update = polar::update_rule::scaled_min_sum;
    d.scale = static_cast<float>(scale);
  } else {
    d.update = parse_name<polar::update_rule>(update, "update");
  }
  require(iterations >= 1, "iterations must be at least 1 (iterations = ", iterations, ")");
  d.iterations = iterations;
  d.early_stop = early_stop;
  d.schedule = parse_name<polar::bp_schedule>(schedule, "schedule");
  d.output = parse_name<polar::output_kind>(output, "output");
  d.path = parse_name<polar::implementation>(implementation, "implementation");
  d.precision = parse_name<polar::message_precision>(precision, "precision");
  d.kernel = parse_name<polar::cuda_kernel>(kernel, "kernel");
  d.refill = parse_name<polar::refill_policy>(refill, "refill");
  d.threads = threads;
  return d;
}

class polar_decoder {
 public:
  polar_decoder(const polar::polar_code& code, const polar::decoder_options& o,
                const std::string& where, std::size_t max_batch)
      : plan_(code, o, parse_name<backend>(where, "backend"),
              plan_batch(max_batch, code.K(), code.N(), where)) {}

  std::size_t max_batch() const { return plan_.summary().max_batch; }
  std::string where() const { return std::string(name_of(plan_.summary().where)); }
  std::string describe() const { return plan_.describe(); }
  std::size_t out_length() const {
    const auto& c = plan_.code();
    return plan_.options().output == polar::output_kind::codeword_llrs ? c.N() : c.K();
  }
  bool soft() const { return plan_.options().output != polar::output_kind::hard; }

  // llr: [frames, N]; out: [frames, out_length()]; iterations: [frames] (BP) or empty.
  void decode(host_in<float> llr, host_out<std::uint8_t> bits, host_out<std::uint32_t> iterations) {
    const std::size_t frames = frames_of(llr.size(), plan_.code().N(), "LLRs");
    require(bits.size() == frames * out_length(), "decode: room for ", bits.size(), " bits");
    plan_.decode(batch_view<float>::uniform(llr.data(), frames, plan_.code().N()),
                 batch_span<std::uint8_t>::uniform(bits.data(), frames, out_length()),
                 iteration_span(iterations, frames));
  }
  void decode_soft(host_in<float> llr, host_out<float> soft, host_out<std::uint32_t> iterations) {
    const std::size_t frames = frames_of(llr.size(), plan_.code().N(), "LLRs");
    require(soft.size() == frames * out_length(), "decode: room for ", soft.size(), " values");
    plan_.decode_soft(batch_view<float>::uniform(llr.data(), frames, plan_.code().N()),
                      batch_span<float>::uniform(soft.data(), frames, out_length()),
                      iteration_span(iterations, frames));
  }

 private:
  std::span<std::uint32_t> iteration_span(host_out<std::uint32_t>& it, std::size_t frames) const {
    if (plan_.options().decoder != polar::decoder_kind::bp) return {};
    require(it.size() == frames, "decode: room for ", it.size(), " iteration counts");
    return {it.data(), frames};
  }

  polar::decoder_plan plan_;
};

}  // namespace

void bind_polar(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("polar", "Polar codes: the library's polar family");
  nb::class_<polar::polar_code>(m, "Code", "A polar code (checked)")
      .def(
          "__init__",
          [](polar::polar_code* self, std::uint32_t N, std::uint32_t K,
             const std::string& construct, bool systematic,
             const std::vector<std::uint32_t>& frozen) {
            new (self) polar::polar_code(make_code(N, K, construct, systematic, frozen));
          },
          "N"_a, "K"_a, "construct"_a, "systematic"_a, "frozen"_a)
      .def_prop_ro("N", &polar::polar_code::N)
      .def_prop_ro("K", &polar::polar_code::K)
      .def_prop_ro("systematic", &polar::polar_code::systematic)
      .def_prop_ro("info_positions", &polar::polar_code::info_positions)
      .def_prop_ro("frozen_positions", &polar::polar_code::frozen_positions)
      .def("describe", &polar::polar_code::describe);
  m.def("encode", &encode, "code"_a, "bits"_a, "coded"_a, nb::call_guard<nb::gil_scoped_release>());
  m.def("options", &options, "decoder"_a, "update"_a, "iterations"_a, "early_stop"_a, "schedule"_a,
        "output"_a, "implementation"_a, "precision"_a, "kernel"_a, "refill"_a, "threads"_a);
  nb::class_<polar::decoder_options>(m, "Options");
  nb::class_<polar_decoder>(m, "Decoder")
      .def(nb::init<const polar::polar_code&, const polar::decoder_options&, const std::string&,
                    std::size_t>(),
           "code"_a, "options"_a, "backend"_a, "max_batch"_a)
      .def_prop_ro("max_batch", &polar_decoder::max_batch)
      .def_prop_ro("backend", &polar_decoder::where)
      .def_prop_ro("out_length", &polar_decoder::out_length)
      .def_prop_ro("soft", &polar_decoder::soft)
      .def("describe", &polar_decoder::describe)
      .def("decode", &polar_decoder::decode, "llr"_a, "bits"_a, "iterations"_a,
           nb::call_guard<nb::gil_scoped_release>())
      .def("decode_soft", &polar_decoder::decode_soft, "llr"_a, "soft"_a, "iterations"_a,
           nb::call_guard<nb::gil_scoped_release>());
}

}  // namespace gpufec::python
