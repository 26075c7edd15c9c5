// The BPSK/AWGN chain on the CPU (OpenMP over the frames of a batch), and the chain factory.
#include "gpufec/sim/awgn_chain.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "sim/awgn_chain_entry.hpp"

namespace gpufec::sim {

void binary_decoder::decode(batch_view<std::int8_t>, batch_span<std::uint8_t>, cuda_stream,
                            const stop_token&) {
  throw invalid_argument("this decoder does not take int8 LLRs");
}
void binary_decoder::decode_hard(batch_view<std::uint8_t>, batch_span<std::uint8_t>, cuda_stream,
                                 const stop_token&) {
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
               std::size_t N, batch_span<std::uint8_t> out, cuda_stream stream,
               const stop_token& stop) {
  const memory_space where = out.where;
  switch (kind) {
    case llr_kind::f32:
      decoder.decode(batch_view<float>::uniform(static_cast<const float*>(llr), n, N, where), out,
                     stream, stop);
      return;
    case llr_kind::i8:
      decoder.decode(
          batch_view<std::int8_t>::uniform(static_cast<const std::int8_t*>(llr), n, N, where), out,
          stream, stop);
      return;
    case llr_kind::hard:
      decoder.decode_hard(
          batch_view<std::uint8_t>::uniform(static_cast<const std::uint8_t*>(llr), n, N, where),
          out, stream, stop);
      return;
  }
}
}  // namespace detail

namespace {

// The chain's per-sample stages run over blocks of kBlock positions of every frame of a step,
// all threads on any mix of frames (one long frame is every thread's work), each block a
// fraction of a millisecond, between which a stop is looked at.
constexpr std::size_t kBlock = std::size_t{1} << 16;

// Runs work(frame, begin, end) over every block of n frames of `length` positions, on every
// thread; returns false when `stop` was requested before all of them ran (those left undone).
template <class Work>
bool for_each_block(std::size_t n, std::size_t length, const stop_token& stop, Work&& work) {
  const std::size_t per_frame = (length + kBlock - 1) / kBlock;
  const auto blocks = static_cast<std::int64_t>(n * per_frame);
  std::atomic<bool> stopped_early{false};
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (stopped_early.load(std::memory_order_relaxed)) continue;
    if (b % 64 == 0 && stop.requested()) {
      stopped_early = true;
      continue;
    }
    const std::size_t f = static_cast<std::size_t>(b) / per_frame;
    const std::size_t begin = static_cast<std::size_t>(b) % per_frame * kBlock;
    work(f, begin, std::min(length, begin + kBlock));
  }
  return !stopped_early;
}

// A buffer of n values whose growth writes nothing: a long frame's buffers are gigabytes, and
// zeroing them would take seconds no stop could end (the stages then write every value, block by
// block).
template <class T>
class scratch_buffer {
 public:
  T* ensure(std::size_t n) {
    if (n > size_) {
      data_ = std::make_unique_for_overwrite<T[]>(n);
      size_ = n;
    }
    return data_.get();
  }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
};

class cpu_awgn_chain final : public detail::stepped_chain {
 public:
  // About 2^20 transmitted bits per decoder call: enough to share among threads, small in memory.
  cpu_awgn_chain(const binary_code& code, double ebn0_db, std::uint64_t seed)
      : stepped_chain(detail::frames_for(code, backend::cpu)),
        code_(code),
        seed_(seed),
        sigma_(channel::sigma_from_ebn0(ebn0_db, code.rate())),
        decoder_(code.decoder(backend::cpu, detail::frames_for(code, backend::cpu))) {}

  frame_shape shape() const override { return {code_.info_bits, code_.info_bits, 1, false}; }
  std::size_t preferred_batch() const override { return decoder_->max_batch(); }
  fields details() const override { return detail::chain_details(code_, sigma_, *decoder_); }

 private:
  std::optional<double> run_step(std::uint64_t first, std::size_t n, frame_outcome* outcomes,
                                 const stop_token& stop) override {
    const std::size_t K = code_.info_bits, N = code_.coded_bits;
    std::uint8_t* const info = info_.ensure(n * K);
    std::uint8_t* const decoded = decoded_.ensure(n * K);
    // Source: frame f's bits from its own Philox stream.
    if (!for_each_block(n, K, stop, [&](std::size_t f, std::size_t begin, std::size_t end) {
          const philox_stream source(seed_, rng_source, first + f);
          source_bits(source, begin, end, info + f * K + begin);
        }))
      return std::nullopt;
    if (stop.requested()) return std::nullopt;
    const std::uint8_t* coded = info;
    if (code_.encode) {
      std::uint8_t* const out = coded_.ensure(n * N);
      code_.encode(batch_view<std::uint8_t>::uniform(info, n, K),
                   batch_span<std::uint8_t>::uniform(out, n, N));
      coded = out;
    }
    // Channel: BPSK + AWGN, then the decoder's input (docs/simulator.md's frame contract).
    const std::size_t bytes = llr_bytes(code_.llr);
    unsigned char* const llr = llr_.ensure(n * N * bytes);
    if (!for_each_block(n, N, stop, [&](std::size_t f, std::size_t begin, std::size_t end) {
          const std::size_t at = f * N + begin;
          channel::awgn_llrs(seed_, first + f, begin, end, coded + at, sigma_, code_.llr,
                             llr + at * bytes);
        }))
      return std::nullopt;
    // Decoder: the only timed part. A stop inside it leaves the step undone.
    const auto t0 = std::chrono::steady_clock::now();
    try {
      detail::decode_as(*decoder_, code_.llr, llr, n, N,
                        batch_span<std::uint8_t>::uniform(decoded, n, K), nullptr, stop);
    } catch (const stopped&) {
      return std::nullopt;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Scoring: frame by frame (a frame's errors are one outcome).
    const auto frames = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static)
    for (std::int64_t f = 0; f < frames; ++f) {
      const std::size_t at = static_cast<std::size_t>(f) * K;
      outcomes[f] = score_bits(decoded + at, info + at, K);
    }
    return seconds;
  }

  binary_code code_;
  std::uint64_t seed_;
  double sigma_;
  std::unique_ptr<binary_decoder> decoder_;
  scratch_buffer<std::uint8_t> info_, coded_, decoded_;
  scratch_buffer<unsigned char> llr_;  // the decoder's input, of code_.llr's kind
};

}  // namespace

std::size_t chain_batch_frames(std::size_t info_bits, std::size_t coded_bits, backend where) {
  const std::size_t values = where == backend::cuda ? std::size_t{1} << 28 : std::size_t{1} << 20;
  return std::max<std::size_t>(1, values / std::max<std::size_t>({coded_bits, info_bits, 1}));
}

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
