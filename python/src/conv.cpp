// gpufec._core.conv: a code (polynomials, puncturing, termination), its encoder for one frame
// length, and a decoder plan made once and called on batches.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <new>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "gpufec/common/enum_names.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/encoder.hpp"

namespace gpufec::python {
namespace {

using namespace nb::literals;

// What the Python Code holds: the library's three values, checked as the CLI checks them.
struct conv_setup {
  conv::conv_code code;
  conv::puncture_pattern pattern;
  conv::termination term;
};

conv_setup make_setup(int K, const std::string& polys, bool rsc, const std::string& rate,
                      const std::string& term) {
  conv::conv_code code = [&] {
    try {
      return conv::conv_code::parse(K, polys, rsc);
    } catch (const invalid_argument& e) {
      throw invalid_argument(cat("K=", K, ", polys=", polys, rsc ? ", rsc" : "", ": ", e.what()));
    }
  }();
  conv::puncture_pattern pattern = conv::puncture_pattern::none(code.beta());
  if (!rate.empty()) {
    try {
      pattern = conv::puncture_pattern::parse(rate, code.beta());
    } catch (const invalid_argument& e) {
      throw invalid_argument(cat("rate=", rate, ": ", e.what()));
    }
  }
  return {std::move(code), std::move(pattern), parse_name<conv::termination>(term, "term")};
}

class conv_encoder {
 public:
  conv_encoder(const conv_setup& s, std::size_t frame_bits)
      : encoder_(s.code, s.pattern, frame_bits, s.term) {}
  std::size_t info_bits() const { return encoder_.shape().info_bits; }
  std::size_t coded_bits() const { return encoder_.shape().coded_bits; }
  void encode(host_in<std::uint8_t> bits, host_out<std::uint8_t> coded) const {
    const std::size_t frames = frames_of(bits.size(), info_bits(), "information bits");
    require(coded.size() == frames * coded_bits(), "encode: room for ", coded.size(),
            " coded bits, ", frames * coded_bits(), " needed");
    for (std::size_t i = 0; i < bits.size(); ++i)
      require(bits.data()[i] <= 1, "encode: information bit ", i % info_bits(), " of frame ",
              i / info_bits(), " is ", int(bits.data()[i]), " (must be 0 or 1)");
    encoder_.encode(batch_view<std::uint8_t>::uniform(bits.data(), frames, info_bits()),
                    batch_span<std::uint8_t>::uniform(coded.data(), frames, coded_bits()));
  }

 private:
  conv::encoder encoder_;
};

class conv_decoder {
 public:
  conv_decoder(const conv_setup& s, std::size_t frame_bits, const std::string& where,
               const std::string& decoder, double llr_scale, const std::string& tile, int threads,
               std::size_t max_batch)
      : plan_(s.code, s.pattern, frame_bits, s.term, options(decoder, llr_scale, tile, threads),
              parse_name<backend>(where, "backend"),
              plan_batch(max_batch, frame_bits,
                         conv::make_frame_shape(s.code, s.pattern, frame_bits, s.term).coded_bits,
                         where)) {}

  std::size_t info_bits() const { return plan_.shape().info_bits; }
  std::size_t coded_bits() const { return plan_.shape().coded_bits; }
  std::size_t max_batch() const { return plan_.summary().max_batch; }
  std::size_t preferred_batch() const { return plan_.summary().preferred_batch; }
  std::string where() const { return std::string(name_of(plan_.summary().where)); }
  std::string describe() const { return plan_.describe(); }

  // received: [frames, coded_bits]; bits: [frames, info_bits]; frames <= max_batch().
  template <class In>
  void decode(host_in<In> received, host_out<std::uint8_t> bits) {
    const std::size_t frames = frames_of(received.size(), coded_bits(), "received values");
    require(bits.size() == frames * info_bits(), "decode: room for ", bits.size(), " bits, ",
            frames * info_bits(), " needed");
    const auto in = batch_view<In>::uniform(received.data(), frames, coded_bits());
    const auto out = batch_span<std::uint8_t>::uniform(bits.data(), frames, info_bits());
    if constexpr (std::is_same_v<In, std::uint8_t>)
      plan_.decode_hard(in, out);
    else
      plan_.decode(in, out);
  }

 private:
  static conv::decoder_options options(const std::string& decoder, double llr_scale,
                                       const std::string& tile, int threads) {
    conv::decoder_options d;
    d.decoder = parse_name<conv::decoder_kind>(decoder, "decoder");
    require(llr_scale >= 0, "llr_scale must not be negative (llr_scale = ", llr_scale, ")");
    d.llr_scale = llr_scale;
    d.threads = threads;
    if (!tile.empty()) {
      require(d.decoder == conv::decoder_kind::tiled, "tile applies to decoder='tiled' (decoder='",
              decoder, "')");
      if (tile == "default")
        d.fit_tile = false;
      else
        d.tile = conv::parse_tile_shape(tile);
    }
    return d;
  }

  conv::decoder_plan plan_;
};

}  // namespace

void bind_conv(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("conv", "Convolutional codes: the library's conv family");
  nb::class_<conv_setup>(m, "Setup", "A conv code, its puncturing and termination (checked)")
      .def(
          "__init__",
          [](conv_setup* self, int K, const std::string& polys, bool rsc, const std::string& rate,
             const std::string& term) {
            new (self) conv_setup(make_setup(K, polys, rsc, rate, term));
          },
          "K"_a, "polys"_a, "rsc"_a, "rate"_a, "term"_a)
      .def_prop_ro("K", [](const conv_setup& s) { return s.code.K(); })
      .def_prop_ro("polys", [](const conv_setup& s) { return s.code.polynomials(); })
      .def_prop_ro("rsc", [](const conv_setup& s) { return s.code.feedback().has_value(); })
      .def_prop_ro("puncturing", [](const conv_setup& s) { return s.pattern.to_string(); })
      .def_prop_ro("term", [](const conv_setup& s) { return std::string(name_of(s.term)); })
      .def("__str__", [](const conv_setup& s) { return s.code.to_string(); })
      .def(
          "shape",
          [](const conv_setup& s, std::size_t frame_bits) {
            const conv::frame_shape f =
                conv::make_frame_shape(s.code, s.pattern, frame_bits, s.term);
            return std::make_tuple(f.info_bits, f.coded_bits);
          },
          "frame_bits"_a, "(information bits, coded bits) of a frame");
  nb::class_<conv_encoder>(m, "Encoder")
      .def(nb::init<const conv_setup&, std::size_t>(), "setup"_a, "frame_bits"_a)
      .def_prop_ro("info_bits", &conv_encoder::info_bits)
      .def_prop_ro("coded_bits", &conv_encoder::coded_bits)
      .def("encode", &conv_encoder::encode, "bits"_a, "coded"_a,
           nb::call_guard<nb::gil_scoped_release>());
  nb::class_<conv_decoder>(m, "Decoder")
      .def(nb::init<const conv_setup&, std::size_t, const std::string&, const std::string&, double,
                    const std::string&, int, std::size_t>(),
           "setup"_a, "frame_bits"_a, "backend"_a, "decoder"_a, "llr_scale"_a, "tile"_a,
           "threads"_a, "max_batch"_a)
      .def_prop_ro("info_bits", &conv_decoder::info_bits)
      .def_prop_ro("coded_bits", &conv_decoder::coded_bits)
      .def_prop_ro("max_batch", &conv_decoder::max_batch)
      .def_prop_ro("preferred_batch", &conv_decoder::preferred_batch)
      .def_prop_ro("backend", &conv_decoder::where)
      .def("describe", &conv_decoder::describe)
      .def("decode_f32", &conv_decoder::decode<float>, "received"_a, "bits"_a,
           nb::call_guard<nb::gil_scoped_release>())
      .def("decode_i8", &conv_decoder::decode<std::int8_t>, "received"_a, "bits"_a,
           nb::call_guard<nb::gil_scoped_release>())
      .def("decode_hard", &conv_decoder::decode<std::uint8_t>, "received"_a, "bits"_a,
           nb::call_guard<nb::gil_scoped_release>());
}

}  // namespace gpufec::python
