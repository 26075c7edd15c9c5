// The reference decoder: depuncture into doubles, run the reference recursion over the frame (or
// its wrap-around extension), trace back in full. See gpufec/conv/reference.hpp.
#include <algorithm>
#include <cmath>

#include "conv/cpu/reference_core.hpp"
#include "conv/model/llr_input.hpp"
#include "gpufec/conv/reference.hpp"

namespace gpufec::conv {

std::size_t default_traceback_depth(const conv_code& code, const puncture_pattern& pattern) {
  return static_cast<std::size_t>(std::ceil(2.5 * code.K() / (1.0 - pattern.rate())));
}

reference_decoder::reference_decoder(const conv_code& code, const puncture_pattern& pattern,
                                     std::size_t info_bits, termination term,
                                     const reference_options& options)
    : code_(code),
      pattern_(pattern),
      term_(term),
      shape_(make_frame_shape(code, pattern, info_bits, term)),
      metric_(options.metric) {
  if (term_ == termination::tail_biting)
    wrap_ = options.wrap_stages ? options.wrap_stages : default_traceback_depth(code, pattern);
  // The frame-sized buffers (decisions_: a byte per state and stage, gigabytes for a long frame)
  // are made by the first decode, so that a plan made only to say what it would choose holds
  // none of them.
  if (metric_ == metric_type::f64) {
    metric_f64_.resize(code_.states());
    next_f64_.resize(code_.states());
  } else {
    metric_f32_.resize(code_.states());
    next_f32_.resize(code_.states());
  }
}

namespace {

// Depunctures `received` (any arithmetic type) into doubles, beta per stage.
template <class T, class Convert>
void depuncture_into(const puncture_pattern& pattern, std::span<const T> received,
                     std::vector<double>& llr, Convert convert) {
  const auto beta = static_cast<std::size_t>(pattern.beta());
  std::size_t k = 0;
  for (std::size_t i = 0; i < llr.size(); ++i)
    llr[i] = pattern.sends(static_cast<int>(i % beta), i / beta) ? convert(received[k++]) : 0.0;
}

template <class Real>
void run_frame(const conv_code& code, termination term, const double* llr, std::size_t stages,
               std::size_t wrap, std::size_t info_bits, std::vector<Real>& metric,
               std::vector<Real>& next, std::uint8_t* decisions, std::uint8_t* bits,
               const stop_token& stop) {
  const unsigned S = code.states();
  std::fill(metric.begin(), metric.end(),
            term == termination::tail_biting ? Real{0} : detail::excluded_metric<Real>());
  metric[0] = 0;
  detail::viterbi_forward(code, llr, stages, metric.data(), next, decisions, stop);
  const unsigned end = term == termination::zero_tail ? 0u : detail::best_state(metric.data(), S);
  detail::traceback(code, decisions, stages, end, wrap, info_bits, bits);
}

}  // namespace

void reference_decoder::decode_depunctured(std::span<std::uint8_t> bits, const stop_token& stop) {
  const double* llr = llr_.data();
  std::size_t stages = shape_.stages;
  if (!decisions_) {  // uninitialized: the forward pass writes every entry before the traceback
    decisions_ = std::make_unique_for_overwrite<std::uint8_t[]>((shape_.stages + 2 * wrap_) *
                                                                code_.states());
  }
  if (wrap_) {
    // Extended stage e is frame stage (e - W) mod N.
    const auto beta = static_cast<std::size_t>(code_.beta());
    const std::size_t N = shape_.stages, total = N + 2 * wrap_;
    extended_llr_.resize(total * beta);
    for (std::size_t e = 0; e < total; ++e) {
      const std::size_t t = (e + N - wrap_ % N) % N;
      std::copy_n(llr_.data() + t * beta, beta, extended_llr_.data() + e * beta);
    }
    llr = extended_llr_.data();
    stages = total;
  }
  if (metric_ == metric_type::f64)
    run_frame(code_, term_, llr, stages, wrap_, shape_.info_bits, metric_f64_, next_f64_,
              decisions_.get(), bits.data(), stop);
  else
    run_frame(code_, term_, llr, stages, wrap_, shape_.info_bits, metric_f32_, next_f32_,
              decisions_.get(), bits.data(), stop);
}

void reference_decoder::decode(std::span<const float> llrs, std::span<std::uint8_t> bits,
                               const stop_token& stop) {
  detail::require_frame_length(llrs.size(), shape_, term_, pattern_, "LLRs");
  detail::require_bits_room(bits.size(), shape_);
  detail::require_finite(llrs);
  llr_.resize(shape_.stages * static_cast<std::size_t>(code_.beta()));
  depuncture_into(pattern_, llrs, llr_, [](float v) { return static_cast<double>(v); });
  decode_depunctured(bits, stop);
}

void reference_decoder::decode(std::span<const std::int8_t> llrs, std::span<std::uint8_t> bits,
                               const stop_token& stop) {
  detail::require_frame_length(llrs.size(), shape_, term_, pattern_, "LLRs");
  detail::require_bits_room(bits.size(), shape_);
  llr_.resize(shape_.stages * static_cast<std::size_t>(code_.beta()));
  depuncture_into(pattern_, llrs, llr_, [](std::int8_t v) { return static_cast<double>(v); });
  decode_depunctured(bits, stop);
}

void reference_decoder::decode_hard(std::span<const std::uint8_t> hard,
                                    std::span<std::uint8_t> bits, const stop_token& stop) {
  detail::require_frame_length(hard.size(), shape_, term_, pattern_, "hard bits");
  detail::require_bits_room(bits.size(), shape_);
  llr_.resize(shape_.stages * static_cast<std::size_t>(code_.beta()));
  depuncture_into(pattern_, hard, llr_, [](std::uint8_t v) { return v ? -1.0 : 1.0; });
  decode_depunctured(bits, stop);
}

std::vector<std::uint8_t> ml_tailbiting_decode(const conv_code& code,
                                               const puncture_pattern& pattern,
                                               std::span<const float> llrs) {
  // The frame length from the LLR count: the smallest N whose stages send llrs.size() values.
  std::size_t N = 1;
  while (pattern.sent_before(N) < llrs.size()) ++N;
  const frame_shape shape = make_frame_shape(code, pattern, N, termination::tail_biting);
  detail::require_frame_length(llrs.size(), shape, termination::tail_biting, pattern, "LLRs");
  detail::require_finite(llrs);
  std::vector<double> llr(shape.stages * static_cast<std::size_t>(code.beta()));
  depuncture_into(pattern, llrs, llr, [](float v) { return static_cast<double>(v); });

  const unsigned S = code.states();
  std::vector<std::uint8_t> decisions(shape.stages * S), bits(N);
  std::vector<double> metric(S), next(S);
  // Path metrics are relative to the best after every stage, so compare start states by the sum
  // of the subtracted offsets plus the end metric.
  unsigned best_start = 0;
  double best_total = detail::excluded_metric<double>();
  for (unsigned start = 0; start < S; ++start) {
    std::fill(metric.begin(), metric.end(), detail::excluded_metric<double>());
    metric[start] = 0;
    double offset = 0;
    for (std::size_t t = 0; t < shape.stages; ++t) {
      detail::viterbi_forward(code, llr.data() + t * code.beta(), 1, metric.data(), next,
                              decisions.data() + t * S);
      offset += *std::max_element(next.begin(), next.end());
    }
    const double total = offset + metric[start];
    if (total > best_total) {
      best_total = total;
      best_start = start;
    }
  }
  std::fill(metric.begin(), metric.end(), detail::excluded_metric<double>());
  metric[best_start] = 0;
  detail::viterbi_forward(code, llr.data(), shape.stages, metric.data(), next, decisions.data());
  detail::traceback(code, decisions.data(), shape.stages, best_start, 0, N, bits.data());
  return bits;
}

}  // namespace gpufec::conv
