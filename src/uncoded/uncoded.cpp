// The uncoded family: the identity code and the hard-decision decoder (CPU here) for the
// BPSK/AWGN chain.
#include "gpufec/uncoded/uncoded.hpp"

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/error.hpp"
#include "uncoded/hard_decision.hpp"

namespace gpufec::uncoded {

void validate(const params& p) {
  require(p.info_bits > 0 && p.info_bits <= (1ULL << 32),
          "K (information bits per frame) must lie in [1, 2^32] (K = ", p.info_bits, ")");
}

namespace detail {
namespace {

class cpu_decoder final : public sim::binary_decoder {
 public:
  explicit cpu_decoder(std::size_t max_batch) : max_batch_(max_batch) {}
  using sim::binary_decoder::decode;
  std::size_t max_batch() const override { return max_batch_; }
  // A hard decision is a pass over memory: a step of it is well under a second, stop or not.
  void decode(batch_view<float> llr, batch_span<std::uint8_t> bits, cuda_stream,
              const stop_token&) override {
    require(!llr.on_device() && !bits.on_device(), "the CPU hard decision takes host memory");
    // Through local pointers that do not alias (the bytes written could otherwise be the floats
    // read, as far as the compiler knows, and the loop would not be vectorized).
    const float* __restrict in = llr.data;
    std::uint8_t* __restrict out = bits.data;
    const auto n = static_cast<std::int64_t>(llr.size());
#pragma omp parallel for simd schedule(static)
    for (std::int64_t t = 0; t < n; ++t) out[t] = channel::hard_decision(in[t]);
  }
  sim::fields details() const override {
    return {{"decoder", "hard decision (cpu)"}};
  }

 private:
  std::size_t max_batch_;
};

}  // namespace

std::unique_ptr<sim::binary_decoder> make_cpu_decoder(std::size_t max_batch) {
  return std::make_unique<cpu_decoder>(max_batch);
}

}  // namespace detail

sim::binary_code code(const params& p) {
  validate(p);
  sim::binary_code c;
  c.info_bits = p.info_bits;
  c.coded_bits = p.info_bits;
  c.decoder = [](gpufec::backend where, std::size_t max_batch) {
    if (where == gpufec::backend::cuda)
      return cuda_factory<detail::cuda_decoder_entry>("the CUDA hard decision")(max_batch);
    return detail::make_cpu_decoder(max_batch);
  };
  return c;
}

std::unique_ptr<sim::chain> make_cpu_chain(const params& p, double ebn0_db, std::uint64_t seed) {
  return sim::make_awgn_chain(code(p), gpufec::backend::cpu, ebn0_db, seed);
}

std::unique_ptr<sim::chain> make_cuda_chain(const params& p, double ebn0_db, std::uint64_t seed) {
  return sim::make_awgn_chain(code(p), gpufec::backend::cuda, ebn0_db, seed);
}

family::family(params p, gpufec::backend b) : params_(p), backend_(b) {
  validate(params_);
}

sim::fields family::parameters() const {
  return {{"code", "none (uncoded)"},
          {"modulation", "BPSK"},
          {"channel", "AWGN"},
          {"K", params_.info_bits},
          {"rate", 1},
          {"decoder", "hard decision on the LLR sign"}};
}

std::unique_ptr<sim::chain> family::make_chain(double ebn0_db, std::uint64_t seed) const {
  return sim::make_awgn_chain(code(params_), backend_, ebn0_db, seed);
}

std::vector<std::uint8_t> hard_decisions(std::span<const float> llr) {
  std::vector<std::uint8_t> out(llr.size());
  for (std::size_t i = 0; i < llr.size(); ++i) out[i] = channel::hard_decision(llr[i]);
  return out;
}

}  // namespace gpufec::uncoded
