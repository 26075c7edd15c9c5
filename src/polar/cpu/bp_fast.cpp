// The fast BP decoder: the reference's schedule and butterflies (bp_reference.cpp) on W codewords
// at once, one per lane of a Highway vector; OpenMP spreads groups of W codewords over threads.
//
// Same results as the reference, lane by lane, in either schedule: the channel LLRs enter through
// the scalar rule's from_llr (so the LR rule's exp is libm's, as in the reference) and soft outputs
// leave through its to_llr; in between every operation is the reference's (simd_rules-inl.hpp), so
// min-sum, scaled min-sum and the LR rule are bit-exact and the LLR sum-product differs by the ulps
// of Highway's Exp/Log1p.
//
// Early stopping per codeword: a group runs until all its lanes passed the G-matrix check (or the
// last iteration); a lane's outputs and iteration count are written when it first passes, so what
// it reports is what the reference reports for that codeword, and the iterations the other lanes
// still need cost it nothing but time.
//
// Layout (floats, 64-byte aligned): L and R, (m + 1) N W each, value (s, j) of lane l at
// (s N + j) W + l; u^, x^ and G x^ as sign-bit vectors, N W each.

#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "polar/cpu/bp_fast.cpp"
#include "hwy/aligned_allocator.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "polar/cpu/grouped_engine.hpp"
#include "polar/cpu/simd_rules-inl.hpp"

#ifndef GPUFEC_POLAR_BP_FAST_TYPES
#define GPUFEC_POLAR_BP_FAST_TYPES
namespace gpufec::polar::detail {
// One group of W codewords: messages in, outputs written for lanes [0, active).
struct bp_group_args {
  const polar_code* code;
  const decoder_options* options;
  float *L, *R, *u_hat, *x_hat, *check;
  std::size_t active;
  std::size_t first_frame;
  const decode_request* request;
};
}  // namespace gpufec::polar::detail
#endif

HWY_BEFORE_NAMESPACE();
namespace gpufec::polar::detail::HWY_NAMESPACE {

template <class Rule>
class bp_group_decoder {
 public:
  bp_group_decoder(const bp_group_args& a, const Rule& rule)
      : a_(a), rule_(rule), N_(a.code->N()), m_(a.code->m()), W_(hn::Lanes(float_tag())) {}

  // Returns false when the request's stop ended it between iterations (outputs of lanes not yet
  // done unwritten).
  bool run() {
    const float_tag d;
    const auto& frozen = a_.code->frozen_mask();
    using scalar = typename Rule::scalar;
    const bool left_first = a_.options->schedule == bp_schedule::lr_rl;
    for (std::size_t j = 0; j < static_cast<std::size_t>(m_ + 1) * N_; ++j)
      hn::Store(hn::Set(d, scalar::unknown), d, a_.R + j * W_);
    // Left first, the first sweep reads L_1 .. L_m: all but the channel start unknown (right
    // first, the first sweep writes them before any read).
    if (left_first)
      for (std::size_t j = 0; j < static_cast<std::size_t>(m_) * N_; ++j)
        hn::Store(hn::Set(d, scalar::unknown), d, a_.L + j * W_);
    for (std::size_t j = 0; j < N_; ++j)
      if (frozen[j]) hn::Store(hn::Set(d, scalar::frozen), d, a_.R + j * W_);
    std::uint32_t done = 0;  // bit l: lane l's outputs are written
    for (std::size_t l = a_.active; l < W_; ++l) done |= 1u << l;
    const std::uint32_t all = W_ >= 32 ? ~0u : (1u << W_) - 1;
    const int iterations = a_.options->iterations;
    for (int it = 1; it <= iterations; ++it) {
      if (a_.request->stop_requested()) return false;
      if (left_first) {
        sweep_left_to_right();
        sweep_right_to_left();
      } else {
        sweep_right_to_left();
        sweep_left_to_right();
      }
      if (!a_.options->early_stop || it == iterations) continue;
      const std::uint32_t passed = decide_and_check() & ~done;
      for (std::size_t l = 0; l < W_; ++l)
        if (passed >> l & 1) write_lane(l, it, a_.x_hat);  // converged: x^ = u^ G
      done |= passed;
      if (done == all) return true;
    }
    decide_and_check();
    // Systematic lanes that did not pass report x^_A (left first) or (u^ G)_A: transform u^ once.
    const float* systematic_x = left_first ? a_.x_hat : a_.check;
    if (a_.code->systematic() && !left_first) {
      std::memcpy(a_.check, a_.u_hat, N_ * W_ * sizeof(float));
      transform(a_.check);
    }
    for (std::size_t l = 0; l < W_; ++l)
      if (!(done >> l & 1)) write_lane(l, iterations, systematic_x);
    return true;
  }

 private:
  void sweep_right_to_left() {
    const float_tag d;
    for (std::uint32_t s = m_; s-- > 0;) {
      const std::size_t h = std::size_t{1} << s;
      float* Ls = a_.L + s * N_ * W_;
      const float* Ln = a_.L + (s + 1) * N_ * W_;
      const float* Rs = a_.R + s * N_ * W_;
      for (std::size_t block = 0; block < N_; block += 2 * h)
        for (std::size_t j = block; j < block + h; ++j) {
          const std::size_t top = j * W_, bottom = (j + h) * W_;
          const float_vec ln_top = hn::Load(d, Ln + top), ln_bottom = hn::Load(d, Ln + bottom);
          const float_vec rs_top = hn::Load(d, Rs + top), rs_bottom = hn::Load(d, Rs + bottom);
          hn::Store(rule_.saturate(rule_.check(ln_top, rule_.variable(ln_bottom, rs_bottom))), d,
                    Ls + top);
          hn::Store(rule_.saturate(rule_.variable(rule_.check(ln_top, rs_top), ln_bottom)), d,
                    Ls + bottom);
        }
    }
  }

  void sweep_left_to_right() {
    const float_tag d;
    for (std::uint32_t s = 0; s < m_; ++s) {
      const std::size_t h = std::size_t{1} << s;
      const float* Ln = a_.L + (s + 1) * N_ * W_;
      const float* Rs = a_.R + s * N_ * W_;
      float* Rn = a_.R + (s + 1) * N_ * W_;
      for (std::size_t block = 0; block < N_; block += 2 * h)
        for (std::size_t j = block; j < block + h; ++j) {
          const std::size_t top = j * W_, bottom = (j + h) * W_;
          const float_vec ln_top = hn::Load(d, Ln + top), ln_bottom = hn::Load(d, Ln + bottom);
          const float_vec rs_top = hn::Load(d, Rs + top), rs_bottom = hn::Load(d, Rs + bottom);
          hn::Store(rule_.saturate(rule_.check(rs_top, rule_.variable(ln_bottom, rs_bottom))), d,
                    Rn + top);
          hn::Store(rule_.saturate(rule_.variable(rule_.check(rs_top, ln_top), rs_bottom)), d,
                    Rn + bottom);
        }
    }
  }

  // In place: v <- v G_N on sign-bit vectors.
  void transform(float* v) const {
    const float_tag d;
    for (std::size_t h = 1; h < N_; h <<= 1)
      for (std::size_t block = 0; block < N_; block += 2 * h)
        for (std::size_t j = block; j < block + h; ++j)
          hn::Store(hn::Xor(hn::Load(d, v + j * W_), hn::Load(d, v + (j + h) * W_)), d, v + j * W_);
  }

  // u^ and x^ from the messages; returns bit l set when lane l has u^ G_N == x^, checked as
  // u^ == x^ G_N in the `check` buffer (x^ itself is kept: it is the converged lanes' x^).
  std::uint32_t decide_and_check() {
    const float_tag d;
    const auto& frozen = a_.code->frozen_mask();
    const float* L0 = a_.L;
    const float* R0 = a_.R;
    const float* Lm = a_.L + m_ * N_ * W_;
    const float* Rm = a_.R + m_ * N_ * W_;
    for (std::size_t j = 0; j < N_; ++j) {
      const std::size_t at = j * W_;
      const float_vec u =
          frozen[j]
              ? hn::Zero(d)
              : decision_bits(
                    d, rule_.hard(rule_.variable(hn::Load(d, L0 + at), hn::Load(d, R0 + at))));
      hn::Store(u, d, a_.u_hat + at);
      const float_vec x =
          decision_bits(d, rule_.hard(rule_.variable(hn::Load(d, Lm + at), hn::Load(d, Rm + at))));
      hn::Store(x, d, a_.x_hat + at);
      hn::Store(x, d, a_.check + at);
    }
    transform(a_.check);
    float_vec differ = hn::Zero(d);
    for (std::size_t j = 0; j < N_; ++j)
      differ =
          hn::Or(differ, hn::Xor(hn::Load(d, a_.check + j * W_), hn::Load(d, a_.u_hat + j * W_)));
    alignas(64) float lanes[64] = {};
    hn::Store(differ, d, lanes);
    std::uint32_t passed = 0;
    for (std::size_t l = 0; l < W_; ++l)
      if (bits_of(lanes[l]) == 0) passed |= 1u << l;
    return passed;
  }

  // Outputs of lane l after `it` iterations; `systematic_x` holds u^ G_N (sign bits).
  void write_lane(std::size_t l, int it, const float* systematic_x) const {
    const decode_request& r = *a_.request;
    const std::size_t frame = a_.first_frame + l;
    if (l >= a_.active) return;
    const std::size_t N = N_, K = a_.code->K();
    const auto& A = a_.code->info_positions();
    using scalar = typename Rule::scalar;
    if (r.iterations) r.iterations[frame] = static_cast<std::uint32_t>(it);
    if (r.info_bits) {
      const float* bits = a_.code->systematic() ? systematic_x : a_.u_hat;
      for (std::size_t k = 0; k < K; ++k)
        r.info_bits[frame * K + k] = bits_of(bits[A[k] * W_ + l]) >> 31;
    }
    if (r.soft) {
      float* out = r.soft + frame * r.soft_stride;
      const bool codeword = r.soft_stride == N;
      const std::size_t column = codeword || a_.code->systematic() ? m_ : 0;
      const float* L = a_.L + column * N * W_;
      const float* R = a_.R + column * N * W_;
      auto posterior = [&](std::size_t j) {
        return scalar::to_llr(scalar::variable(L[j * W_ + l], R[j * W_ + l]));
      };
      if (codeword)
        for (std::size_t j = 0; j < N; ++j) out[j] = posterior(j);
      else
        for (std::size_t k = 0; k < K; ++k) out[k] = posterior(A[k]);
    }
  }

  const bp_group_args& a_;
  Rule rule_;
  std::size_t N_;
  std::uint32_t m_;
  std::size_t W_;
};

bool bp_group(const bp_group_args& a) {
  switch (a.options->update) {
    case update_rule::lr_sum_product:
      return bp_group_decoder<simd_lr_sum_product>(a, simd_lr_sum_product(1.0f)).run();
    case update_rule::sum_product:
      return bp_group_decoder<simd_sum_product>(a, simd_sum_product(1.0f)).run();
    case update_rule::min_sum:
      return bp_group_decoder<simd_min_sum>(a, simd_min_sum(1.0f)).run();
    case update_rule::scaled_min_sum:
      return bp_group_decoder<simd_min_sum>(a, simd_min_sum(a.options->scale)).run();
  }
  return true;
}

}  // namespace gpufec::polar::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpufec::polar::detail {

HWY_EXPORT(bp_group);

namespace {

// Scalar from_llr of the rule, so the group starts from the reference's messages bit for bit.
float message_from_llr(update_rule rule, float llr) {
  switch (rule) {
    case update_rule::lr_sum_product:
      return lr_sum_product_rule::from_llr(llr);
    case update_rule::sum_product:
      return sum_product_rule::from_llr(llr);
    default:
      return min_sum_rule::from_llr(llr);
  }
}

using aligned_floats = hwy::AlignedFreeUniquePtr<float[]>;

class bp_fast final : public grouped_engine<aligned_floats> {
 public:
  bp_fast(const polar_code& code, const decoder_options& options, int threads)
      : grouped_engine(code, options, threads, fast_simd_target().lanes,
                       fast_scratch_per_thread(code, options, fast_simd_target().lanes)) {
    for (int t = 0; t < threads; ++t)
      scratch_.push_back(hwy::AllocateAligned<float>(bytes_per_thread_ / sizeof(float)));
  }

 private:
  bool decode_group(const decode_request& r, std::size_t first, std::size_t active,
                    aligned_floats& scratch) const override {
    const std::size_t W = group_, N = code_.N(), cells = (code_.m() + 1) * N * W;
    float* base = scratch.get();
    bp_group_args a{&code_,
                    &options_,
                    base,
                    base + cells,
                    base + 2 * cells,
                    base + 2 * cells + N * W,
                    base + 2 * cells + 2 * N * W,
                    active,
                    first,
                    &r};
    interleave_frames(r, first, active, W, N, a.L + code_.m() * N * W,
                      [rule = options_.update](float llr) { return message_from_llr(rule, llr); });
    return HWY_DYNAMIC_DISPATCH(bp_group)(a);
  }
};

}  // namespace

std::unique_ptr<polar_engine> make_bp_fast(const polar_code& code, const decoder_options& options,
                                           int threads) {
  return std::make_unique<bp_fast>(code, options, threads);
}

}  // namespace gpufec::polar::detail
#endif  // HWY_ONCE
