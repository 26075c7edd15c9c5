// Packed bits, MSB first within each byte (the order of `xxd -b` and of most capture formats).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace gpufec {

// Packs one bit per element (any non-zero value is 1) into ceil(n / 8) bytes, padding with 0.
std::vector<std::uint8_t> pack_bits(std::span<const std::uint8_t> bits);
// Unpacks the first `count` bits; throws format_error if `packed` holds fewer.
std::vector<std::uint8_t> unpack_bits(std::span<const std::uint8_t> packed, std::size_t count);

namespace detail {
// byte_bits[v][i] = bit i of v (LSB first), as 0 or 1.
inline constexpr auto byte_bits = [] {
  std::array<std::array<std::uint8_t, 8>, 256> table{};
  for (unsigned v = 0; v < 256; ++v)
    for (unsigned i = 0; i < 8; ++i) table[v][i] = static_cast<std::uint8_t>((v >> i) & 1u);
  return table;
}();
}  // namespace detail

// The 64 bits of `word`, LSB first, as 64 bytes of 0 or 1: eight table lookups of eight bytes
// (the simulators' source bits and encoders; a loop over the bits costs several times more).
inline void word_to_bit_bytes(std::uint64_t word, std::uint8_t* out) {
  for (int k = 0; k < 8; ++k)
    std::memcpy(out + 8 * k, detail::byte_bits[(word >> (8 * k)) & 0xFFu].data(), 8);
}

// Bit 0 of each of the eight bytes of a little-endian word, the first byte's the LSB: their low
// bits masked, a multiply moves byte k's bit to bit 56 + k (no two products overlap, so no
// carries), and the top byte holds the eight bits. constexpr, so device code uses it too.
constexpr std::uint64_t low_bits_of_bytes(std::uint64_t x) {
  return ((x & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56;
}

// The inverse of word_to_bit_bytes: bit 0 of each of 64 bytes, the first the LSB, as one word.
inline std::uint64_t bit_bytes_to_word(const std::uint8_t* in) {
  static_assert(std::endian::native == std::endian::little, "bytes read as a little-endian word");
  std::uint64_t word = 0;
  for (int k = 0; k < 8; ++k) {
    std::uint64_t x;
    std::memcpy(&x, in + 8 * k, 8);
    word |= low_bits_of_bytes(x) << (8 * k);
  }
  return word;
}

}  // namespace gpufec
