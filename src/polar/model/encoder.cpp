// The polar transform and the encoders built on it (encoder.hpp). Byte per bit: these run once per
// frame in simulations, far below the decoders' cost.
#include "gpufec/polar/encoder.hpp"

#include <algorithm>
#include <vector>

#include "gpufec/common/error.hpp"

namespace gpufec::polar {

namespace {

template <class T>
void transform(std::span<T> bits) {
  const std::size_t N = bits.size();
  require(N >= 1 && (N & (N - 1)) == 0,
          "the polar transform needs a power-of-two length (length = ", N, ")");
  for (std::size_t h = 1; h < N; h <<= 1)
    for (std::size_t block = 0; block < N; block += 2 * h)
      for (std::size_t j = block; j < block + h; ++j) bits[j] ^= bits[j + h];
}

void require_sizes(const polar_code& code, std::size_t info, std::size_t codeword) {
  require(info == code.K(), "encode: ", info, " information bits for K = ", code.K());
  require(codeword == code.N(), "encode: a codeword buffer of ", codeword,
          " bits for N = ", code.N());
}

void require_bits(std::span<const std::uint8_t> info, std::size_t frame) {
  for (std::size_t k = 0; k < info.size(); ++k)
    require(info[k] <= 1, "encode: information bit ", k, " of frame ", frame, " is ", int(info[k]),
            " (must be 0 or 1)");
}

// Sizes and bit values already checked (the batch form checks before its parallel loop: an
// exception must not leave an OpenMP region).
void encode_checked(const polar_code& code, std::span<const std::uint8_t> info,
                    std::span<std::uint8_t> codeword) {
  const auto& A = code.info_positions();
  std::fill(codeword.begin(), codeword.end(), std::uint8_t{0});
  for (std::size_t k = 0; k < info.size(); ++k) codeword[A[k]] = info[k];
  polar_transform(codeword);
  if (!code.systematic()) return;
  for (std::uint32_t j : code.frozen_positions()) codeword[j] = 0;
  polar_transform(codeword);
}

}  // namespace

void polar_transform(std::span<std::uint8_t> bits) {
  transform(bits);
}

void polar_transform_words(std::span<std::uint64_t> words) {
  transform(words);
}

void encode(const polar_code& code, std::span<const std::uint8_t> info,
            std::span<std::uint8_t> codeword) {
  require_sizes(code, info.size(), codeword.size());
  require_bits(info, 0);
  encode_checked(code, info, codeword);
}

void encode(const polar_code& code, batch_view<std::uint8_t> info,
            batch_span<std::uint8_t> codewords) {
  require(info.is_uniform() && !info.on_device() && !codewords.on_device(),
          "encode: the batches must be uniform host batches");
  require(info.frames() == codewords.frames(), "encode: ", info.frames(),
          " information frames but room for ", codewords.frames(), " codewords");
  require_sizes(code, info.stride, codewords.stride);
  for (std::size_t f = 0; f < info.frames(); ++f) require_bits(info.frame(f), f);
  const auto frames = static_cast<std::ptrdiff_t>(info.frames());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t f = 0; f < frames; ++f)
    encode_checked(code, info.frame(f), codewords.frame(f));
}

void info_from_codeword(const polar_code& code, std::span<const std::uint8_t> codeword,
                        std::span<std::uint8_t> info) {
  require(codeword.size() == code.N() && info.size() == code.K(),
          "info_from_codeword: ", codeword.size(), " codeword bits and ", info.size(),
          " info bits for N = ", code.N(), ", K = ", code.K());
  const auto& A = code.info_positions();
  if (code.systematic()) {
    for (std::size_t k = 0; k < A.size(); ++k) info[k] = codeword[A[k]];
    return;
  }
  std::vector<std::uint8_t> u(codeword.begin(), codeword.end());
  polar_transform(u);
  for (std::size_t k = 0; k < A.size(); ++k) info[k] = u[A[k]];
}

}  // namespace gpufec::polar
