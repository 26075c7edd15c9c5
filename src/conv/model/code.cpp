// conv_code: validation with messages that name the field, and the trellis tables.
#include "gpufec/conv/code.hpp"

#include <bit>
#include <utility>

#include "gpufec/common/error.hpp"

namespace gpufec::conv {
namespace {

unsigned parity(std::uint32_t v) {
  return static_cast<unsigned>(std::popcount(v) & 1);
}

// Reverses the K low bits: a polynomial with the current-input tap at bit K-1 (the octal
// convention) becomes a mask over the register r = (s << 1) | w, whose bit 0 is the current bit.
std::uint32_t reverse_bits(std::uint32_t v, int K) {
  std::uint32_t r = 0;
  for (int k = 0; k < K; ++k) r |= ((v >> k) & 1u) << (K - 1 - k);
  return r;
}

void validate_polynomial(std::uint32_t g, int K, const std::string& what) {
  require(g != 0, what, " is zero (it would send a constant stream)");
  require(g < (1u << K), what, " (octal ", octal(g), ") is wider than K = ", K, " bits (at most ",
          octal((1u << K) - 1), ")");
}

}  // namespace

std::string octal(std::uint32_t value) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + (value & 7u)));
    value >>= 3;
  } while (value);
  return s;
}

std::uint32_t parse_octal(std::string_view text, std::string_view what) {
  require(!text.empty(), what, " is empty (expected octal digits such as 171)");
  require(text.size() <= 8, what, " '", text, "' is too long for a polynomial of K <= 9");
  std::uint32_t v = 0;
  for (char c : text) {
    require(c >= '0' && c <= '7', what, " '", text, "' is not octal (digits 0-7 expected)");
    v = v * 8 + static_cast<std::uint32_t>(c - '0');
  }
  return v;
}

conv_code::conv_code(int K, std::vector<std::uint32_t> polynomials)
    : conv_code(K, std::move(polynomials), std::nullopt) {}

conv_code conv_code::recursive_systematic(int K, std::vector<std::uint32_t> polynomials) {
  require(!polynomials.empty(), "a recursive systematic code needs its feedback polynomial first");
  const std::uint32_t feedback = polynomials[0];
  return conv_code(K, std::move(polynomials), feedback);
}

conv_code conv_code::parse(int K, std::string_view text, bool recursive) {
  std::vector<std::uint32_t> polys;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const auto field = text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    polys.push_back(parse_octal(field, cat("polynomial ", polys.size() + 1, " of '", text, "'")));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return recursive ? recursive_systematic(K, std::move(polys)) : conv_code(K, std::move(polys));
}

conv_code::conv_code(int K, std::vector<std::uint32_t> polynomials,
                     std::optional<std::uint32_t> feedback)
    : K_(K), polynomials_(std::move(polynomials)), feedback_(feedback) {
  require(K >= min_K && K <= max_K, "constraint length K = ", K, " is out of range (", min_K, "..",
          max_K, ": up to 256 states)");
  const int beta = static_cast<int>(polynomials_.size());
  require(beta >= min_beta && beta <= max_beta, "the code rate 1/beta needs beta = ", min_beta,
          "..", max_beta, " generator polynomials (got beta = ", beta, ")");
  std::uint32_t any = 0, all = ~0u;
  for (int b = 0; b < beta; ++b) {
    validate_polynomial(polynomials_[b], K, cat("generator polynomial ", b + 1));
    any |= polynomials_[b];
    all &= polynomials_[b];
  }
  const std::uint32_t msb = 1u << (K - 1);
  require(any & msb, "no generator polynomial taps the current input (bit K-1, octal ", octal(msb),
          " for K = ", K, "): the code is delayed, declare it with the smaller K");
  require(any & 1u, "no generator polynomial taps the oldest input (bit 0): the code's constraint ",
          "length is smaller than K = ", K);
  if (feedback_) {
    validate_polynomial(*feedback_, K, "the feedback polynomial");
    require(*feedback_ & msb, "the feedback polynomial (octal ", octal(*feedback_),
            ") must tap the current input (its MSB, octal ", octal(msb), " for K = ", K, ")");
  }

  // Trellis tables. The register r = (s << 1) | w holds the current bit at bit 0, so each octal
  // polynomial is reversed over K bits to become a mask on r.
  const unsigned S = states();
  label_.resize(2 * S);
  feedback_parity_.assign(S, 0);
  std::vector<std::uint32_t> masks(beta);
  for (int b = 0; b < beta; ++b) masks[b] = reverse_bits(polynomials_[b], K);
  const std::uint32_t feedback_mask = feedback_ ? reverse_bits(*feedback_, K) & ~1u : 0;
  for (unsigned s = 0; s < S; ++s) {
    feedback_parity_[s] = static_cast<std::uint8_t>(parity((s << 1) & feedback_mask));
    for (unsigned w = 0; w < 2; ++w) {
      const std::uint32_t r = (s << 1) | w;
      unsigned out = 0;
      for (int b = 0; b < beta; ++b) out |= parity(r & masks[b]) << b;
      label_[2 * s + w] = static_cast<std::uint8_t>(out);
    }
  }
}

bool conv_code::symmetric_butterflies() const {
  const std::uint32_t ends = (1u << (K_ - 1)) | 1u;
  for (std::uint32_t g : polynomials_)
    if ((g & ends) != ends) return false;
  return true;
}

std::string conv_code::to_string() const {
  std::string polys;
  for (std::size_t b = 0; b < polynomials_.size(); ++b) {
    if (b) polys += ',';
    polys += octal(polynomials_[b]);
  }
  if (!feedback_) return cat("K=", K_, " (", polys, ")");
  return cat("K=", K_, " RSC (", polys, "), feedback ", octal(*feedback_));
}

}  // namespace gpufec::conv
