// The polar transform and the encoders built on it (encoder.hpp). The encoders run on 64 positions
// per word (a simulation encodes every frame, and byte per bit cost as much as the SC decoder);
// polar_transform keeps the byte-per-bit form it is documented with.
#include "gpufec/polar/encoder.hpp"

#include <algorithm>
#include <vector>

#include "gpufec/common/bits.hpp"
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
  // An OR over the frame first, a loop the compiler vectorizes (a simulation encodes every frame
  // it decodes); the message's loop only where a value is not a bit.
  std::uint8_t any = 0;
  for (const std::uint8_t b : info) any |= b;
  if (any <= 1) return;
  for (std::size_t k = 0; k < info.size(); ++k)
    require(info[k] <= 1, "encode: information bit ", k, " of frame ", frame, " is ", int(info[k]),
            " (must be 0 or 1)");
}

// The transform on packed positions (bit j % 64 of word j / 64), in place. Within a word, half h
// of each block of 2h positions takes the XOR of the other: x ^= (x >> h) & low_h, low_h the
// positions j with j mod 2h < h; across words, whole words.
void transform_packed(std::span<std::uint64_t> x, std::size_t N) {
  static constexpr std::uint64_t low[6] = {0x5555555555555555ull, 0x3333333333333333ull,
                                           0x0F0F0F0F0F0F0F0Full, 0x00FF00FF00FF00FFull,
                                           0x0000FFFF0000FFFFull, 0x00000000FFFFFFFFull};
  for (int level = 0; level < 6 && (std::size_t{1} << level) < N; ++level) {
    const unsigned h = 1u << level;
    for (std::uint64_t& w : x) w ^= (w >> h) & low[level];
  }
  for (std::size_t h = 1; 64 * h < N; h <<= 1)
    for (std::size_t block = 0; block < x.size(); block += 2 * h)
      for (std::size_t j = block; j < block + h; ++j) x[j] ^= x[j + h];
}

// The information positions as a packed mask (systematic encoding clears the others).
std::vector<std::uint64_t> packed_info_mask(const polar_code& code) {
  std::vector<std::uint64_t> mask((code.N() + 63) / 64, 0);
  for (const std::uint32_t j : code.info_positions()) mask[j >> 6] |= std::uint64_t{1} << (j & 63);
  return mask;
}

// Sizes and bit values already checked (the batch form checks before its parallel loop: an
// exception must not leave an OpenMP region). `words` is scratch of N / 64 words (at least one);
// `info_mask` is packed_info_mask(code) for a systematic code.
void encode_checked(const polar_code& code, std::span<const std::uint8_t> info,
                    std::span<std::uint8_t> codeword, std::span<std::uint64_t> words,
                    std::span<const std::uint64_t> info_mask) {
  const auto& A = code.info_positions();
  const std::size_t N = code.N(), K = info.size();
  // Word by word in a register (the positions ascend, so each word's bits are a run of k): no
  // read-modify-write of memory per bit.
  for (std::size_t w = 0, k = 0; w < words.size(); ++w) {
    std::uint64_t word = 0;
    for (; k < K && A[k] >> 6 == w; ++k)
      word |= static_cast<std::uint64_t>(info[k] & 1u) << (A[k] & 63);
    words[w] = word;
  }
  transform_packed(words, N);
  if (code.systematic()) {
    for (std::size_t w = 0; w < words.size(); ++w) words[w] &= info_mask[w];
    transform_packed(words, N);
  }
  if (N >= 64) {
    for (std::size_t w = 0; w < words.size(); ++w) word_to_bit_bytes(words[w], &codeword[64 * w]);
    return;
  }
  for (std::size_t j = 0; j < N; ++j) codeword[j] = (words[0] >> j) & 1u;
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
  std::vector<std::uint64_t> words((code.N() + 63) / 64);
  encode_checked(code, info, codeword, words,
                 code.systematic() ? packed_info_mask(code) : std::vector<std::uint64_t>{});
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
  const std::vector<std::uint64_t> info_mask =
      code.systematic() ? packed_info_mask(code) : std::vector<std::uint64_t>{};
#pragma omp parallel
  {
    std::vector<std::uint64_t> words((code.N() + 63) / 64);
#pragma omp for schedule(static)
    for (std::ptrdiff_t f = 0; f < frames; ++f)
      encode_checked(code, info.frame(f), codewords.frame(f), words, info_mask);
  }
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
