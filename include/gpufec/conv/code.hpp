// The description of a convolutional code: rate 1/beta (beta = 2..4 output streams), constraint
// length K = 3..9 (up to 256 states), generator polynomials in octal, and optionally a feedback
// polynomial (the recursive systematic form); plus how a frame ends (termination). A conv_code
// validates itself on construction and names the bad field, and carries its trellis as small tables
// that every encoder and decoder reads, so they cannot disagree about it.
//
// Conventions (stated once; docs/conv.md):
// - A polynomial is the integer whose binary digits are the taps, written in octal as in MATLAB's
//   poly2trellis, libfec's documentation and the standards (171 and 133 for the K = 7 code of DVB-S
//   and 802.11). Bit K-1 (the MSB) taps the current input, bit 0 the input of K-1 stages ago. In
//   C++ write them as octal literals: conv_code(7, {0171, 0133}).
// - Stage t sends output stream 0 first, then 1, ...: an impulse into (171, 133) gives
//   11 10 11 11 00 01 11.
// - The register holds bits w: the input itself for a feedforward code; for a recursive code
//   w_t = u_t XOR (feedback taps on the previous K-1 register bits). Outputs are parities of the
//   register (w_t and the K-1 bits before it) under each polynomial, so with polynomial 0 equal to
//   the feedback (recursive_systematic) stream 0 is the input itself, as in Sionna's rsc=True.
// - State numbering (the trellis tables, libfec's too): state s holds the previous K-1 register
//   bits, bit 0 the most recent; branch (s, w) goes to ((s << 1) | w) mod 2^(K-1).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpufec/common/enum_names.hpp"

namespace gpufec::conv {

// How a frame of information bits ends:
// - zero_tail: K-1 tail stages drive the encoder back to state 0 (their register bits are 0); the
//   decoder knows both the start and the end state.
// - truncated: no tail; the decoder starts in state 0 and ends in the best state.
// - tail_biting: the encoder starts in the state it will end in (no tail, no rate loss); the
//   decoder knows neither but that they are equal.
enum class termination { zero_tail, truncated, tail_biting };

class conv_code {
 public:
  static constexpr int min_K = 3, max_K = 9;
  static constexpr int min_beta = 2, max_beta = 4;

  // A feedforward code; `polynomials` holds beta generator polynomials (see the conventions).
  // Throws invalid_argument naming the bad field: K or beta out of range, a zero polynomial, a
  // polynomial wider than K bits, no polynomial tapping the current input (MSB) or the oldest one
  // (bit 0): such a code is really one of a smaller constraint length.
  conv_code(int K, std::vector<std::uint32_t> polynomials);
  // The recursive systematic form: polynomials[0] is also the feedback polynomial, so stream 0 is
  // the systematic one (Sionna's ConvEncoder(rsc=True) convention). The feedback must tap the
  // current input (its MSB).
  static conv_code recursive_systematic(int K, std::vector<std::uint32_t> polynomials);
  // Polynomials from text, "171,133" (octal digits, comma separated).
  static conv_code parse(int K, std::string_view octal_polynomials, bool recursive = false);

  int K() const { return K_; }
  int beta() const { return static_cast<int>(polynomials_.size()); }
  int memory() const { return K_ - 1; }
  unsigned states() const { return 1u << (K_ - 1); }
  const std::vector<std::uint32_t>& polynomials() const { return polynomials_; }
  bool recursive() const { return feedback_.has_value(); }
  std::optional<std::uint32_t> feedback() const { return feedback_; }
  // "K=7 (171,133)" or "K=4 RSC (13,15), feedback 13".
  std::string to_string() const;

  // --- The trellis (state numbering above) ---------------------------------------------------
  // Output bits (stream b at bit b) of the branch from state s with register bit w.
  unsigned label(unsigned s, unsigned w) const { return label_[2 * s + w]; }
  // The register bit that input u makes in state s (u itself for a feedforward code).
  unsigned register_bit(unsigned s, unsigned u) const { return u ^ feedback_parity_[s]; }
  // The input bit of branch (s, w): the decoded information bit.
  unsigned input_bit(unsigned s, unsigned w) const { return w ^ feedback_parity_[s]; }
  unsigned next_state(unsigned s, unsigned w) const { return ((s << 1) | w) & (states() - 1); }
  // True when every polynomial taps both the current and the oldest input: then the four branches
  // of a butterfly carry one label and its complement (docs/conv.md), which the fast decoder uses.
  bool symmetric_butterflies() const;

  friend bool operator==(const conv_code& a, const conv_code& b) {
    return a.K_ == b.K_ && a.polynomials_ == b.polynomials_ && a.feedback_ == b.feedback_;
  }

 private:
  conv_code(int K, std::vector<std::uint32_t> polynomials, std::optional<std::uint32_t> feedback);

  int K_;
  std::vector<std::uint32_t> polynomials_;
  std::optional<std::uint32_t> feedback_;
  std::vector<std::uint8_t> label_;            // [2 s + w]
  std::vector<std::uint8_t> feedback_parity_;  // [s]: 0 for a feedforward code
};

// "171" -> 0171; throws invalid_argument naming `what` for a non-octal or empty text.
std::uint32_t parse_octal(std::string_view text, std::string_view what);
// 0171 -> "171".
std::string octal(std::uint32_t value);

}  // namespace gpufec::conv

template <>
struct gpufec::enum_names<gpufec::conv::termination> {
  static constexpr std::array entries{
      enum_entry{conv::termination::zero_tail, "zero"},
      enum_entry{conv::termination::truncated, "trunc"},
      enum_entry{conv::termination::tail_biting, "tailbiting"},
  };
};
