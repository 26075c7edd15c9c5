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

// What an encode needs of the code beyond its length, made once per call: the information
// positions as runs of consecutive positions inside one word, and for a systematic code the
// packed mask of the information positions (systematic encoding clears the others).
struct packed_layout {
  struct run {
    std::uint32_t k, position, length;  // information bits k .. k + length - 1 go to position ...
  };
  std::vector<run> runs;
  std::vector<std::uint64_t> info_mask;
};

packed_layout layout_of(const polar_code& code) {
  packed_layout l;
  const auto& A = code.info_positions();
  const auto K = static_cast<std::uint32_t>(A.size());
  for (std::uint32_t k = 0; k < K;) {
    std::uint32_t n = 1;
    while (k + n < K && A[k + n] == A[k] + n && (A[k + n] & 63) != 0) ++n;
    l.runs.push_back({k, A[k], n});
    k += n;
  }
  if (code.systematic()) {
    l.info_mask.assign((code.N() + 63) / 64, 0);
    for (const std::uint32_t j : A) l.info_mask[j >> 6] |= std::uint64_t{1} << (j & 63);
  }
  return l;
}

// Scratch an encode needs: the codeword's N / 64 words (at least one), and the information bits
// packed (K / 64 words, and two more: the tail, and a zero word a run may read past it).
struct encode_scratch {
  std::vector<std::uint64_t> words, info;
  explicit encode_scratch(const polar_code& code)
      : words((code.N() + 63) / 64), info(code.K() / 64 + 2) {}
};

// Sizes and bit values already checked (the batch form checks before its parallel loop: an
// exception must not leave an OpenMP region). The information bits are packed 64 a word by
// multiplies (bit_bytes_to_word), then each run of positions takes its bits by one shift and mask:
// no read-modify-write of memory per bit.
void encode_checked(const polar_code& code, const packed_layout& layout,
                    std::span<const std::uint8_t> info, std::span<std::uint8_t> codeword,
                    encode_scratch& scratch) {
  const std::size_t N = code.N(), K = info.size(), whole = K / 64;
  std::span<std::uint64_t> words(scratch.words);
  std::uint64_t* const packed = scratch.info.data();
  for (std::size_t w = 0; w < whole; ++w) packed[w] = bit_bytes_to_word(&info[64 * w]);
  std::uint64_t tail = 0;
  for (std::size_t k = 64 * whole; k < K; ++k)
    tail |= static_cast<std::uint64_t>(info[k] & 1u) << (k & 63);
  packed[whole] = tail;
  packed[whole + 1] = 0;
  std::fill(words.begin(), words.end(), std::uint64_t{0});
  for (const packed_layout::run& r : layout.runs) {
    const std::uint32_t at = r.k >> 6, shift = r.k & 63;
    std::uint64_t bits = packed[at] >> shift;
    if (shift + r.length > 64) bits |= packed[at + 1] << (64 - shift);
    if (r.length < 64) bits &= (std::uint64_t{1} << r.length) - 1;
    words[r.position >> 6] |= bits << (r.position & 63);
  }
  transform_packed(words, N);
  if (code.systematic()) {
    for (std::size_t w = 0; w < words.size(); ++w) words[w] &= layout.info_mask[w];
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
  encode_scratch scratch(code);
  encode_checked(code, layout_of(code), info, codeword, scratch);
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
  const packed_layout layout = layout_of(code);
#pragma omp parallel
  {
    encode_scratch scratch(code);
#pragma omp for schedule(static)
    for (std::ptrdiff_t f = 0; f < frames; ++f)
      encode_checked(code, layout, info.frame(f), codewords.frame(f), scratch);
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
