// Packed bits, MSB first within each byte (the order of `xxd -b` and of most capture formats).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gpufec {

// Packs one bit per element (any non-zero value is 1) into ceil(n / 8) bytes, padding with 0.
std::vector<std::uint8_t> pack_bits(std::span<const std::uint8_t> bits);
// Unpacks the first `count` bits; throws format_error if `packed` holds fewer.
std::vector<std::uint8_t> unpack_bits(std::span<const std::uint8_t> packed, std::size_t count);

}  // namespace gpufec
