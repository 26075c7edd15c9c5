// The BP reference decoder: belief propagation on the m-stage factor graph of x = u G_N, one
// codeword at a time, in the schedule and arithmetic that every other BP path repeats.
//
// Graph: columns s = 0 (u) .. m (x); between columns s and s+1, N/2 butterflies of span h = 2^s
// join nodes j and j + h (bit s of j clear) with v_(s+1)[j] = v_s[j] ^ v_s[j+h] and
// v_(s+1)[j+h] = v_s[j+h]. L_s[j] is the message into column s from the right, R_s[j] the one
// from the left. With f the rule's check, (+) its variable combination and sat its bound:
//   L_s[j]       = sat(f(L_(s+1)[j], L_(s+1)[j+h] (+) R_s[j+h]))
//   L_s[j+h]     = sat(f(L_(s+1)[j], R_s[j]) (+) L_(s+1)[j+h])
//   R_(s+1)[j]   = sat(f(R_s[j], L_(s+1)[j+h] (+) R_s[j+h]))
//   R_(s+1)[j+h] = sat(f(R_s[j], L_(s+1)[j]) (+) R_s[j+h])
// Start: L_m = the channel (from_llr), R_0[j] = frozen ? rule.frozen : unknown, all else unknown.
// One iteration = the left-to-right sweep s = 0 up to m-1 (every R_(s+1)), then the right-to-left
// sweep s = m-1 down to 0 (every L_s) with the lr_rl schedule; the two in the other order with
// rl_lr. Within a stage the N/2 butterflies are independent (they write one column and read
// others), so their order is free: a GPU runs them in parallel.
// Decisions: u^_j = 0 if frozen, else hard(L_0[j] (+) R_0[j]); x^_j = hard(L_m[j] (+) R_m[j]).
// Early stopping (G-matrix): after an iteration, stop when u^ G_N == x^. Outputs: u^_A, or for a
// systematic code x^_A (lr_rl) or (u^ G_N)_A (rl_lr).
#include <vector>

#include "gpufec/polar/encoder.hpp"
#include "polar/cpu/grouped_engine.hpp"
#include "polar/model/update_rules.hpp"

namespace gpufec::polar::detail {

namespace {

struct bp_scratch {
  std::vector<float> L, R;  // (m + 1) * N each, column s at s * N
  std::vector<std::uint8_t> u_hat, x_hat;
};

template <class Rule>
class bp_reference final : public grouped_engine<bp_scratch> {
 public:
  bp_reference(const polar_code& code, const decoder_options& options, int threads, Rule rule)
      : grouped_engine(code, options, threads, 1, reference_scratch_per_thread(code, options)),
        rule_(rule) {
    scratch_.resize(static_cast<std::size_t>(threads));
    const std::size_t cells = static_cast<std::size_t>(code.m() + 1) * code.N();
    for (auto& s : scratch_) {
      s.L.resize(cells);
      s.R.resize(cells);
      s.u_hat.resize(code.N());
      s.x_hat.resize(code.N());
    }
  }

 private:
  void sweep_right_to_left(float* L, const float* R) const {
    const std::uint32_t N = code_.N();
    for (std::uint32_t s = code_.m(); s-- > 0;) {
      const std::uint32_t h = 1u << s;
      float* Ls = L + s * N;
      const float* Ln = L + (s + 1) * N;
      const float* Rs = R + s * N;
      for (std::uint32_t block = 0; block < N; block += 2 * h)
        for (std::uint32_t j = block; j < block + h; ++j) {
          Ls[j] = rule_.saturate(rule_.check(Ln[j], rule_.variable(Ln[j + h], Rs[j + h])));
          Ls[j + h] = rule_.saturate(rule_.variable(rule_.check(Ln[j], Rs[j]), Ln[j + h]));
        }
    }
  }

  void sweep_left_to_right(const float* L, float* R) const {
    const std::uint32_t N = code_.N();
    for (std::uint32_t s = 0; s < code_.m(); ++s) {
      const std::uint32_t h = 1u << s;
      const float* Ln = L + (s + 1) * N;
      const float* Rs = R + s * N;
      float* Rn = R + (s + 1) * N;
      for (std::uint32_t block = 0; block < N; block += 2 * h)
        for (std::uint32_t j = block; j < block + h; ++j) {
          Rn[j] = rule_.saturate(rule_.check(Rs[j], rule_.variable(Ln[j + h], Rs[j + h])));
          Rn[j + h] = rule_.saturate(rule_.variable(rule_.check(Rs[j], Ln[j]), Rs[j + h]));
        }
    }
  }

  // u^ and x^ from the present messages; returns whether u^ G_N == x^.
  bool decide(bp_scratch& s) const {
    const std::uint32_t N = code_.N(), m = code_.m();
    const auto& frozen = code_.frozen_mask();
    for (std::uint32_t j = 0; j < N; ++j) {
      s.u_hat[j] = frozen[j] ? 0 : rule_.hard(rule_.variable(s.L[j], s.R[j]));
      s.x_hat[j] = rule_.hard(rule_.variable(s.L[m * N + j], s.R[m * N + j]));
    }
    return codeword_check(s);
  }

  // u^ G_N == x^  <=>  u^ == x^ G_N (G_N is an involution): transform x^ in place, compare, and
  // transform back, so no buffer beyond the two decision vectors is needed.
  bool codeword_check(bp_scratch& s) const {
    polar_transform(s.x_hat);
    bool equal = true;
    for (std::uint32_t j = 0; j < code_.N(); ++j) equal = equal && s.x_hat[j] == s.u_hat[j];
    polar_transform(s.x_hat);
    return equal;
  }

  // Returns false when the request's stop ended it between iterations (its outputs unwritten).
  bool decode_group(const decode_request& r, std::size_t frame, std::size_t,
                    bp_scratch& s) const override {
    const std::uint32_t N = code_.N(), K = code_.K(), m = code_.m();
    const float* llr = r.llr + frame * N;
    std::fill(s.L.begin(), s.L.end(), Rule::unknown);
    std::fill(s.R.begin(), s.R.end(), Rule::unknown);
    for (std::uint32_t j = 0; j < N; ++j) {
      s.L[m * N + j] = rule_.from_llr(llr[j]);
      if (code_.frozen_mask()[j]) s.R[j] = Rule::frozen;
    }
    const int max_iterations = options_.iterations;
    int used = max_iterations;
    const bool left_first = options_.schedule == bp_schedule::lr_rl;
    for (int it = 1; it <= max_iterations; ++it) {
      if (r.stop_requested()) return false;
      if (left_first) {
        sweep_left_to_right(s.L.data(), s.R.data());
        sweep_right_to_left(s.L.data(), s.R.data());
      } else {
        sweep_right_to_left(s.L.data(), s.R.data());
        sweep_left_to_right(s.L.data(), s.R.data());
      }
      if (options_.early_stop && it < max_iterations && decide(s)) {
        used = it;
        break;
      }
    }
    if (used == max_iterations) decide(s);
    if (r.iterations) r.iterations[frame] = static_cast<std::uint32_t>(used);
    const auto& A = code_.info_positions();
    if (r.info_bits) {
      const std::vector<std::uint8_t>* bits = &s.u_hat;
      if (code_.systematic() && left_first) bits = &s.x_hat;            // x^_A
      if (code_.systematic() && !left_first) polar_transform(s.u_hat);  // (u^ G)_A
      for (std::uint32_t k = 0; k < K; ++k) r.info_bits[frame * K + k] = (*bits)[A[k]];
    }
    if (r.soft) {
      float* out = r.soft + frame * r.soft_stride;
      const bool codeword = r.soft_stride == N;
      const std::uint32_t column = codeword || code_.systematic() ? m : 0;
      auto posterior = [&](std::uint32_t j) {
        return rule_.to_llr(rule_.variable(s.L[column * N + j], s.R[column * N + j]));
      };
      if (codeword)
        for (std::uint32_t j = 0; j < N; ++j) out[j] = posterior(j);
      else
        for (std::uint32_t k = 0; k < K; ++k) out[k] = posterior(A[k]);
    }
    return true;
  }

  Rule rule_;
};

}  // namespace

std::unique_ptr<polar_engine> make_bp_reference(const polar_code& code,
                                                const decoder_options& options, int threads) {
  switch (options.update) {
    case update_rule::lr_sum_product:
      return std::make_unique<bp_reference<lr_sum_product_rule>>(code, options, threads,
                                                                 lr_sum_product_rule{});
    case update_rule::sum_product:
      return std::make_unique<bp_reference<sum_product_rule>>(code, options, threads,
                                                              sum_product_rule{});
    case update_rule::min_sum:
      return std::make_unique<bp_reference<min_sum_rule>>(code, options, threads, min_sum_rule{});
    case update_rule::scaled_min_sum:
      return std::make_unique<bp_reference<min_sum_rule>>(code, options, threads,
                                                          min_sum_rule{options.scale});
  }
  return nullptr;
}

}  // namespace gpufec::polar::detail
