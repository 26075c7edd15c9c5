// The reference Viterbi recursion and traceback, shared by the reference frame decoder, the exact
// tail-biting decoder and the stream decoder's reference mode. Written for clarity: one state at
// a time, one byte per survivor decision, labels from the code's trellis table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "gpufec/common/stop_token.hpp"
#include "gpufec/conv/code.hpp"

namespace gpufec::conv::detail {

// Every decoder of a long frame looks at its stop_token once per this many stages: a few
// milliseconds of work at the slowest (the reference), nothing measurable at the fastest.
inline constexpr std::size_t kStopCheckStages = std::size_t{1} << 15;

// delta[o] = sum_b (1 - 2 o_b) L_b for every label o of beta bits (Eq. 2 of the paper), summed in
// stream order.
template <class Real>
void branch_metrics(const double* llr, int beta, Real* delta) {
  for (unsigned o = 0; o < (1u << beta); ++o) {
    Real d = 0;
    for (int b = 0; b < beta; ++b) {
      const auto l = static_cast<Real>(llr[b]);
      d += ((o >> b) & 1u) ? -l : l;
    }
    delta[o] = d;
  }
}

template <class Real>
constexpr Real excluded_metric() {
  return -std::numeric_limits<Real>::infinity();
}

// Runs `stages` stages (beta LLRs each) from the path metrics in `metric` (S values, updated),
// writing one decision per new state and stage: 1 when the predecessor (j >> 1) + S/2 (oldest bit
// 1) is strictly better than j >> 1. After each stage the best metric is subtracted from all, so
// float metrics stay small; with integer LLRs every value is an exact integer either way. Throws
// gpufec::stopped when `stop` is requested.
template <class Real>
void viterbi_forward(const conv_code& code, const double* llr, std::size_t stages, Real* metric,
                     std::vector<Real>& next, std::uint8_t* decisions,
                     const stop_token& stop = {}) {
  const unsigned S = code.states(), half = S / 2;
  const int beta = code.beta();
  Real delta[16];
  next.resize(S);
  for (std::size_t t = 0; t < stages; ++t) {
    // A long frame stops within a fraction of a second of a request.
    if (t % kStopCheckStages == 0 && stop.requested()) throw stopped();
    branch_metrics(llr + t * static_cast<std::size_t>(beta), beta, delta);
    std::uint8_t* decided = decisions + t * S;
    Real best = excluded_metric<Real>();
    for (unsigned j = 0; j < S; ++j) {
      const unsigned s0 = j >> 1, s1 = s0 | half, w = j & 1u;
      const Real m0 = metric[s0] + delta[code.label(s0, w)];
      const Real m1 = metric[s1] + delta[code.label(s1, w)];
      decided[j] = m1 > m0 ? 1 : 0;
      next[j] = m1 > m0 ? m1 : m0;
      if (next[j] > best) best = next[j];
    }
    for (unsigned j = 0; j < S; ++j) metric[j] = next[j] - best;
  }
}

// The state with the largest metric, the lowest-numbered among equals.
template <class Real>
unsigned best_state(const Real* metric, unsigned S) {
  unsigned best = 0;
  for (unsigned j = 1; j < S; ++j)
    if (metric[j] > metric[best]) best = j;
  return best;
}

// Traces back from `end_state` after stage `stages` - 1 and writes the input bits of stages
// [first, first + count) to bits[0, count). Returns the state before stage 0 (the path's start).
inline unsigned traceback(const conv_code& code, const std::uint8_t* decisions, std::size_t stages,
                          unsigned end_state, std::size_t first, std::size_t count,
                          std::uint8_t* bits) {
  const unsigned S = code.states(), half = S / 2;
  unsigned state = end_state;
  for (std::size_t t = stages; t-- > 0;) {
    const unsigned d = decisions[t * S + state];
    const unsigned predecessor = (state >> 1) | (d ? half : 0u);
    if (t >= first && t < first + count)
      bits[t - first] = static_cast<std::uint8_t>(code.input_bit(predecessor, state & 1u));
    state = predecessor;
  }
  return state;
}

}  // namespace gpufec::conv::detail
