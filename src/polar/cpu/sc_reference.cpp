// The SC reference decoder: recursive successive cancellation in the LLR domain, one codeword at a
// time, no shortcuts (every leaf is visited, frozen or not). It is the oracle of the fast SC path.
//
// A node of depth d covers n = N >> d consecutive u (and the same number of its partial codeword
// bits beta). With alpha its n LLRs (alpha_0 = the channel's):
//   left child:  alpha_L[i] = f(alpha[i], alpha[i + n/2])                          (check node)
//   right child: alpha_R[i] = alpha[i + n/2] + (beta_L[i] ? -alpha[i] : alpha[i])   (g)
//   beta[i] = beta_L[i] ^ beta_R[i], beta[i + n/2] = beta_R[i]                      (re-encoding)
// since x[0, n/2) = v_L ^ v_R and x[n/2, n) = v_R for the node's halves (polar_code.hpp). A leaf
// decides u_j = 0 when frozen, else 1 exactly when its LLR is < 0. f is the exact sum-product or
// min-sum (update_rules.hpp); g is one fp32 add of b and the (sign-flipped) a.
#include <vector>

#include "gpufec/polar/encoder.hpp"
#include "polar/cpu/grouped_engine.hpp"
#include "polar/model/update_rules.hpp"

namespace gpufec::polar::detail {

namespace {

struct sc_scratch {
  std::vector<float> alpha;     // depth d at offset 2N - 2(N >> d): N, N/2, .., 1 values
  std::vector<float> leaf_llr;  // N: the LLR each u_j was decided on
  std::vector<std::uint8_t> u, beta;
};

template <bool MinSum>
class sc_reference final : public grouped_engine<sc_scratch> {
 public:
  sc_reference(const polar_code& code, const decoder_options& options, int threads)
      : grouped_engine(code, options, threads, 1, reference_scratch_per_thread(code, options)) {
    scratch_.resize(static_cast<std::size_t>(threads));
    for (auto& s : scratch_) {
      s.alpha.resize(2 * code.N());
      s.leaf_llr.resize(code.N());
      s.u.resize(code.N());
      s.beta.resize(code.N());
    }
  }

 private:
  static float f(float a, float b) {
    if constexpr (MinSum)
      return f_min_sum(a, b, 1.0f);
    else
      return f_sum_product(a, b);
  }

  void node(sc_scratch& s, std::uint32_t depth, std::uint32_t offset) const {
    const std::uint32_t N = code_.N(), n = N >> depth;
    float* alpha = s.alpha.data() + (2 * N - 2 * n);
    if (n == 1) {
      s.leaf_llr[offset] = alpha[0];
      s.u[offset] = code_.frozen_mask()[offset] ? 0 : hard_llr(alpha[0]);
      s.beta[offset] = s.u[offset];
      return;
    }
    const std::uint32_t half = n / 2;
    float* child = alpha + n;  // depth + 1 starts right after depth's n values
    for (std::uint32_t i = 0; i < half; ++i) child[i] = f(alpha[i], alpha[i + half]);
    node(s, depth + 1, offset);
    for (std::uint32_t i = 0; i < half; ++i)
      child[i] = alpha[i + half] + (s.beta[offset + i] ? -alpha[i] : alpha[i]);
    node(s, depth + 1, offset + half);
    for (std::uint32_t i = 0; i < half; ++i) s.beta[offset + i] ^= s.beta[offset + half + i];
  }

  bool decode_group(const decode_request& r, std::size_t frame, std::size_t,
                    sc_scratch& s) const override {
    const std::uint32_t N = code_.N(), K = code_.K();
    const float* llr = r.llr + frame * N;
    for (std::uint32_t j = 0; j < N; ++j) s.alpha[j] = clamp_input(llr[j]);
    node(s, 0, 0);
    // beta at the root is x^ = u^ G: the systematic information bits are x^_A.
    const auto& bits = code_.systematic() ? s.beta : s.u;
    const auto& A = code_.info_positions();
    if (r.info_bits)
      for (std::uint32_t k = 0; k < K; ++k) r.info_bits[frame * K + k] = bits[A[k]];
    if (r.soft)
      for (std::uint32_t k = 0; k < K; ++k) r.soft[frame * r.soft_stride + k] = s.leaf_llr[A[k]];
    return true;
  }
};

}  // namespace

std::unique_ptr<polar_engine> make_sc_reference(const polar_code& code,
                                                const decoder_options& options, int threads) {
  if (options.update == update_rule::min_sum)
    return std::make_unique<sc_reference<true>>(code, options, threads);
  return std::make_unique<sc_reference<false>>(code, options, threads);
}

}  // namespace gpufec::polar::detail
