// The fast decoder's tables, traceback and per-frame driver (see fast_decoder.hpp; the SIMD layout
// is derived in fast_kernel.cpp).
//
// Why int16 is exact here. LLRs are int8, so a branch metric is at most B = 128 beta in magnitude.
// Any state reaches any other in K-1 stages, so after stage K-1 every state holds a path from the
// start and the spread of the path metrics is at most 2 (K-1) B (the best state of K-1 stages ago
// is at most (K-1) B below the best now, and at most (K-1) B above any state now). States a known
// start excludes begin at -C with C = 2 (K-1) B + 1: a path from them loses strictly to any path
// from the start (they differ by more than 2 (K-2) B after K-2 stages), as -infinity does in the
// reference. The kernel subtracts the metric of state 0 (always on a valid path) every 16 stages,
// so every value stays within C + 2 (K-1) B + 17 B of zero: 25 089 for K = 9, beta = 4, inside
// int16. No saturation ever happens, so decisions equal those of exact arithmetic.
#include "conv/fast_decoder.hpp"

#include <algorithm>
#include <cstring>

#include "gpufec/common/error.hpp"

namespace gpufec::conv::detail {

fast_trellis::fast_trellis(const conv_code& code) : code_(code), shape_(acs_shape(code.K())) {
  require(shape_.lanes >= 2, "the fast conv decoder has no SIMD kernel for target ", shape_.target,
          " (use the reference decoder)");
  const unsigned S = code_.states(), half = S / 2;
  const int beta = code_.beta();
  require(half % static_cast<unsigned>(shape_.lanes) == 0, "conv fast decoder: ", shape_.lanes,
          " lanes do not divide ", half, " butterflies");
  symmetric_ = code_.symmetric_butterflies() && beta <= 3;
  row_bytes_ = std::max<std::size_t>(1, S / 8);

  const int B = 128 * beta;
  excluded_ = static_cast<std::int16_t>(-(2 * (code_.K() - 1) * B + 1));
  const long bound =
      -long{excluded_} + 2L * (code_.K() - 1) * B + static_cast<long>(renormalize_every + 1) * B;
  require(bound <= 32767, "conv fast decoder: int16 metric bound ", bound, " exceeded");

  // Per butterfly x (lane x of the A vectors) and branch kind (x, w=0), (x + S/2, w=0), (x, w=1),
  // (x + S/2, w=1): the byte indices of the label's table entry.
  const auto byte_pair = [](unsigned entry) {
    return static_cast<std::int16_t>((2 * entry) | ((2 * entry + 1) << 8));
  };
  const unsigned kinds = symmetric_ ? 1 : 4;
  lane_index_.resize(kinds * half);
  lane_sign_.assign(kinds * half, 0);
  const unsigned top = 1u << (beta - 1);
  for (unsigned x = 0; x < half; ++x) {
    const unsigned labels[4] = {code_.label(x, 0), code_.label(x + half, 0), code_.label(x, 1),
                                code_.label(x + half, 1)};
    if (symmetric_) {
      const unsigned all = (1u << beta) - 1;
      require(labels[1] == (labels[0] ^ all) && labels[2] == (labels[0] ^ all) &&
                  labels[3] == labels[0],
              "conv fast decoder: the butterfly of state ", x, " is not symmetric");
      lane_index_[x] = byte_pair(labels[0]);
      continue;
    }
    for (unsigned k = 0; k < 4; ++k) {
      const bool negate = (labels[k] & top) != 0;  // delta(o) = -delta(~o), Eq. 8
      lane_index_[k * half + x] = byte_pair(negate ? (~labels[k] & (top - 1)) : labels[k]);
      lane_sign_[k * half + x] = negate ? -1 : 0;
    }
  }
}

std::string fast_trellis::describe() const {
  const unsigned half = code_.states() / 2;
  return cat(shape_.target, ": int16 path metrics, ", shape_.lanes, " lanes x ",
             half / static_cast<unsigned>(shape_.lanes), " butterfly vector",
             half / static_cast<unsigned>(shape_.lanes) > 1 ? "s" : "", ", ",
             symmetric_ ? "symmetric butterflies (one branch metric per butterfly)"
                        : "general butterflies (four branch metrics per butterfly)");
}

void fast_trellis::branch_table(const std::int8_t* llr, std::int16_t* table) const {
  const int beta = code_.beta();
  const unsigned entries = symmetric_ ? (1u << beta) : (1u << (beta - 1));
  for (unsigned o = 0; o < entries; ++o) {
    int delta = 0;
    for (int b = 0; b < beta; ++b) delta += ((o >> b) & 1u) ? -llr[b] : llr[b];
    table[o] = static_cast<std::int16_t>(delta);
  }
  for (unsigned o = entries; o < 8; ++o) table[o] = 0;
}

void fast_trellis::start_metrics(bool all_states, std::int16_t* metric) const {
  for (unsigned j = 0; j < code_.states(); ++j)
    metric[j] = all_states || j == 0 ? std::int16_t{0} : excluded_;
}

unsigned fast_trellis::best_state(const std::int16_t* metric) const {
  unsigned best = 0;
  for (unsigned j = 1; j < code_.states(); ++j)
    if (metric[j] > metric[best]) best = j;
  return best;
}

namespace {

// The survivor walk: the decision of state j at a stage is bit j of its row (fast_kernel.cpp), its
// predecessor is (j >> 1) + d S/2 and the register bit it was entered with is j & 1. `Row` reads a
// decision; rows of at most 64 states are read as one word, whose load does not wait on the walk.
template <class ReadDecision>
unsigned walk_back(const conv_code& code, std::size_t stages, unsigned state, std::size_t first,
                   std::size_t count, std::uint8_t* bits, ReadDecision decision) {
  const unsigned half = code.states() / 2;
  const bool recursive = code.recursive();
  for (std::size_t t = stages; t-- > 0;) {
    const unsigned predecessor = (state >> 1) | (decision(t, state) ? half : 0u);
    if (t - first < count)
      bits[t - first] = static_cast<std::uint8_t>(
          recursive ? code.input_bit(predecessor, state & 1u) : (state & 1u));
    state = predecessor;
  }
  return state;
}

}  // namespace

unsigned fast_trellis::traceback(const std::uint8_t* rows, std::size_t stages, unsigned state,
                                 std::size_t first, std::size_t count, std::uint8_t* bits) const {
  const std::size_t row_bytes = row_bytes_;
  if (code_.states() <= 64)
    return walk_back(code_, stages, state, first, count, bits, [&](std::size_t t, unsigned j) {
      std::uint64_t word;  // rows carry 8 bytes of slack after the last one
      std::memcpy(&word, rows + t * row_bytes, sizeof word);
      return static_cast<unsigned>((word >> j) & 1u);
    });
  return walk_back(code_, stages, state, first, count, bits, [&](std::size_t t, unsigned j) {
    return static_cast<unsigned>((rows[t * row_bytes + (j >> 3)] >> (j & 7u)) & 1u);
  });
}

void fast_trellis::forward(std::int16_t* metric, const std::int16_t* tables, std::size_t stages,
                           std::uint8_t* rows) const {
  acs_call call;
  call.K = code_.K();
  call.symmetric = symmetric_;
  call.path_metric = metric;
  call.branch_table = tables;
  call.stages = stages;
  call.survivor_rows = rows;
  call.row_bytes = row_bytes_;
  call.lane_index = lane_index_.data();
  call.lane_sign = lane_sign_.data();
  run_acs(call);
}

fast_frame_decoder::fast_frame_decoder(const fast_trellis& trellis, const puncture_pattern& pattern,
                                       const frame_shape& shape, termination term,
                                       std::size_t wrap_stages)
    : trellis_(&trellis),
      pattern_(pattern),
      shape_(shape),
      term_(term),
      wrap_(term == termination::tail_biting ? wrap_stages : 0) {}

fast_scratch fast_frame_decoder::make_scratch() const {
  const std::size_t total = shape_.stages + 2 * wrap_;
  fast_scratch s;
  s.received.resize(shape_.coded_bits);
  s.tables.resize(total * 8);
  s.rows.resize(total * trellis_->row_bytes() + 8);
  s.metric.resize(trellis_->code().states());
  return s;
}

std::size_t fast_frame_decoder::scratch_bytes() const {
  const std::size_t total = shape_.stages + 2 * wrap_;
  return shape_.coded_bits + total * 16 + total * trellis_->row_bytes() + 8 +
         2 * trellis_->code().states();
}

void fast_frame_decoder::decode(std::span<const std::int8_t> received, std::span<std::uint8_t> bits,
                                fast_scratch& scratch) const {
  const fast_trellis& trellis = *trellis_;
  const int beta = trellis.code().beta(), period = pattern_.period();
  const std::size_t N = shape_.stages, W = wrap_, total = N + 2 * W;
  std::int16_t* tables = scratch.tables.data();

  // Branch tables of the frame's stages, at offset W (depuncturing on the way).
  std::int8_t llr[conv_code::max_beta];
  std::size_t k = 0;
  int phase = 0;
  for (std::size_t t = 0; t < N; ++t) {
    for (int b = 0; b < beta; ++b)
      llr[b] = pattern_.sends(b, static_cast<std::size_t>(phase)) ? received[k++] : std::int8_t{0};
    trellis.branch_table(llr, tables + 8 * (W + t));
    if (++phase == period) phase = 0;
  }
  // Tail-biting: extended stage e is frame stage (e - W) mod N.
  for (std::size_t e = 0; e < W; ++e) {
    std::copy_n(tables + 8 * (W + (e + N - W % N) % N), 8, tables + 8 * e);
    std::copy_n(tables + 8 * (W + e % N), 8, tables + 8 * (W + N + e));
  }

  trellis.start_metrics(term_ == termination::tail_biting, scratch.metric.data());
  trellis.forward(scratch.metric.data(), tables, total, scratch.rows.data());
  const unsigned end =
      term_ == termination::zero_tail ? 0u : trellis.best_state(scratch.metric.data());
  trellis.traceback(scratch.rows.data(), total, end, W, shape_.info_bits, bits.data());
}

}  // namespace gpufec::conv::detail
