// gpufec._core.sync: TVB codes (random codebooks or a codebook file), their encoder, the BSID
// channel with the command line's frames, and MAP decoder plans over ragged batches of received
// sequences.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "gpufec/common/enum_names.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/random.hpp"
#include "gpufec/sync/decoder.hpp"

namespace gpufec::python {
namespace {

using namespace nb::literals;

// What `--q --n --N --codebook --codebook-seed --marker` give (tools/sync/code_options.cpp).
sync::tvb_code make_code(int q, int n, int N, const std::string& codebook, std::uint64_t seed,
                         bool random_marker, bool q_given, bool n_given, bool N_given) {
  if (codebook == "random") {
    require(n >= 1 && n <= 32, "n = ", n, " must be in [1, 32]");
    require(n >= 31 || q <= (1 << n), "q = ", q, " exceeds 2^n = ", 1 << n, " (n = ", n,
            "): the codewords of n bits cannot tell q symbols apart");
    return sync::tvb_code::random(q, n, N, seed, random_marker);
  }
  sync::code_file file = sync::read_code_file(codebook);
  const int fq = file.codebooks.front().q, fn = file.codebooks.front().n;
  require(!q_given || q == fq, "q = ", q, " contradicts the codebook file '", codebook,
          "' (q = ", fq, "); leave q out");
  require(!n_given || n == fn, "n = ", n, " contradicts the codebook file '", codebook,
          "' (n = ", fn, "); leave n out");
  const int fixed = file.positions();
  require(!N_given || !fixed || N == fixed, "N = ", N, " contradicts the codebook file '", codebook,
          "' (N = ", fixed, ", from ", file.positions_source(), "); leave N out");
  const int positions = fixed ? fixed : N;
  require(static_cast<std::size_t>(positions) >= file.codebooks.size(), "N = ", positions,
          " is fewer positions than the ", file.codebooks.size(), " codebooks of '", codebook, "'");
  std::vector<std::uint8_t> mark = std::move(file.marker);
  require(mark.empty() || !random_marker, "marker='random' contradicts the codebook file '",
          codebook, "', which holds a marker of its own");
  if (random_marker) mark = sync::tvb_code::random(fq, fn, positions, seed, true).marker();
  return sync::tvb_code(fq, fn, positions, std::move(file.codebooks), std::move(mark));
}

// messages: [frames, N] symbols < q; frames: [frames, tau] bits.
void encode(const sync::tvb_code& code, host_in<std::uint32_t> messages,
            host_out<std::uint8_t> out) {
  const auto N = static_cast<std::size_t>(code.N());
  const auto tau = static_cast<std::size_t>(code.tau());
  const std::size_t frames = frames_of(messages.size(), N, "message symbols");
  require(out.size() == frames * tau, "encode: room for ", out.size(), " bits");
  for (std::size_t i = 0; i < messages.size(); ++i)
    require(messages.data()[i] < static_cast<std::uint32_t>(code.q()), "encode: symbol ", i % N,
            " of frame ", i / N, " is ", messages.data()[i], " (must be below q = ", code.q(), ")");
  for (std::size_t f = 0; f < frames; ++f)
    code.encode({messages.data() + f * N, N}, {out.data() + f * tau, tau});
}

// frames: [frames, n] 0/1, each sent through BSID(Pi, Pd, Ps) with frame f's events from
// (seed, rng_channel, first_frame + f), as `gpufec channel bsid --seed` does; a list of arrays.
nb::list bsid(host_in<std::uint8_t> bits, std::size_t n, double pi, double pd, double ps,
              std::uint64_t seed, std::uint64_t first_frame) {
  const sync::bsid_params ch{pi, pd, ps};
  ch.validate();
  const std::size_t frames = frames_of(bits.size(), n, "bits");
  for (std::size_t i = 0; i < bits.size(); ++i)
    require(bits.data()[i] <= 1, "bsid: bit ", i % n, " of frame ", i / n, " is ",
            int(bits.data()[i]), " (must be 0 or 1)");
  std::vector<std::vector<std::uint8_t>> received(frames);
  {
    const nb::gil_scoped_release unlocked;
    for (std::size_t f = 0; f < frames; ++f) {
      philox_stream events(seed, rng_channel, first_frame + f);
      const std::vector<std::uint8_t> x(bits.data() + f * n, bits.data() + (f + 1) * n);
      received[f] = sync::bsid_transmit(ch, x, events);
    }
  }
  nb::list out;
  for (auto& r : received) {
    auto* data = new std::uint8_t[r.size() ? r.size() : 1];
    std::memcpy(data, r.data(), r.size());
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<std::uint8_t*>(p); });
    const std::size_t shape[1] = {r.size()};
    out.append(nb::ndarray<nb::numpy, std::uint8_t>(data, 1, shape, owner));
  }
  return out;
}

sync::decoder_options options(double Pr, const std::string& storage, const std::string& lattice,
                              const std::string& lattice_real, bool end_known,
                              double memory_budget_mib, bool drift_posterior) {
  sync::decoder_options o;
  o.Pr = Pr;
  o.storage = parse_name<sync::storage_mode>(storage, "storage");
  o.lattice = parse_name<sync::lattice_mode>(lattice, "lattice");
  o.lattice_real = parse_name<sync::real_kind>(lattice_real, "lattice_real");
  o.end_known = end_known;
  require(memory_budget_mib >= 0, "memory_budget must not be negative");
  o.memory_budget = static_cast<std::size_t>(memory_budget_mib * 1024 * 1024);
  o.drift_posterior = drift_posterior;
  return o;
}

class sync_decoder {
 public:
  sync_decoder(const sync::tvb_code& code, double pi, double pd, double ps,
               const sync::decoder_options& o, const std::string& where, std::size_t max_batch)
      : plan_(code, sync::bsid_params{pi, pd, ps}, o, parse_name<backend>(where, "backend"),
              max_batch) {}

  std::size_t max_batch() const { return plan_.summary().max_batch; }
  std::string where() const { return std::string(name_of(plan_.summary().where)); }
  std::string describe() const { return plan_.describe(); }
  int drift_states() const { return plan_.summary().frame.size(); }

  // received: the frames' bits back to back, frame f at [offsets[f], offsets[f + 1]); outputs:
  // decisions [frames, N], app [frames, N, q], decoded [frames], drift [frames, N + 1, M] (or
  // empty); returns each frame's message (empty when decoded).
  // priors: [frames, N, q] symbol probabilities, or empty (uniform).
  std::vector<std::string> decode(host_in<std::uint8_t> received, host_in<std::uint64_t> offsets,
                                  host_in<double> priors, host_out<std::uint32_t> decisions,
                                  host_out<double> app, host_out<std::uint8_t> decoded,
                                  host_out<double> drift) {
    require(offsets.size() >= 1 && offsets.data()[0] == 0 &&
                offsets.data()[offsets.size() - 1] == received.size(),
            "decode: offsets must run from 0 to the received bits' count");
    const std::size_t frames = offsets.size() - 1;
    std::vector<std::size_t> at(offsets.data(), offsets.data() + offsets.size());
    for (std::size_t f = 0; f < frames; ++f)
      require(at[f] <= at[f + 1], "decode: offsets must not decrease (frame ", f, ")");
    const std::size_t N = plan_.code().N(), q = plan_.code().q();
    require(priors.size() == 0 || priors.size() == frames * N * q, "decode: ", priors.size(),
            " priors for ", frames, " frames of ", N, " symbols of ", q, " values");
    sync::decode_output out;
    plan_.decode(batch_view<std::uint8_t>::ragged(received.data(), at.data(), frames), out,
                 priors.size() ? priors.data() : nullptr);
    require(
        decisions.size() == frames * N && app.size() == frames * N * q && decoded.size() == frames,
        "decode: output arrays of the wrong size");
    std::memcpy(decisions.data(), out.decisions.data(), frames * N * sizeof(std::uint32_t));
    std::memcpy(app.data(), out.app.data(), frames * N * q * sizeof(double));
    std::memcpy(decoded.data(), out.decoded.data(), frames);
    if (drift.size()) {
      require(drift.size() == out.drift_posterior.size(), "decode: drift array of the wrong size");
      std::memcpy(drift.data(), out.drift_posterior.data(), drift.size() * sizeof(double));
    }
    return out.messages;
  }

 private:
  sync::decoder_plan plan_;
};

}  // namespace

void bind_sync(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("sync", "TVB codes over insertion/deletion channels");
  nb::class_<sync::tvb_code>(m, "Code", "A TVB code (checked)")
      .def(
          "__init__",
          [](sync::tvb_code* self, int q, int n, int N, const std::string& codebook,
             std::uint64_t seed, bool random_marker, bool q_given, bool n_given, bool N_given) {
            new (self) sync::tvb_code(
                make_code(q, n, N, codebook, seed, random_marker, q_given, n_given, N_given));
          },
          "q"_a, "n"_a, "N"_a, "codebook"_a, "seed"_a, "random_marker"_a, "q_given"_a, "n_given"_a,
          "N_given"_a)
      .def_prop_ro("q", &sync::tvb_code::q)
      .def_prop_ro("n", &sync::tvb_code::n)
      .def_prop_ro("N", &sync::tvb_code::N)
      .def_prop_ro("tau", &sync::tvb_code::tau)
      .def_prop_ro("has_marker", [](const sync::tvb_code& c) { return !c.marker().empty(); });
  m.def("encode", &encode, "code"_a, "messages"_a, "out"_a,
        nb::call_guard<nb::gil_scoped_release>());
  m.def("bsid", &bsid, "bits"_a, "n"_a, "pi"_a, "pd"_a, "ps"_a, "seed"_a, "first_frame"_a);
  nb::class_<sync::decoder_options>(m, "Options");
  m.def("options", &options, "Pr"_a, "storage"_a, "lattice"_a, "lattice_real"_a, "end_known"_a,
        "memory_budget"_a, "drift_posterior"_a);
  nb::class_<sync_decoder>(m, "Decoder")
      .def(nb::init<const sync::tvb_code&, double, double, double, const sync::decoder_options&,
                    const std::string&, std::size_t>(),
           "code"_a, "pi"_a, "pd"_a, "ps"_a, "options"_a, "backend"_a, "max_batch"_a)
      .def_prop_ro("max_batch", &sync_decoder::max_batch)
      .def_prop_ro("backend", &sync_decoder::where)
      .def_prop_ro("drift_states", &sync_decoder::drift_states)
      .def("describe", &sync_decoder::describe)
      .def("decode", &sync_decoder::decode, "received"_a, "offsets"_a, "priors"_a, "decisions"_a,
           "app"_a, "decoded"_a, "drift"_a, nb::call_guard<nb::gil_scoped_release>());
}

}  // namespace gpufec::python
