// Polar encoders (conventions in polar_code.hpp and docs/polar.md): the transform x = u G_N in
// natural order, non-systematic and systematic encoding of information words, single and batched
// over uniform batch views, and the inverse map from a codeword back to its information bits.
#pragma once

#include <cstdint>
#include <span>

#include "gpufec/common/batch.hpp"
#include "gpufec/polar/polar_code.hpp"

namespace gpufec::polar {

// In place: bits <- bits G_N (bits are 0/1, size a power of two). G_N is an involution, so the
// same call maps a codeword x back to its u. Stage by stage: for h = 1, 2, 4, .., N/2 and every j
// with bit h clear, bits[j] ^= bits[j + h] (the stages commute; this is the factor graph's order
// from the u side, stage s having span h = 2^s).
void polar_transform(std::span<std::uint8_t> bits);
// The same on 64 independent words at once, one per bit lane of each 64-bit element.
void polar_transform_words(std::span<std::uint64_t> words);

// info: K bits; codeword: N bits. Systematic or not as the code says. Throws invalid_argument for
// a wrong size or a value other than 0 or 1.
void encode(const polar_code& code, std::span<const std::uint8_t> info,
            std::span<std::uint8_t> codeword);
// Every frame of `info` (uniform, K per frame) into `codewords` (N per frame), OpenMP over frames.
void encode(const polar_code& code, batch_view<std::uint8_t> info,
            batch_span<std::uint8_t> codewords);

// The information bits a codeword carries: x_A (systematic) or (x G_N)_A. For a codeword of the
// code this inverts encode; for any other word it is what a decoder that decided x would report.
void info_from_codeword(const polar_code& code, std::span<const std::uint8_t> codeword,
                        std::span<std::uint8_t> info);

}  // namespace gpufec::polar
