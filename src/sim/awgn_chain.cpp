// The BPSK/AWGN chain on the CPU (OpenMP over the frames of a batch), and the chain factory.
#include "gpufec/sim/awgn_chain.hpp"

#include <algorithm>
#include <chrono>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/error.hpp"
#include "sim/awgn_chain_entry.hpp"

namespace gpufec::sim {

void binary_decoder::decode(batch_view<std::int8_t>, batch_span<std::uint8_t>, cuda_stream) {
  throw invalid_argument("this decoder does not take int8 LLRs");
}
void binary_decoder::decode_hard(batch_view<std::uint8_t>, batch_span<std::uint8_t>, cuda_stream) {
  throw invalid_argument("this decoder does not take hard decisions");
}

void binary_code::validate() const {
  require(info_bits > 0 && info_bits <= (std::uint64_t{1} << 32),
          "K (information bits per frame) must lie in [1, 2^32] (K = ", info_bits, ")");
  require(coded_bits >= info_bits || !encode, "a code's transmitted bits per frame (", coded_bits,
          ") are fewer than its K (", info_bits, ")");
  require(encode || coded_bits == info_bits, "without an encoder the transmitted bits (",
          coded_bits, ") must be the information bits (", info_bits, ")");
  require(static_cast<bool>(decoder), "a binary code needs a decoder");
}

namespace detail {
std::vector<std::pair<std::string, std::string>> chain_details(const binary_code& code,
                                                               double sigma,
                                                               const binary_decoder& decoder) {
  std::vector<std::pair<std::string, std::string>> d{{"sigma", cat(sigma)},
                                                     {"rate", cat(code.rate())}};
  for (auto& kv : decoder.details()) d.push_back(std::move(kv));
  return d;
}
}  // namespace detail

namespace {

class cpu_awgn_chain final : public chain {
 public:
  cpu_awgn_chain(const binary_code& code, double ebn0_db, std::uint64_t seed)
      : code_(code),
        seed_(seed),
        sigma_(channel::sigma_from_ebn0(ebn0_db, code.rate())),
        decoder_(code.decoder(backend::cpu, detail::frames_for(code, std::size_t{1} << 20))) {}

  frame_shape shape() const override { return {code_.info_bits, code_.info_bits, 1, false}; }
  // About 2^20 transmitted bits per call: enough to share among threads, small in memory.
  std::size_t preferred_batch() const override { return decoder_->max_batch(); }
  std::vector<std::pair<std::string, std::string>> details() const override {
    return detail::chain_details(code_, sigma_, *decoder_);
  }

  double run(std::uint64_t first_frame, std::vector<frame_outcome>& outcomes) override {
    double seconds = 0;
    for (std::size_t begin = 0; begin < outcomes.size(); begin += decoder_->max_batch()) {
      const std::size_t n = std::min(decoder_->max_batch(), outcomes.size() - begin);
      seconds += run_batch(first_frame + begin, n, outcomes.data() + begin);
    }
    return seconds;
  }

 private:
  double run_batch(std::uint64_t first, std::size_t n, frame_outcome* outcomes) {
    const std::size_t K = code_.info_bits, N = code_.coded_bits;
    const auto frames = static_cast<std::int64_t>(n);
    info_.resize(n * K);
    decoded_.resize(n * K);
    // Source: frame f's bits from its own Philox stream.
#pragma omp parallel for schedule(static)
    for (std::int64_t f = 0; f < frames; ++f) {
      const philox_stream source(seed_, rng_source, first + static_cast<std::uint64_t>(f));
      std::uint8_t* bits = info_.data() + static_cast<std::size_t>(f) * K;
      for (std::size_t i = 0; i < K; ++i) bits[i] = source_bit(source, i);
    }
    const std::uint8_t* coded = info_.data();
    if (code_.encode) {
      coded_.resize(n * N);
      code_.encode(batch_view<std::uint8_t>::uniform(info_.data(), n, K),
                   batch_span<std::uint8_t>::uniform(coded_.data(), n, N));
      coded = coded_.data();
    }
    // Channel: BPSK + AWGN, then the decoder's input.
    const double sigma = sigma_, scale = channel::int8_llr_scale(sigma);
    switch (code_.llr) {
      case llr_kind::f32:
        llr_.resize(n * N);
        break;
      case llr_kind::i8:
        llr_i8_.resize(n * N);
        break;
      case llr_kind::hard:
        hard_.resize(n * N);
        break;
    }
#pragma omp parallel for schedule(static)
    for (std::int64_t f = 0; f < frames; ++f) {
      const std::uint64_t frame = first + static_cast<std::uint64_t>(f);
      const std::size_t at = static_cast<std::size_t>(f) * N;
      for (std::size_t j = 0; j < N; ++j) {
        const double llr = channel::llr_from_sample(
            channel::awgn_received(seed_, frame, j, coded[at + j], sigma), sigma);
        if (code_.llr == llr_kind::f32)
          llr_[at + j] = static_cast<float>(llr);
        else if (code_.llr == llr_kind::i8)
          llr_i8_[at + j] = channel::llr_to_int8(llr, scale);
        else
          hard_[at + j] = channel::hard_decision(static_cast<float>(llr));
      }
    }
    // Decoder: the only timed part.
    const auto out = batch_span<std::uint8_t>::uniform(decoded_.data(), n, K);
    const auto t0 = std::chrono::steady_clock::now();
    switch (code_.llr) {
      case llr_kind::f32:
        decoder_->decode(batch_view<float>::uniform(llr_.data(), n, N), out, nullptr);
        break;
      case llr_kind::i8:
        decoder_->decode(batch_view<std::int8_t>::uniform(llr_i8_.data(), n, N), out, nullptr);
        break;
      case llr_kind::hard:
        decoder_->decode_hard(batch_view<std::uint8_t>::uniform(hard_.data(), n, N), out, nullptr);
        break;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
#pragma omp parallel for schedule(static)
    for (std::int64_t f = 0; f < frames; ++f) {
      const std::size_t at = static_cast<std::size_t>(f) * K;
      outcomes[f] = score_symbols(decoded_.data() + at, info_.data() + at, K, 1);
    }
    return seconds;
  }

  binary_code code_;
  std::uint64_t seed_;
  double sigma_;
  std::unique_ptr<binary_decoder> decoder_;
  std::vector<std::uint8_t> info_, coded_, decoded_, hard_;
  std::vector<float> llr_;
  std::vector<std::int8_t> llr_i8_;
};

}  // namespace

std::unique_ptr<chain> make_awgn_chain(const binary_code& code, backend where, double ebn0_db,
                                       std::uint64_t seed) {
  code.validate();
  if (resolve_backend(where) == backend::cuda)
    return cuda_factory<detail::cuda_awgn_chain_entry>("the CUDA BPSK/AWGN chain")(code, ebn0_db,
                                                                                   seed);
  return std::make_unique<cpu_awgn_chain>(code, ebn0_db, seed);
}

}  // namespace gpufec::sim
