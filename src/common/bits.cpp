#include "gpufec/common/bits.hpp"

#include "gpufec/common/error.hpp"

namespace gpufec {

std::vector<std::uint8_t> pack_bits(std::span<const std::uint8_t> bits) {
  std::vector<std::uint8_t> packed((bits.size() + 7) / 8, 0);
  for (std::size_t k = 0; k < bits.size(); ++k)
    if (bits[k]) packed[k >> 3] |= static_cast<std::uint8_t>(0x80u >> (k & 7));
  return packed;
}

std::vector<std::uint8_t> unpack_bits(std::span<const std::uint8_t> packed, std::size_t count) {
  require<format_error>(packed.size() * 8 >= count, "packed bits: need ", count, " bits but only ",
                        packed.size(), " bytes (", packed.size() * 8, " bits) are present");
  std::vector<std::uint8_t> bits(count);
  for (std::size_t k = 0; k < count; ++k) bits[k] = (packed[k >> 3] >> (7 - (k & 7))) & 1u;
  return bits;
}

}  // namespace gpufec
