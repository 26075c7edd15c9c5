// The host side of the encoder's units (encoder_units.hpp): the description and tables that the
// CUDA encoder copies to the device once per plan.
#include "conv/model/encoder_units.hpp"

#include <bit>

namespace gpufec::conv::detail {

encoder_units make_encoder_units(const encoder& e) {
  const conv_code& code = e.code();
  encoder_units u;
  const int K = code.K();
  for (int b = 0; b < code.beta(); ++b) {
    const std::uint32_t g = code.polynomials()[static_cast<std::size_t>(b)];
    for (int j = 0; j < K; ++j) u.taps[b] |= ((g >> (K - 1 - j)) & 1u) << j;  // MSB: current bit
  }
  u.beta = static_cast<unsigned>(code.beta());
  u.memory = static_cast<unsigned>(code.memory());
  u.period = static_cast<unsigned>(e.pattern().period());
  u.sent_per_period = static_cast<unsigned>(e.pattern().sent_per_period());
  u.info_bits = e.shape().info_bits;
  u.stages = e.shape().stages;
  u.coded_bits = e.shape().coded_bits;
  u.recursive = code.recursive();
  u.tail_biting = e.term() == termination::tail_biting;
  return u;
}

std::vector<std::uint32_t> puncture_phases(const encoder& e) {
  std::vector<std::uint32_t> phases;
  std::uint32_t before = 0;
  for (int p = 0; p < e.pattern().period(); ++p) {
    std::uint32_t sends = 0;
    for (int b = 0; b < e.code().beta(); ++b)
      sends |= static_cast<std::uint32_t>(e.pattern().sends(b, static_cast<std::size_t>(p))) << b;
    phases.push_back(before << 4 | sends);
    before += static_cast<std::uint32_t>(std::popcount(sends));
  }
  return phases;
}

std::vector<std::uint32_t> puncture_slots(const encoder& e) {
  std::vector<std::uint32_t> slots;
  for (int p = 0; p < e.pattern().period(); ++p)
    for (int b = 0; b < e.code().beta(); ++b)
      if (e.pattern().sends(b, static_cast<std::size_t>(p)))
        slots.push_back(static_cast<std::uint32_t>(p) << 4 | static_cast<std::uint32_t>(b));
  return slots;
}

std::vector<std::uint8_t> feedback_parities(const encoder& e) {
  std::vector<std::uint8_t> parity(e.code().states());
  for (unsigned s = 0; s < parity.size(); ++s)
    parity[s] = static_cast<std::uint8_t>(e.code().register_bit(s, 0));
  return parity;
}

}  // namespace gpufec::conv::detail
