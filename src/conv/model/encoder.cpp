// encoder: frame sizes and validation, encoding with termination and puncturing, and the
// tail-biting start state (also for recursive codes).
#include "gpufec/conv/encoder.hpp"

#include <algorithm>

#include "gpufec/common/bits.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::conv {
namespace {

// The state after `steps` zero inputs' worth of register bits that keep a recursive code's
// feedback fed (u = 0): x -> A x, tabulated and raised to the power `steps` by squaring.
std::vector<std::uint16_t> zero_input_power(const conv_code& code, std::size_t steps) {
  const unsigned S = code.states();
  std::vector<std::uint16_t> step(S), power(S), tmp(S);
  for (unsigned s = 0; s < S; ++s) {
    step[s] = static_cast<std::uint16_t>(code.next_state(s, code.register_bit(s, 0)));
    power[s] = static_cast<std::uint16_t>(s);
  }
  for (; steps; steps >>= 1) {
    if (steps & 1) {
      for (unsigned s = 0; s < S; ++s) tmp[s] = step[power[s]];
      power.swap(tmp);
    }
    for (unsigned s = 0; s < S; ++s) tmp[s] = step[step[s]];
    step.swap(tmp);
  }
  return power;
}

// The low 32 bits of x at the even bit positions (bit i to bit 2i), the odd ones zero.
std::uint64_t spread_bits(std::uint64_t x) {
  x &= 0xFFFFFFFFull;
  x = (x | x << 16) & 0x0000FFFF0000FFFFull;
  x = (x | x << 8) & 0x00FF00FF00FF00FFull;
  x = (x | x << 4) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | x << 2) & 0x3333333333333333ull;
  return (x | x << 1) & 0x5555555555555555ull;
}

}  // namespace

frame_shape make_frame_shape(const conv_code& code, const puncture_pattern& pattern,
                             std::size_t info_bits, termination term) {
  require(pattern.beta() == code.beta(), "the puncture pattern ", pattern.to_string(), " has ",
          pattern.beta(), " rows but the code has beta = ", code.beta(), " output streams");
  require(info_bits >= 1, "a frame needs at least one information bit (frame_bits = 0)");
  const auto memory = static_cast<std::size_t>(code.memory());
  if (term == termination::zero_tail)
    require(info_bits >= memory, "a zero-tail frame needs at least K-1 = ", memory,
            " information bits (frame_bits = ", info_bits, "): its tail of K-1 stages would ",
            "outweigh the data; use the truncated termination for shorter frames");
  if (term == termination::tail_biting)
    require(info_bits >= memory, "a tail-biting frame needs at least K-1 = ", memory,
            " information bits (frame_bits = ", info_bits,
            "): its start state is made of its last K-1 bits");
  frame_shape s;
  s.info_bits = info_bits;
  s.stages = info_bits + (term == termination::zero_tail ? memory : 0);
  s.coded_bits = pattern.sent_before(s.stages);
  return s;
}

encoder::encoder(const conv_code& code, const puncture_pattern& pattern, std::size_t info_bits,
                 termination term)
    : code_(code),
      pattern_(pattern),
      term_(term),
      shape_(make_frame_shape(code, pattern, info_bits, term)) {
  if (!code_.recursive()) {
    const int K = code_.K();
    for (const std::uint32_t g : code_.polynomials()) {
      std::uint32_t taps = 0;  // the polynomial's MSB taps the current input
      for (int j = 0; j < K; ++j) taps |= ((g >> (K - 1 - j)) & 1u) << j;
      taps_.push_back(taps);
    }
    for (int p = 0; p < pattern_.period(); ++p) {
      std::uint8_t sends = 0;
      for (int b = 0; b < code_.beta(); ++b)
        sends |= static_cast<std::uint8_t>(pattern_.sends(b, p) << b);
      phase_sends_.push_back(sends);
    }
  }
  if (term_ != termination::tail_biting) return;
  // (A^N + I) x = end(0) has one solution for every end(0) iff x -> A^N x XOR x is a bijection.
  const auto power = zero_input_power(code_, info_bits);
  const unsigned S = code_.states();
  tailbiting_start_.assign(S, 0xFFFF);
  for (unsigned x = 0; x < S; ++x) {
    const unsigned y = power[x] ^ x;
    require(tailbiting_start_[y] == 0xFFFF, "tail-biting is impossible for ", code_.to_string(),
            " with frame_bits = ", info_bits, ": the frame length is a multiple of the feedback's ",
            "period, so the start state that equals the end state is not unique");
    tailbiting_start_[y] = static_cast<std::uint16_t>(x);
  }
}

unsigned encoder::start_state(std::span<const std::uint8_t> info) const {
  if (term_ != termination::tail_biting) return 0;
  unsigned s = 0;
  for (std::uint8_t u : info) s = code_.next_state(s, code_.register_bit(s, u & 1u));
  return tailbiting_start_[s];
}

void encoder::encode(std::span<const std::uint8_t> info, std::span<std::uint8_t> coded) const {
  require(info.size() == shape_.info_bits, "encode: ", info.size(),
          " information bits given, the frame holds ", shape_.info_bits);
  require(coded.size() == shape_.coded_bits, "encode: room for ", coded.size(),
          " coded bits, the frame sends ", shape_.coded_bits);
  if (code_.recursive())
    encode_stages(info, coded);
  else
    encode_words(info, coded);
}

void encoder::encode_stages(std::span<const std::uint8_t> info,
                            std::span<std::uint8_t> coded) const {
  const int beta = code_.beta();
  unsigned s = start_state(info);
  std::size_t k = 0;
  for (std::size_t t = 0; t < shape_.stages; ++t) {
    // Tail stages feed the register bit 0 (for a recursive code the input cancels the feedback).
    const unsigned w = t < shape_.info_bits ? code_.register_bit(s, info[t] & 1u) : 0u;
    const unsigned label = code_.label(s, w);
    for (int b = 0; b < beta; ++b)
      if (pattern_.sends(b, t)) coded[k++] = static_cast<std::uint8_t>((label >> b) & 1u);
    s = code_.next_state(s, w);
  }
}

void encoder::encode_words(std::span<const std::uint8_t> info,
                           std::span<std::uint8_t> coded) const {
  const int beta = code_.beta(), memory = code_.memory();
  const std::size_t stages = shape_.stages, N = shape_.info_bits, period = phase_sends_.size();
  // The inputs before stage 0, bit 63 - (j - 1) for the input j stages back: the start state's
  // bit j - 1 (zero but for tail-biting frames).
  const unsigned start = start_state(info);
  std::uint64_t previous = 0;
  for (int j = 1; j <= memory; ++j)
    previous |= static_cast<std::uint64_t>((start >> (j - 1)) & 1u) << (64 - j);
  const bool all_sent = !pattern_.punctures();
  std::size_t k = 0, phase = 0;
  for (std::size_t t0 = 0; t0 < stages; t0 += 64) {
    const std::size_t n = std::min<std::size_t>(64, stages - t0);
    const std::size_t inputs = t0 < N ? std::min<std::size_t>(n, N - t0) : 0;  // the rest: tail
    std::uint64_t word = 0;  // bit i: the input of stage t0 + i
    if (inputs == 64)
      word = bit_bytes_to_word(&info[t0]);
    else
      for (std::size_t i = 0; i < inputs; ++i)
        word |= static_cast<std::uint64_t>(info[t0 + i] & 1u) << i;
    std::uint64_t out[conv_code::max_beta];
    for (int b = 0; b < beta; ++b) {
      std::uint64_t o = (taps_[b] & 1u) ? word : 0;
      for (int j = 1; j <= memory; ++j)
        if ((taps_[b] >> j) & 1u) o ^= (word << j) | (previous >> (64 - j));
      out[b] = o;
    }
    previous = word;
    if (all_sent && beta == 2 && n == 64) {  // rate 1/2: the streams' bits interleaved, by table
      word_to_bit_bytes(spread_bits(out[0]) | spread_bits(out[1]) << 1, &coded[k]);
      word_to_bit_bytes(spread_bits(out[0] >> 32) | spread_bits(out[1] >> 32) << 1, &coded[k + 64]);
      k += 128;
      continue;
    }
    if (all_sent) {
      for (std::size_t i = 0; i < n; ++i)
        for (int b = 0; b < beta; ++b) coded[k++] = static_cast<std::uint8_t>((out[b] >> i) & 1u);
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned sends = phase_sends_[phase];
      if (++phase == period) phase = 0;
      for (int b = 0; b < beta; ++b)
        if ((sends >> b) & 1u) coded[k++] = static_cast<std::uint8_t>((out[b] >> i) & 1u);
    }
  }
}

void encoder::encode(batch_view<std::uint8_t> info, batch_span<std::uint8_t> coded) const {
  require(info.is_uniform() && !info.on_device() && !coded.on_device(),
          "encode: batches must be uniform host batches");
  require(info.stride == shape_.info_bits, "encode: the batch's frames hold ", info.stride,
          " bits, the frame holds ", shape_.info_bits);
  require(coded.stride == shape_.coded_bits, "encode: the output frames hold ", coded.stride,
          " bits, a frame sends ", shape_.coded_bits);
  require(coded.frames() == info.frames(), "encode: ", info.frames(), " frames in but room for ",
          coded.frames());
  const auto frames = static_cast<std::ptrdiff_t>(info.frames());
#pragma omp parallel for schedule(static) if (frames > 1)
  for (std::ptrdiff_t f = 0; f < frames; ++f)
    encode(info.frame(static_cast<std::size_t>(f)), coded.frame(static_cast<std::size_t>(f)));
}

}  // namespace gpufec::conv

namespace gpufec::conv {

bool catastrophic(const conv_code& code, const puncture_pattern& pattern) {
  // Nodes (state, phase in the pattern); an edge for each branch whose sent bits are all 0.
  const unsigned S = code.states();
  const auto P = static_cast<unsigned>(pattern.period());
  const auto silent = [&](unsigned s, unsigned p, unsigned w) {
    if (s == 0 && w == 0) return false;  // the all-zero path itself
    const unsigned label = code.label(s, w);
    for (int b = 0; b < code.beta(); ++b)
      if (pattern.sends(b, p) && ((label >> b) & 1u)) return false;
    return true;
  };
  // Depth-first search for a cycle: 0 = unseen, 1 = on the current path, 2 = done.
  std::vector<std::uint8_t> color(static_cast<std::size_t>(S) * P, 0);
  std::vector<std::pair<unsigned, unsigned>> stack;  // (node, next branch to try)
  for (unsigned root = 0; root < S * P; ++root) {
    if (color[root]) continue;
    stack.push_back({root, 0});
    color[root] = 1;
    while (!stack.empty()) {
      auto& [node, w] = stack.back();
      if (w == 2) {
        color[node] = 2;
        stack.pop_back();
        continue;
      }
      const unsigned s = node / P, p = node % P, branch = w++;
      if (!silent(s, p, branch)) continue;
      const unsigned next = code.next_state(s, branch) * P + (p + 1) % P;
      if (color[next] == 1) return true;
      if (color[next] == 0) {
        color[next] = 1;
        stack.push_back({next, 0});
      }
    }
  }
  return false;
}

}  // namespace gpufec::conv
