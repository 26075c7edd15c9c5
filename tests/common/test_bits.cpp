// A word's 64 bits as bytes of 0/1 and back (common/bits.hpp): the simulators' source bits and the
// conv encoder's words. Random words round-trip; only bit 0 of each byte counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gpufec/common/bits.hpp"

namespace gpufec {
namespace {

TEST(BitBytes, WordsRoundTripAndOnlyBitZeroCounts) {
  std::mt19937_64 rng(64);
  std::uint8_t bytes[64];
  for (int t = 0; t < 10000; ++t) {
    const std::uint64_t word = t == 0 ? ~0ull : t == 1 ? 0 : rng();
    word_to_bit_bytes(word, bytes);
    for (int i = 0; i < 64; ++i) ASSERT_EQ(bytes[i], (word >> i) & 1u) << i;
    ASSERT_EQ(bit_bytes_to_word(bytes), word);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(b | (rng() & 0xFEu));  // noise above
    ASSERT_EQ(bit_bytes_to_word(bytes), word);
  }
}

}  // namespace
}  // namespace gpufec
