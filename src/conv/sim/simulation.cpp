// The conv family as a sim::binary_code for the shared BPSK/AWGN chain: the encoder over batches,
// and a decoder adapter that hands the chain's float, int8 or hard views to a decoder_plan on the
// CPU or on CUDA (gpufec/conv/simulation.hpp says which chain feeds a CUDA plan).
#include "gpufec/conv/simulation.hpp"

#include <cmath>

#include "conv/plan/device_encoder.hpp"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/conv/encoder.hpp"

namespace gpufec::conv {
namespace {

// The chain's decoder: a decoder_plan on `where` made for the chain's largest batch. A CUDA plan
// takes int8 LLRs in device memory on the chain's stream (the device path) and host batches of
// any kind; a CPU plan host batches.
class plan_decoder final : public sim::binary_decoder {
 public:
  plan_decoder(const sim_setup& s, backend where, std::size_t max_batch)
      : plan_(s.code, s.pattern, s.frame_bits, s.term, s.options, where, max_batch) {}

  std::size_t max_batch() const override { return plan_.summary().max_batch; }
  std::size_t preferred_batch() const override { return plan_.summary().preferred_batch; }
  void decode(batch_view<float> llr, batch_span<std::uint8_t> bits, cuda_stream stream,
              const stop_token& stop) override {
    if (llr.on_device())
      plan_.decode(llr, bits, stream);  // made int8 on the device, as the host path makes them
    else
      plan_.decode(llr, bits, stop);
  }
  void decode(batch_view<std::int8_t> llr, batch_span<std::uint8_t> bits, cuda_stream stream,
              const stop_token& stop) override {
    if (llr.on_device())
      plan_.decode(llr, bits, stream);  // queued on the chain's stream, which the chain waits on
    else
      plan_.decode(llr, bits, stop);
  }
  void decode_hard(batch_view<std::uint8_t> received, batch_span<std::uint8_t> bits,
                   cuda_stream stream, const stop_token& stop) override {
    if (received.on_device())
      plan_.decode_hard(received, bits, stream);
    else
      plan_.decode_hard(received, bits, stop);
  }
  sim::fields details() const override {
    const plan_summary& s = plan_.summary();
    sim::fields d{{"decoder", std::string(name_of(s.decoder))}};
    if (s.where == backend::cpu) d.emplace_back("threads", s.threads);
    if (s.decoder == decoder_kind::tiled) d.emplace_back("tile", s.tile.to_string());
    if (!s.kernel.empty()) d.emplace_back("kernel", s.kernel);
    return d;
  }

 private:
  decoder_plan plan_;
};

// What the chain's plans will choose for `max_batch` frames (a CUDA plan's fitted tile depends
// on the batch), on one thread: to validate the setup and to report its choices, no decoder made.
plan_summary resolve(const sim_setup& s, backend where, std::size_t max_batch = 1) {
  decoder_options one = s.options;
  one.threads = 1;
  return decoder_plan::preview(s.code, s.pattern, s.frame_bits, s.term, one, where, max_batch);
}

// The name of the device a CUDA plan runs on (the current device: the first usable one).
std::string device_name() {
  const std::vector<cuda_device_info> devices = cuda_devices();
  return devices.empty() ? std::string("unknown") : devices.front().name;
}

// How the decoder's input is made from the channel's LLR L = 2y / sigma^2.
std::string llr_rule(const sim_setup& s, decoder_kind decoder) {
  switch (s.llr) {
    case llr_kind::i8:
      return "int8: round(L * int8_llr_scale(sigma)) clamped to +-127; |y| = 1 + 3 sigma -> 127";
    case llr_kind::hard:
      return "hard decision on the sign of L (the decoder sees +-1)";
    case llr_kind::f32:
      break;
  }
  if (decoder == decoder_kind::reference) return "float L, unquantized";
  if (s.options.llr_scale > 0) return cat("float L, quantized to int8 by x ", s.options.llr_scale);
  return "float L, quantized to int8 per frame: mean |L| -> 31.75";
}

}  // namespace

void validate(const sim_setup& s) {
  const backend where = choose_backend(s.options, s.where).where;
  (void)encoder(s.code, s.pattern, s.frame_bits, s.term);  // frame length, tail-biting start
  (void)resolve(s, where);
}

namespace {

// binary_code without the checks (the family checks once, not per point).
sim::binary_code make_binary_code(const sim_setup& s) {
  const auto enc = std::make_shared<const encoder>(s.code, s.pattern, s.frame_bits, s.term);
  sim::binary_code c;
  c.info_bits = enc->shape().info_bits;
  c.coded_bits = enc->shape().coded_bits;
  c.llr = s.llr;
  c.encode = [enc](batch_view<std::uint8_t> info, batch_span<std::uint8_t> coded) {
    enc->encode(info, coded);
  };
  // The CUDA encoder, made on the first device batch (a CPU chain never asks for it).
  auto device = std::make_shared<std::unique_ptr<detail::device_encoder>>();
  c.encode_device = [enc, device](batch_view<std::uint8_t> info, batch_span<std::uint8_t> coded,
                                  cuda_stream stream) {
    if (!*device)
      *device = cuda_factory<detail::device_encoder_entry>("the CUDA conv encoder")(*enc);
    (*device)->encode(info, coded, stream);
  };
  // The plan runs on the setup's backend whichever chain asks (a CPU chain hands a CUDA plan host
  // batches, the CUDA chain device batches).
  const backend where = choose_backend(s.options, s.where).where;
  c.decoder = [s, where](backend, std::size_t max_batch) -> std::unique_ptr<sim::binary_decoder> {
    return std::make_unique<plan_decoder>(s, where, max_batch);
  };
  return c;
}

}  // namespace

sim::binary_code binary_code(const sim_setup& s) {
  validate(s);
  return make_binary_code(s);
}

sim_family::sim_family(sim_setup setup) : setup_(std::move(setup)) {
  where_ = choose_backend(setup_.options, setup_.where).where;
  const frame_shape shape =
      encoder(setup_.code, setup_.pattern, setup_.frame_bits, setup_.term).shape();
  // The batch of the chain make_chain builds (the chain runs where the decoder does).
  const gpufec::backend chain = where_;
  // The one plan made outside the chains: its choices for the report, and the setup's checks.
  resolved_ =
      resolve(setup_, where_, sim::chain_batch_frames(shape.info_bits, shape.coded_bits, chain));
  binary_ = make_binary_code(setup_);
}

void sim_family::validate_point(double ebn0_db) const {
  channel::check_ebn0(ebn0_db);
}

sim::fields sim_family::parameters() const {
  const sim_setup& s = setup_;
  const frame_shape& shape = resolved_.shape;
  std::string polys;
  for (const std::uint32_t p : s.code.polynomials()) {
    if (!polys.empty()) polys += ',';
    polys += octal(p);
  }
  sim::fields f{{"code", "convolutional"},
                {"K", s.code.K()},
                {"polynomials", polys},
                {"recursive", s.code.recursive()}};
  if (s.code.feedback()) f.emplace_back("feedback", octal(*s.code.feedback()));
  f.emplace_back("puncture_pattern", s.pattern.to_string());
  f.emplace_back("puncture_rate", s.pattern.rate_string());
  f.emplace_back("termination", std::string(name_of(s.term)));
  f.emplace_back("frame_bits", shape.info_bits);
  f.emplace_back("coded_bits", shape.coded_bits);
  f.emplace_back("rate",
                 static_cast<double>(shape.info_bits) / static_cast<double>(shape.coded_bits));
  f.emplace_back("modulation", "BPSK");
  f.emplace_back("channel", "AWGN");
  f.emplace_back("llr", std::string(name_of(s.llr)));
  f.emplace_back("llr_rule", llr_rule(s, resolved_.decoder));
  if (s.llr == llr_kind::f32 && resolved_.decoder != decoder_kind::reference)
    f.emplace_back("llr_scale", s.options.llr_scale > 0 ? nlohmann::json(s.options.llr_scale)
                                                        : nlohmann::json("auto"));
  f.emplace_back("decoder", std::string(name_of(resolved_.decoder)));
  if (resolved_.decoder == decoder_kind::reference)
    f.emplace_back("reference_metric", std::string(name_of(s.options.reference_metric)));
  if (resolved_.decoder == decoder_kind::tiled) {
    const tile_shape& t = resolved_.tile;
    f.emplace_back("traceback", t.f0 ? "by subframes of f0 stages in tiles of f (parallel)"
                                     : "per tile of f stages");
    f.emplace_back("tile_f", t.f);
    f.emplace_back("tile_v1", t.v1);
    f.emplace_back("tile_v2", t.v2);
    f.emplace_back("tile_f0", t.f0);
  } else {
    f.emplace_back("traceback", "full (whole frame)");
  }
  if (resolved_.wrap_stages) f.emplace_back("wrap_stages", resolved_.wrap_stages);
  if (where_ == gpufec::backend::cuda) {
    f.emplace_back("device", device_name());
    f.emplace_back("cuda_kernel", resolved_.kernel);
    f.emplace_back("llr_path",
                   "device: the whole chain on the GPU, the plan's device path (float and hard "
                   "input made int8 there as on the host)");
  }
  return f;
}

std::unique_ptr<sim::chain> sim_family::make_chain(double ebn0_db, std::uint64_t seed) const {
  validate_point(ebn0_db);
  // The whole chain on the decoder's backend: the CUDA plan's device path takes every kind of
  // LLR in device memory.
  return sim::make_awgn_chain(binary_, where_, ebn0_db, seed);
}

}  // namespace gpufec::conv
