// The BPSK/AWGN chain on the CPU (OpenMP over the frames of a batch), and the chain factory.
#include "gpufec/sim/awgn_chain.hpp"

#include <algorithm>
#include <chrono>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"
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
fields chain_details(const binary_code& code, double sigma, const binary_decoder& decoder) {
  fields d{{"sigma", sigma}, {"rate", code.rate()}};
  for (auto& kv : decoder.details()) d.push_back(std::move(kv));
  return d;
}

void require_one_frame_fits(const binary_code& code, std::size_t available, const char* where) {
  const std::size_t need = chain_bytes_per_frame(code);
  require<out_of_memory>(need <= available, "one frame of K = ", code.info_bits,
                         " information bits (", code.coded_bits, " sent) needs ", bytes_text(need),
                         " for its bits, LLRs and decisions, but ", bytes_text(available), " of ",
                         where, " memory is available; ask for shorter frames");
}

void decode_as(binary_decoder& decoder, llr_kind kind, const void* llr, std::size_t n,
               std::size_t N, batch_span<std::uint8_t> out, cuda_stream stream) {
  const memory_space where = out.where;
  switch (kind) {
    case llr_kind::f32:
      decoder.decode(batch_view<float>::uniform(static_cast<const float*>(llr), n, N, where), out,
                     stream);
      return;
    case llr_kind::i8:
      decoder.decode(
          batch_view<std::int8_t>::uniform(static_cast<const std::int8_t*>(llr), n, N, where), out,
          stream);
      return;
    case llr_kind::hard:
      decoder.decode_hard(
          batch_view<std::uint8_t>::uniform(static_cast<const std::uint8_t*>(llr), n, N, where),
          out, stream);
      return;
  }
}
}  // namespace detail

namespace {

class cpu_awgn_chain final : public detail::stepped_chain {
 public:
  // About 2^20 transmitted bits per decoder call: enough to share among threads, small in memory.
  cpu_awgn_chain(const binary_code& code, double ebn0_db, std::uint64_t seed)
      : stepped_chain(detail::frames_for(code, std::size_t{1} << 20)),
        code_(code),
        seed_(seed),
        sigma_(channel::sigma_from_ebn0(ebn0_db, code.rate())),
        decoder_(code.decoder(backend::cpu, detail::frames_for(code, std::size_t{1} << 20))) {}

  frame_shape shape() const override { return {code_.info_bits, code_.info_bits, 1, false}; }
  std::size_t preferred_batch() const override { return decoder_->max_batch(); }
  fields details() const override { return detail::chain_details(code_, sigma_, *decoder_); }

 private:
  double run_step(std::uint64_t first, std::size_t n, frame_outcome* outcomes) override {
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
    llr_.resize(n * N * detail::llr_bytes(code_.llr));
    auto* f32 = reinterpret_cast<float*>(llr_.data());
    auto* i8 = reinterpret_cast<std::int8_t*>(llr_.data());
    auto* hard = llr_.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t f = 0; f < frames; ++f) {
      const std::uint64_t frame = first + static_cast<std::uint64_t>(f);
      const std::size_t at = static_cast<std::size_t>(f) * N;
      for (std::size_t j = 0; j < N; ++j) {
        const double llr = channel::llr_from_sample(
            channel::awgn_received(seed_, frame, j, coded[at + j], sigma), sigma);
        if (code_.llr == llr_kind::f32)
          f32[at + j] = static_cast<float>(llr);
        else if (code_.llr == llr_kind::i8)
          i8[at + j] = channel::llr_to_int8(llr, scale);
        else
          hard[at + j] = channel::hard_decision(static_cast<float>(llr));
      }
    }
    // Decoder: the only timed part.
    const auto t0 = std::chrono::steady_clock::now();
    detail::decode_as(*decoder_, code_.llr, llr_.data(), n, N,
                      batch_span<std::uint8_t>::uniform(decoded_.data(), n, K), nullptr);
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
  std::vector<std::uint8_t> info_, coded_, decoded_;
  std::vector<unsigned char> llr_;  // the decoder's input, of code_.llr's kind
};

}  // namespace

std::unique_ptr<chain> make_awgn_chain(const binary_code& code, backend where, double ebn0_db,
                                       std::uint64_t seed) {
  code.validate();
  detail::require_one_frame_fits(code, available_host_memory(), "host");
  if (resolve_backend(where) == backend::cuda)
    return cuda_factory<detail::cuda_awgn_chain_entry>("the CUDA BPSK/AWGN chain")(code, ebn0_db,
                                                                                   seed);
  return std::make_unique<cpu_awgn_chain>(code, ebn0_db, seed);
}

}  // namespace gpufec::sim
