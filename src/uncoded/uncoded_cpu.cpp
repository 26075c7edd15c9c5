// The uncoded family and its CPU chain: OpenMP over the frames of a batch.
#include <algorithm>
#include <chrono>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/uncoded/uncoded.hpp"

namespace gpufec::uncoded {

void validate(const params& p) {
  require(p.info_bits > 0 && p.info_bits <= (1ULL << 32),
          "K (information bits per frame) must lie in [1, 2^32] (K = ", p.info_bits, ")");
}

namespace {

class cpu_chain final : public sim::chain {
 public:
  cpu_chain(const params& p, double ebn0_db, std::uint64_t seed)
      : params_(p), seed_(seed), channel_(channel::bpsk_awgn::from_ebn0(ebn0_db)) {}

  sim::frame_shape shape() const override {
    return {params_.info_bits, params_.info_bits, 1, false};
  }
  std::size_t preferred_batch() const override {
    // About 2^20 samples per call: enough to share among threads, small in memory.
    return static_cast<std::size_t>(std::max<std::uint64_t>(1, (1ULL << 20) / params_.info_bits));
  }
  std::vector<std::pair<std::string, std::string>> details() const override {
    return {{"sigma", cat(channel_.sigma())}};
  }

  double run(std::uint64_t first_frame, std::vector<sim::frame_outcome>& outcomes) override {
    const auto frames = static_cast<std::int64_t>(outcomes.size());
    const std::size_t k = params_.info_bits;
    bits_.resize(outcomes.size() * k);
    llr_.resize(outcomes.size() * k);
    const double sigma = channel_.sigma();
    // Source and channel: frame f's bits and LLRs, from its own Philox streams.
#pragma omp parallel for schedule(static)
    for (std::int64_t f = 0; f < frames; ++f) {
      const std::uint64_t frame = first_frame + static_cast<std::uint64_t>(f);
      const philox_stream source(seed_, rng_source, frame);
      std::uint8_t* bits = bits_.data() + static_cast<std::size_t>(f) * k;
      float* llr = llr_.data() + static_cast<std::size_t>(f) * k;
      for (std::size_t i = 0; i < k; ++i) {
        bits[i] = source_bit(source, i);
        llr[i] = static_cast<float>(channel::llr_from_sample(
            channel::awgn_received(seed_, frame, i, bits[i], sigma), sigma));
      }
    }
    // Decoder (hard decision) and error counter: the only timed part.
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t f = 0; f < frames; ++f) {
      const std::uint8_t* bits = bits_.data() + static_cast<std::size_t>(f) * k;
      const float* llr = llr_.data() + static_cast<std::size_t>(f) * k;
      std::uint32_t errors = 0;
      for (std::size_t i = 0; i < k; ++i) errors += channel::hard_decision(llr[i]) != bits[i];
      outcomes[static_cast<std::size_t>(f)] = {errors, errors, false};
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  params params_;
  std::uint64_t seed_;
  channel::bpsk_awgn channel_;
  std::vector<std::uint8_t> bits_;
  std::vector<float> llr_;
};

}  // namespace

std::unique_ptr<sim::chain> make_cpu_chain(const params& p, double ebn0_db, std::uint64_t seed) {
  validate(p);
  return std::make_unique<cpu_chain>(p, ebn0_db, seed);
}

family::family(params p, gpufec::backend b) : params_(p), backend_(b) {
  validate(params_);
}

std::vector<std::pair<std::string, std::string>> family::parameters() const {
  return {{"code", "none (uncoded)"},
          {"modulation", "BPSK"},
          {"channel", "AWGN"},
          {"K", cat(params_.info_bits)},
          {"rate", "1"},
          {"decoder", "hard decision on the LLR sign"}};
}

std::unique_ptr<sim::chain> family::make_chain(double ebn0_db, std::uint64_t seed) const {
  return backend_ == gpufec::backend::cuda ? make_cuda_chain(params_, ebn0_db, seed)
                                           : make_cpu_chain(params_, ebn0_db, seed);
}

std::vector<std::uint8_t> hard_decisions(std::span<const float> llr) {
  std::vector<std::uint8_t> out(llr.size());
  for (std::size_t i = 0; i < llr.size(); ++i) out[i] = channel::hard_decision(llr[i]);
  return out;
}

}  // namespace gpufec::uncoded
