// The polar family in the simulator: the binary code for the BPSK/AWGN chain (encoder, a decoder
// adapter over decoder_plan that accumulates the BP iterations its calls ran), the frozen-set
// fingerprint, and the sim::family with its typed report parameters.
#include "gpufec/polar/simulation.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/polar/encoder.hpp"
#include "polar/plan/device_encoder.hpp"

namespace gpufec::polar {

namespace {

// The chain's decoder: a hard-output plan on the CPU or on CUDA (host batches from the CPU chain,
// device batches from the CUDA chain: the same floats either way). BP calls report the iterations
// each frame ran; their sum and the frames decoded give the point's mean (asked for once its
// frames are done: a chain, and so this decoder, lives for one point). Device batches (a CUDA
// chain) are decoded on the chain's stream, their iterations summed on the device.
class plan_decoder final : public sim::binary_decoder {
 public:
  plan_decoder(const polar_code& code, const decoder_options& options, backend where,
               std::size_t max_batch)
      : plan_(code, options, where, max_batch),
        iterations_(options.decoder == decoder_kind::bp ? max_batch : 0) {}

  using sim::binary_decoder::decode;
  std::size_t max_batch() const override { return plan_.summary().max_batch; }
  std::size_t preferred_batch() const override { return plan_.summary().preferred_batch; }

  void decode(batch_view<float> llr, batch_span<std::uint8_t> bits, cuda_stream stream,
              const stop_token& stop) override {
    if (llr.on_device()) {
      plan_.decode(llr, bits, stream);
      plan_.wait(stream, stop);  // many iterations of a long code: a stop ends the launch
      if (!iterations_.empty()) iterations_sum_ += plan_.device_iterations();
      frames_ += llr.frames();
      return;
    }
    if (iterations_.empty()) {
      plan_.decode(llr, bits, {}, stop);
      frames_ += llr.frames();
      return;
    }
    const std::span<std::uint32_t> used(iterations_.data(), llr.frames());
    plan_.decode(llr, bits, used, stop);
    for (const std::uint32_t it : used) iterations_sum_ += it;
    frames_ += llr.frames();
  }

  sim::fields details() const override {
    const plan_summary& s = plan_.summary();
    sim::fields d{{"path", std::string(name_of(s.path))}};
    if (s.where == backend::cuda) d.emplace_back("kernel", s.kernel);
    if (s.where == backend::cpu && s.path == implementation::fast) {
      d.emplace_back("simd", s.simd_target);
      d.emplace_back("lanes", s.lanes);
    }
    d.emplace_back("decoder_threads", s.threads);
    d.emplace_back("decoded_frames", frames_);
    if (!iterations_.empty())
      d.emplace_back("mean_iterations", frames_
                                            ? nlohmann::json(static_cast<double>(iterations_sum_) /
                                                             static_cast<double>(frames_))
                                            : nlohmann::json());
    return d;
  }

 private:
  decoder_plan plan_;
  std::vector<std::uint32_t> iterations_;  // one per frame of a call (BP); empty for SC
  std::uint64_t iterations_sum_ = 0, frames_ = 0;
};

// The shortest decimal that reads back as `v` (0.9f reports as 0.9, not 0.89999997615814209).
double shortest(float v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::strtod(std::string(text, end).c_str(), nullptr);
}

void check_simulation_options(const decoder_options& options) {
  require(options.output == output_kind::hard,
          "the simulator decodes to hard information bits (output = ", name_of(options.output),
          ")");
}

}  // namespace

sim::binary_code binary_code(const polar_code& code, const decoder_options& options,
                             gpufec::backend decoder_where) {
  check_simulation_options(options);
  const gpufec::backend planned = choose_backend(options, decoder_where).where;
  // The plan's own checks, before any chain exists (no plan made: nothing allocated).
  decoder_plan::check(code, options, planned);

  sim::binary_code c;
  c.info_bits = code.K();
  c.coded_bits = code.N();
  c.llr = llr_kind::f32;
  c.encode = [code](batch_view<std::uint8_t> info, batch_span<std::uint8_t> coded) {
    encode(code, info, coded);
  };
  // The CUDA encoder, made on the first device batch (a CPU chain never asks for it).
  auto device = std::make_shared<std::unique_ptr<detail::device_encoder>>();
  c.encode_device = [code, device](batch_view<std::uint8_t> info, batch_span<std::uint8_t> coded,
                                   cuda_stream stream) {
    if (!*device)
      *device = cuda_factory<detail::device_encoder_entry>("the CUDA polar encoder")(code);
    (*device)->encode(info, coded, stream);
  };
  // A CUDA chain's decoder is a CUDA plan; a CPU chain's is the plan of `decoder_where`.
  c.decoder = [code, options, planned](
                  gpufec::backend where,
                  std::size_t max_batch) -> std::unique_ptr<sim::binary_decoder> {
    return std::make_unique<plan_decoder>(
        code, options, where == gpufec::backend::cuda ? where : planned, max_batch);
  };
  return c;
}

std::uint64_t frozen_set_fingerprint(const polar_code& code) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
  for (const std::uint8_t frozen : code.frozen_mask()) {
    h ^= frozen;
    h *= 0x100000001b3ULL;  // FNV-1a 64 prime
  }
  return h;
}

sim_family::sim_family(polar_code code, const decoder_options& options, gpufec::backend where)
    : code_(std::move(code)), options_(options), where_(choose_backend(options, where).where) {
  binary_ = binary_code(code_, options_, where_);
}

sim::fields sim_family::parameters() const {
  using json = nlohmann::json;
  const construction_spec& spec = code_.spec();
  const bool designed = spec.method == construction::bhattacharyya ||
                        spec.method == construction::gaussian_approximation;
  const bool bp = options_.decoder == decoder_kind::bp;
  char fingerprint[17];
  std::snprintf(fingerprint, sizeof fingerprint, "%016llx",
                static_cast<unsigned long long>(frozen_set_fingerprint(code_)));
  return {{"N", code_.N()},
          {"K", code_.K()},
          {"rate", code_.rate()},
          {"construction", std::string(name_of(spec.method))},
          {"design_ebn0_db", designed ? json(spec.design_snr_db) : json()},
          {"frozen_file", spec.method == construction::file ? json(spec.path) : json()},
          {"frozen_set_fnv1a64", fingerprint},
          {"systematic", code_.systematic()},
          {"decoder", std::string(name_of(options_.decoder))},
          {"update", std::string(name_of(options_.update))},
          {"scale", options_.update == update_rule::scaled_min_sum ? json(shortest(options_.scale))
                                                                   : json()},
          {"iterations", bp ? json(options_.iterations) : json()},
          {"early_stop", bp ? json(options_.early_stop) : json()},
          {"schedule", bp ? json(std::string(name_of(options_.schedule))) : json()},
          {"implementation", std::string(name_of(options_.path))},
          {"modulation", "BPSK"},
          {"channel", "AWGN"},
          {"llr", "float"}};
}

void sim_family::validate_point(double ebn0_db) const {
  channel::check_ebn0(ebn0_db);
}

std::unique_ptr<sim::chain> sim_family::make_chain(double ebn0_db, std::uint64_t seed) const {
  // The whole chain (source, encoder, channel, LLRs, decoder, counts) on the backend of the
  // decoder: the frames are the same on both (docs/simulator.md).
  return sim::make_awgn_chain(binary_, where_, ebn0_db, seed);
}

}  // namespace gpufec::polar
