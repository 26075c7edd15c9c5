// Shared helpers of the polar tests: random information words and BPSK/AWGN LLRs from gpufec's
// Philox streams (so every test is reproducible), encoding a batch, and counting frame errors.
#pragma once

#include <cstdint>
#include <vector>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/random.hpp"
#include "gpufec/polar/decoder.hpp"
#include "gpufec/polar/encoder.hpp"

namespace gpufec::polar::test {

struct noisy_batch {
  std::vector<std::uint8_t> info;      // frames * K
  std::vector<std::uint8_t> codeword;  // frames * N
  std::vector<float> llr;              // frames * N
};

// Random information words, their codewords and the LLRs after BPSK/AWGN at `ebn0_db` (rate K/N);
// sigma <= 0 means no noise (LLR +-2 per bit, as y = +-1 at sigma = 1).
inline noisy_batch make_batch(const polar_code& code, std::size_t frames, double ebn0_db,
                              std::uint64_t seed, bool noise = true) {
  const std::size_t N = code.N(), K = code.K();
  noisy_batch b{std::vector<std::uint8_t>(frames * K), std::vector<std::uint8_t>(frames * N),
                std::vector<float>(frames * N)};
  const double sigma = channel::sigma_from_ebn0(ebn0_db, code.rate());
  for (std::size_t f = 0; f < frames; ++f) {
    philox_stream source(seed, rng_source, f);
    for (std::size_t k = 0; k < K; ++k)
      b.info[f * K + k] = static_cast<std::uint8_t>(source.next_bit());
    encode(code, {b.info.data() + f * K, K}, {b.codeword.data() + f * N, N});
    for (std::size_t j = 0; j < N; ++j) {
      const std::uint8_t bit = b.codeword[f * N + j];
      b.llr[f * N + j] = noise ? static_cast<float>(channel::llr_from_sample(
                                     channel::awgn_received(seed, f, j, bit, sigma), sigma))
                               : (bit ? -2.0f : 2.0f);
    }
  }
  return b;
}

// Hard-decodes a batch with a plan and returns the decoded bits (frames * K).
inline std::vector<std::uint8_t> decode_bits(decoder_plan& plan, const std::vector<float>& llr,
                                             std::vector<std::uint32_t>* iterations = nullptr) {
  const std::size_t N = plan.code().N(), K = plan.code().K(), frames = llr.size() / N;
  std::vector<std::uint8_t> bits(frames * K);
  if (iterations) iterations->assign(frames, 0);
  plan.decode(batch_view<float>::uniform(llr.data(), frames, N),
              batch_span<std::uint8_t>::uniform(bits.data(), frames, K),
              iterations ? std::span<std::uint32_t>(*iterations) : std::span<std::uint32_t>());
  return bits;
}

inline std::size_t frame_errors(const std::vector<std::uint8_t>& a,
                                const std::vector<std::uint8_t>& b, std::size_t K) {
  std::size_t errors = 0;
  for (std::size_t f = 0; f < a.size() / K; ++f)
    for (std::size_t k = 0; k < K; ++k)
      if (a[f * K + k] != b[f * K + k]) {
        ++errors;
        break;
      }
  return errors;
}

}  // namespace gpufec::polar::test
