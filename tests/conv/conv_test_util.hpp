// Helpers shared by the conv tests: the codes they run over, random frames through BPSK/AWGN
// (Philox + channel::awgn_received, so every run draws the same noise), and the brute-force
// maximum-likelihood oracle over all information sequences.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/philox.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/puncture.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv::testing {

// A code under test with a name for failure messages.
struct named_code {
  std::string name;
  conv_code code;
};

// Small codes for exhaustive searches: K = 3..7, beta = 2..3, symmetric and general butterflies,
// feedforward and recursive.
inline std::vector<named_code> small_codes() {
  return {
      {"K3 (7,5)", conv_code(3, {07, 05})},
      {"K3 RSC (7,5)", conv_code::recursive_systematic(3, {07, 05})},
      {"K4 (13,15,17)", conv_code(4, {013, 015, 017})},
      {"K4 RSC (13,15)", conv_code::recursive_systematic(4, {013, 015})},
      {"K5 (23,12) general", conv_code(5, {023, 012})},
      {"K6 (53,75)", conv_code(6, {053, 075})},
      {"K7 (171,133)", conv_code(7, {0171, 0133})},
      {"K7 (133,171,165)", conv_code(7, {0133, 0171, 0165})},
  };
}

// Every constraint length 3..9 and beta = 2..4, for fast == reference on long frames (with a
// recursive code in the range of the two-frame kernel, K = 5..7).
inline std::vector<named_code> all_codes() {
  auto codes = small_codes();
  codes.push_back({"K5 (25,27,33,37)", conv_code(5, {025, 027, 033, 037})});
  codes.push_back({"K5 RSC (23,35)", conv_code::recursive_systematic(5, {023, 035})});
  codes.push_back({"K8 (247,371)", conv_code(8, {0247, 0371})});
  codes.push_back({"K9 (561,753)", conv_code(9, {0561, 0753})});
  codes.push_back({"K9 (557,663,711)", conv_code(9, {0557, 0663, 0711})});
  return codes;
}

// Whether noise-free decoding must give back exactly the bits sent. Without puncturing every code
// here is non-catastrophic, so it must. Puncturing can make a code ambiguous, two information
// sequences sending the same bits (e.g. (7,5) at 2/3 tail-biting, or (23,12) at 2/3, whose last
// stage sends only the stream that ignores the current input); then any decoder can only return
// a sequence with the same codeword. The standard punctured codes below are not ambiguous.
inline bool exact_when_noise_free(const named_code& c, const puncture_pattern& pattern) {
  if (!pattern.punctures()) return true;
  for (const char* standard :
       {"K6 (53,75)", "K7 (171,133)", "K7 (133,171,165)", "K9 (561,753)", "K9 (557,663,711)"})
    if (c.name == standard) return true;
  return false;
}

// Patterns for a code: none, and for beta = 2 the DVB-S 2/3 and 3/4, for beta = 3 one of period 2.
inline std::vector<puncture_pattern> patterns_for(const conv_code& code) {
  std::vector<puncture_pattern> out{puncture_pattern::none(code.beta())};
  if (code.beta() == 2) {
    out.push_back(puncture_pattern::standard("2/3", 2));
    out.push_back(puncture_pattern::standard("3/4", 2));
  } else if (code.beta() == 3) {
    out.push_back(puncture_pattern::parse("11,10,01", 3));
  }
  return out;
}

// The encoder tests' patterns: patterns_for and, for beta = 2, DVB-S 7/8 (the longest period).
inline std::vector<puncture_pattern> encoder_patterns_for(const conv_code& code) {
  auto patterns = patterns_for(code);
  if (code.beta() == 2) patterns.push_back(puncture_pattern::standard("7/8", 2));
  return patterns;
}

inline constexpr termination all_terminations[] = {termination::zero_tail, termination::truncated,
                                                   termination::tail_biting};

// False when a recursive code cannot tail-bite N bits (N a multiple of its feedback's period).
inline bool can_encode(const conv_code& code, const puncture_pattern& pattern, std::size_t N,
                       termination term) {
  try {
    encoder(code, pattern, N, term);
    return true;
  } catch (const invalid_argument&) {
    return false;
  }
}

inline std::vector<std::uint8_t> random_bits(std::uint64_t seed, std::uint64_t frame,
                                             std::size_t n) {
  philox_stream source(seed, rng_source, frame);
  std::vector<std::uint8_t> bits(n);
  for (auto& b : bits) b = static_cast<std::uint8_t>(source.next_bit());
  return bits;
}

// LLRs 2y/sigma^2 of coded bits sent as BPSK over AWGN (frame `frame` of `seed`).
inline std::vector<float> awgn_llrs(const std::vector<std::uint8_t>& coded, double sigma,
                                    std::uint64_t seed, std::uint64_t frame) {
  std::vector<float> llr(coded.size());
  for (std::size_t i = 0; i < coded.size(); ++i)
    llr[i] = static_cast<float>(
        channel::llr_from_sample(channel::awgn_received(seed, frame, i, coded[i], sigma), sigma));
  return llr;
}

// Noise-free LLRs: +4 for bit 0, -4 for bit 1.
inline std::vector<float> clean_llrs(const std::vector<std::uint8_t>& coded) {
  std::vector<float> llr(coded.size());
  for (std::size_t i = 0; i < coded.size(); ++i) llr[i] = coded[i] ? -4.0f : 4.0f;
  return llr;
}

// `frames` noisy frames as int8 LLRs (a coarse scale, so that metric ties occur) and their bits.
struct int8_batch {
  std::vector<std::uint8_t> info;
  std::vector<std::int8_t> llr;
};
inline int8_batch make_int8_batch(const encoder& enc, std::size_t frames, double sigma,
                                  std::uint64_t seed, double scale) {
  int8_batch b;
  const std::size_t n = enc.shape().coded_bits, N = enc.shape().info_bits;
  b.info.resize(frames * N);
  b.llr.resize(frames * n);
  std::vector<std::uint8_t> coded(n);
  for (std::size_t f = 0; f < frames; ++f) {
    const auto bits = random_bits(seed, f, N);
    std::copy(bits.begin(), bits.end(), b.info.begin() + static_cast<std::ptrdiff_t>(f * N));
    enc.encode(bits, coded);
    const auto llr = awgn_llrs(coded, sigma, seed, f);
    quantize_llrs(llr, scale, std::span<std::int8_t>(b.llr).subspan(f * n, n));
  }
  return b;
}

// The brute-force ML decision: the information sequence whose sent codeword correlates best
// with the LLRs (sum over sent bits of (1 - 2c) L), over all 2^N sequences. `margin` is how much
// worse the runner-up is: 0 means a tie, and the caller skips such frames.
struct ml_result {
  std::vector<std::uint8_t> bits;
  double margin = 0;
};

template <class T>
ml_result exhaustive_ml(const encoder& enc, const std::vector<T>& llrs) {
  const std::size_t N = enc.shape().info_bits;
  std::vector<std::uint8_t> info(N), coded(enc.shape().coded_bits);
  double best = -std::numeric_limits<double>::infinity(), second = best;
  ml_result out;
  for (std::uint64_t x = 0; x < (std::uint64_t{1} << N); ++x) {
    for (std::size_t i = 0; i < N; ++i) info[i] = static_cast<std::uint8_t>((x >> i) & 1u);
    enc.encode(info, coded);
    double metric = 0;
    for (std::size_t i = 0; i < coded.size(); ++i)
      metric += coded[i] ? -static_cast<double>(llrs[i]) : static_cast<double>(llrs[i]);
    if (metric > best) {
      second = best;
      best = metric;
      out.bits = info;
    } else if (metric > second) {
      second = metric;
    }
  }
  out.margin = best - second;
  return out;
}

// Rate 1/2 codes and CUDA kernels with the tile shape a CUDA plan or stream runs when given none:
// the register kernel's where it is compiled for the code (the default shape, as it is for a batch
// of less than a wave of tiles), else the shared kernel's (256, D, D, 0); `registers`: which
// kernel runs.
struct default_tile_case {
  conv_code code;
  cuda_kernel kernel;
  tile_shape expected;
  bool registers;
};
inline std::vector<default_tile_case> default_tile_cases() {
  const conv_code k7(7, {0133, 0171});
  return {
      {k7, cuda_kernel::automatic, default_tile_shape(k7, puncture_pattern::none(2)), true},
      {k7, cuda_kernel::shared_memory, {256, 35, 35, 0}, false},
      {conv_code(7, {0117, 0155}), cuda_kernel::automatic, {256, 35, 35, 0}, false},
      {conv_code(9, {0753, 0561}), cuda_kernel::automatic, {256, 45, 45, 0}, false},
      {conv_code(9, {0561, 0753}), cuda_kernel::automatic, {1056, 48, 60, 66}, true},
  };
}
// Warps resident per SM by a plan's or stream's kernel line ("... block 64 (...), shared ... B, 6
// blocks/SM ..."): the register kernel keeps the same number on every scheduler of an SM.
inline int resident_warps_per_sm(const std::string& kernel_line) {
  const std::size_t block = kernel_line.find("block "), per_sm = kernel_line.find(" blocks/SM");
  if (block == std::string::npos || per_sm == std::string::npos) return -1;
  const std::size_t start = kernel_line.rfind(' ', per_sm - 1) + 1;
  return std::stoi(kernel_line.substr(block + 6)) / 32 *
         std::stoi(kernel_line.substr(start, per_sm - start));
}

}  // namespace gpufec::conv::testing
