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
#include "conv/cpu/fast_decoder.hpp"

#include <algorithm>
#include <cstring>

#include "conv/cpu/reference_core.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::conv::detail {

fast_trellis::fast_trellis(const conv_code& code) : code_(code), shape_(acs_shape(code.K())) {
  require(shape_.lanes >= 2, "the fast conv decoder has no SIMD kernel for target ", shape_.target,
          " (use the reference decoder)");
  const unsigned S = code_.states(), half = S / 2;
  const int beta = code_.beta();
  require(half % static_cast<unsigned>(shape_.lanes) == 0, "conv fast decoder: ", shape_.lanes,
          " lanes do not divide ", half, " butterflies");
  const bool symmetric = code_.symmetric_butterflies();
  layout_ = symmetric && beta == 2   ? branch_layout::pair
            : symmetric && beta == 3 ? branch_layout::full
                                     : branch_layout::half;
  row_bytes_ = std::max<std::size_t>(1, S / 8);

  const int B = 128 * beta;
  excluded_ = static_cast<std::int16_t>(-(2 * (code_.K() - 1) * B + 1));
  const long bound =
      -long{excluded_} + 2L * (code_.K() - 1) * B + static_cast<long>(renormalize_every + 1) * B;
  require(bound <= 32767, "conv fast decoder: int16 metric bound ", bound, " exceeded");

  feedback_parity_.resize(S);
  for (unsigned j = 0; j < S; ++j)
    feedback_parity_[j] = static_cast<std::uint8_t>(code_.input_bit(j, 0));

  // Per butterfly x (lane x of the A vectors) and branch kind (x, w=0), (x + S/2, w=0), (x, w=1),
  // (x + S/2, w=1): the byte indices of the label's table entry.
  const auto byte_pair = [](unsigned entry) {
    return static_cast<std::int16_t>((2 * entry) | ((2 * entry + 1) << 8));
  };
  const bool one_kind = layout_ != branch_layout::half;
  const unsigned kinds = one_kind ? 1 : 4;
  // Pair tables hold [d(00), d(11), d(01), d(10)]: the entry of each label.
  constexpr unsigned kPairEntry[4] = {0, 2, 3, 1};
  lane_index_.resize(kinds * half);
  lane_sign_.assign(kinds * half, 0);
  const unsigned top = 1u << (beta - 1);
  for (unsigned x = 0; x < half; ++x) {
    const unsigned labels[4] = {code_.label(x, 0), code_.label(x + half, 0), code_.label(x, 1),
                                code_.label(x + half, 1)};
    if (one_kind) {
      const unsigned all = (1u << beta) - 1;
      require(labels[1] == (labels[0] ^ all) && labels[2] == (labels[0] ^ all) &&
                  labels[3] == labels[0],
              "conv fast decoder: the butterfly of state ", x, " is not symmetric");
      lane_index_[x] =
          byte_pair(layout_ == branch_layout::pair ? kPairEntry[labels[0]] : labels[0]);
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
  const unsigned half = code_.states() / 2, lanes = static_cast<unsigned>(shape_.lanes);
  const char* layout = layout_ == branch_layout::pair
                           ? "symmetric butterflies, rate-1/2 pair tables"
                       : layout_ == branch_layout::full ? "symmetric butterflies, 8-entry tables"
                                                        : "general butterflies, half tables";
  return cat(shape_.target, ": int16 path metrics, ", lanes, " lanes x ", half / lanes,
             " butterfly vector", half / lanes > 1 ? "s" : "", ", ", layout,
             shape_.two_frames ? ", two frames per vector" : "");
}

void fast_trellis::branch_tables(const std::int8_t* llr, std::size_t stages, std::int16_t* tables,
                                 std::size_t stride) const {
  if (layout_ == branch_layout::pair) return pair_tables(llr, stages, tables, stride);
  const int beta = code_.beta();
  const unsigned entries = layout_ == branch_layout::full ? (1u << beta) : (1u << (beta - 1));
  for (std::size_t t = 0; t < stages; ++t, llr += beta, tables += stride) {
    for (unsigned o = 0; o < entries; ++o) {
      int delta = 0;
      for (int b = 0; b < beta; ++b) delta += ((o >> b) & 1u) ? -llr[b] : llr[b];
      tables[o] = static_cast<std::int16_t>(delta);
    }
    for (unsigned o = entries; o < 8; ++o) tables[o] = 0;
  }
}

void fast_trellis::branch_tables_two(const std::int8_t* llr0, const std::int8_t* llr1,
                                     std::size_t stages, std::int16_t* tables) const {
  if (layout_ == branch_layout::pair) return pair_tables_two(llr0, llr1, stages, tables);
  const std::size_t row = two_frame_row(layout_);
  branch_tables(llr0, stages, tables, row);
  branch_tables(llr1, stages, tables + row / 2, row);
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

// Two walks interleaved in one loop: each step waits on its own walk's previous step only.
template <class ReadDecision>
void walk_back_two(const conv_code& code, std::size_t stages, unsigned state0, unsigned state1,
                   std::size_t first, std::size_t count, std::uint8_t* bits0, std::uint8_t* bits1,
                   ReadDecision decision) {
  const unsigned half = code.states() / 2;
  const bool recursive = code.recursive();
  for (std::size_t t = stages; t-- > 0;) {
    const unsigned p0 = (state0 >> 1) | (decision(0, t, state0) ? half : 0u);
    const unsigned p1 = (state1 >> 1) | (decision(1, t, state1) ? half : 0u);
    if (t - first < count) {
      bits0[t - first] =
          static_cast<std::uint8_t>(recursive ? code.input_bit(p0, state0 & 1u) : (state0 & 1u));
      bits1[t - first] =
          static_cast<std::uint8_t>(recursive ? code.input_bit(p1, state1 & 1u) : (state1 & 1u));
    }
    state0 = p0;
    state1 = p1;
  }
}

}  // namespace

void fast_trellis::traceback_two(const std::uint8_t* const rows[2], std::size_t stages,
                                 const unsigned state[2], std::size_t first, std::size_t count,
                                 std::uint8_t* const bits[2]) const {
  const std::size_t row_bytes = row_bytes_;
  if (code_.states() <= 64)
    return walk_back_two(code_, stages, state[0], state[1], first, count, bits[0], bits[1],
                         [&](int f, std::size_t t, unsigned j) {
                           std::uint64_t word;
                           std::memcpy(&word, rows[f] + t * row_bytes, sizeof word);
                           return static_cast<unsigned>((word >> j) & 1u);
                         });
  walk_back_two(
      code_, stages, state[0], state[1], first, count, bits[0], bits[1],
      [&](int f, std::size_t t, unsigned j) {
        return static_cast<unsigned>((rows[f][t * row_bytes + (j >> 3)] >> (j & 7u)) & 1u);
      });
}

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
  call.layout = layout_;
  call.path_metric = metric;
  call.branch_table = tables;
  call.stages = stages;
  call.survivor_rows = rows;
  call.row_bytes = row_bytes_;
  call.lane_index = lane_index_.data();
  call.lane_sign = lane_sign_.data();
  run_acs(call);
}

void fast_trellis::forward_two(std::int16_t* const metric[2], const std::int16_t* tables,
                               std::size_t stages, std::uint8_t* const rows[2],
                               survivor_walk* walk) const {
  acs_dual_call call;
  call.walk = walk;
  call.K = code_.K();
  call.layout = layout_;
  call.path_metric[0] = metric[0];
  call.path_metric[1] = metric[1];
  call.branch_table = tables;
  call.stages = stages;
  call.survivor_rows[0] = rows[0];
  call.survivor_rows[1] = rows[1];
  call.row_bytes = row_bytes_;
  call.lane_index = lane_index_.data();
  call.lane_sign = lane_sign_.data();
  run_acs_two_frames(call);
}

survivor_walk fast_trellis::start_walk(const std::uint8_t* const rows[2], std::size_t stages,
                                       const unsigned state[2], std::uint8_t* const bits[2]) const {
  survivor_walk w;
  for (int f = 0; f < 2; ++f) {
    w.row[f] = rows[f] + (stages - 1) * row_bytes_;
    w.bit[f] = bits[f] + (stages - 1);
    w.state[f] = state[f];
  }
  w.steps = stages;
  return w;
}

void fast_trellis::finish_walk(survivor_walk& w) const {
  // In locals: the bit stores (std::uint8_t) may alias anything, `w` included, so a walk kept in
  // `w` would go through memory at every step (about twice as slow).
  const unsigned high = code_.states() / 2;
  const std::size_t row_bytes = row_bytes_;
  const std::uint8_t* row0 = w.row[0];
  const std::uint8_t* row1 = w.row[1];
  std::uint8_t* bit0 = w.bit[0];
  std::uint8_t* bit1 = w.bit[1];
  unsigned state0 = w.state[0], state1 = w.state[1];
  for (std::size_t steps = w.steps; steps; --steps) {
    std::uint64_t word0, word1;
    std::memcpy(&word0, row0, sizeof word0);
    std::memcpy(&word1, row1, sizeof word1);
    *bit0-- = static_cast<std::uint8_t>(state0 & 1u);
    *bit1-- = static_cast<std::uint8_t>(state1 & 1u);
    state0 = (state0 >> 1) | (((word0 >> state0) & 1u) ? high : 0u);
    state1 = (state1 >> 1) | (((word1 >> state1) & 1u) ? high : 0u);
    row0 -= row_bytes;
    row1 -= row_bytes;
  }
  w = {{row0, row1}, {bit0, bit1}, {state0, state1}, 0};
}

fast_frame_decoder::fast_frame_decoder(const fast_trellis& trellis, const puncture_pattern& pattern,
                                       const frame_shape& shape, termination term,
                                       std::size_t wrap_stages)
    : trellis_(&trellis),
      pattern_(pattern),
      shape_(shape),
      term_(term),
      wrap_(term == termination::tail_biting ? wrap_stages : 0) {
  const int beta = pattern_.beta();
  int k = 0;
  for (int p = 0; p < pattern_.period(); ++p)
    for (int b = 0; b < beta; ++b)
      gather_.push_back(pattern_.sends(b, static_cast<std::size_t>(p)) ? k++ : -1);
}

// Stages of branch tables made at a time: 512 x 32 bytes at most, well inside the L1 cache.
constexpr std::size_t kTableChunk = 512;

namespace {
// The slots decode_run uses for runs of at most `run` frames (see make_scratch).
std::size_t slots_for_run(std::size_t run, bool two_frames) {
  return !two_frames || run <= 1 ? 1 : run <= 3 ? 2 : 4;
}
// Stages between two looks at the stop token: whole chunks of branch tables.
constexpr std::size_t kStopCheckChunks = kStopCheckStages / kTableChunk;
}  // namespace

fast_scratch fast_frame_decoder::make_scratch(std::size_t) const {
  fast_scratch s;
  s.tables.resize(kTableChunk * two_frame_row(trellis_->layout()));
  return s;
}

void fast_frame_decoder::ready(fast_slot& slot) const {
  if (!slot.rows.empty()) return;
  // A slot's buffers are made on its first use: a plan holds a long frame's survivors (gigabytes
  // at 2^26 stages) only for the slots its batches use, and a plan made only to say what it
  // would choose holds none.
  const std::size_t total = shape_.stages + 2 * wrap_;
  if (pattern_.punctures())
    slot.depunctured.resize(shape_.stages * static_cast<std::size_t>(pattern_.beta()));
  slot.rows.resize(total * trellis_->row_bytes() + 8);
  slot.metric.resize(trellis_->code().states());
  slot.walked.resize(total);
}

std::size_t fast_frame_decoder::scratch_bytes(std::size_t run) const {
  const std::size_t total = shape_.stages + 2 * wrap_;
  const std::size_t slot =
      shape_.coded_bits +
      (pattern_.punctures() ? shape_.stages * static_cast<std::size_t>(pattern_.beta()) : 0) +
      total * trellis_->row_bytes() + 8 + 2 * trellis_->code().states();
  return slots_for_run(run, trellis_->two_frames()) * slot +
         2 * kTableChunk * two_frame_row(trellis_->layout());
}

const std::int8_t* fast_frame_decoder::stage_llrs(std::span<const std::int8_t> received,
                                                  fast_slot& slot) const {
  if (!pattern_.punctures()) return received.data();
  // Zeros where nothing was sent, one period at a time.
  std::int8_t* out = slot.depunctured.data();
  const std::size_t slots = gather_.size(), full = slot.depunctured.size();
  const auto per_period = static_cast<std::size_t>(pattern_.sent_per_period());
  for (std::size_t base = 0, in = 0; base < full; base += slots, in += per_period)
    for (std::size_t j = 0; j < slots && base + j < full; ++j)
      out[base + j] =
          gather_[j] < 0 ? std::int8_t{0} : received[in + static_cast<std::size_t>(gather_[j])];
  return out;
}

void fast_frame_decoder::tables_for(const std::int8_t* llr, std::size_t first, std::size_t count,
                                    std::int16_t* tables, std::size_t stride) const {
  const std::size_t N = shape_.stages, beta = static_cast<std::size_t>(pattern_.beta());
  while (count) {
    const std::size_t stage = (first + N - wrap_ % N) % N;
    const std::size_t run = std::min(count, N - stage);
    trellis_->branch_tables(llr + beta * stage, run, tables, stride);
    tables += stride * run;
    first += run;
    count -= run;
  }
}

void fast_frame_decoder::tables_for_two(const std::int8_t* llr0, const std::int8_t* llr1,
                                        std::size_t first, std::size_t count,
                                        std::int16_t* tables) const {
  const std::size_t N = shape_.stages, beta = static_cast<std::size_t>(pattern_.beta());
  const std::size_t row = two_frame_row(trellis_->layout());
  while (count) {
    const std::size_t stage = (first + N - wrap_ % N) % N;
    const std::size_t run = std::min(count, N - stage);
    trellis_->branch_tables_two(llr0 + beta * stage, llr1 + beta * stage, run, tables);
    tables += row * run;
    first += run;
    count -= run;
  }
}

unsigned fast_frame_decoder::end_state(const std::int16_t* metric) const {
  return term_ == termination::zero_tail ? 0u : trellis_->best_state(metric);
}

void fast_frame_decoder::decode(std::span<const std::int8_t> received, std::span<std::uint8_t> bits,
                                fast_scratch& scratch, const stop_token& stop) const {
  fast_slot& slot = scratch.slot[0];
  ready(slot);
  const std::size_t total = shape_.stages + 2 * wrap_, entries = trellis_->table_entries();
  const std::int8_t* llr = stage_llrs(received, slot);
  trellis_->start_metrics(term_ == termination::tail_biting, slot.metric.data());
  for (std::size_t e = 0; e < total; e += kTableChunk) {
    if (e % (kStopCheckChunks * kTableChunk) == 0 && stop.requested()) throw stopped();
    const std::size_t n = std::min(kTableChunk, total - e);
    tables_for(llr, e, n, scratch.tables.data(), entries);
    trellis_->forward(slot.metric.data(), scratch.tables.data(), n,
                      slot.rows.data() + e * trellis_->row_bytes());
  }
  trellis_->traceback(slot.rows.data(), total, end_state(slot.metric.data()), wrap_,
                      shape_.info_bits, bits.data());
}

void fast_frame_decoder::forward_pair(std::span<const std::int8_t> received0,
                                      std::span<const std::int8_t> received1, fast_slot& a,
                                      fast_slot& b, fast_scratch& scratch, survivor_walk* walk,
                                      const stop_token& stop) const {
  const std::size_t total = shape_.stages + 2 * wrap_;
  const std::size_t row_bytes = trellis_->row_bytes();
  ready(a);
  ready(b);
  const std::int8_t* llr[2] = {stage_llrs(received0, a), stage_llrs(received1, b)};
  std::int16_t* const metric[2] = {a.metric.data(), b.metric.data()};
  for (std::int16_t* m : metric) trellis_->start_metrics(term_ == termination::tail_biting, m);
  for (std::size_t e = 0; e < total; e += kTableChunk) {
    if (e % (kStopCheckChunks * kTableChunk) == 0 && stop.requested()) throw stopped();
    const std::size_t n = std::min(kTableChunk, total - e);
    tables_for_two(llr[0], llr[1], e, n, scratch.tables.data());
    std::uint8_t* const rows[2] = {a.rows.data() + e * row_bytes, b.rows.data() + e * row_bytes};
    trellis_->forward_two(metric, scratch.tables.data(), n, rows, walk);
  }
}

survivor_walk fast_frame_decoder::pair_walk(fast_slot& a, fast_slot& b) const {
  const std::uint8_t* const rows[2] = {a.rows.data(), b.rows.data()};
  const unsigned end[2] = {end_state(a.metric.data()), end_state(b.metric.data())};
  std::uint8_t* const bits[2] = {a.walked.data(), b.walked.data()};
  return trellis_->start_walk(rows, shape_.stages + 2 * wrap_, end, bits);
}

void fast_frame_decoder::release(survivor_walk& walk, const fast_slot* const slots[2],
                                 std::uint8_t* const out[2]) const {
  trellis_->finish_walk(walk);
  const std::size_t N = shape_.info_bits, W = wrap_;
  const conv_code& code = trellis_->code();
  for (int f = 0; f < 2; ++f) {
    const std::uint8_t* walked = slots[f]->walked.data();
    if (!code.recursive()) {
      std::copy_n(walked + W, N, out[f]);
      continue;
    }
    // The predecessor of the state entered at stage t is the state entered at t - 1: the register
    // bits of stages t - 1, ..., t - K + 1, those before stage 0 from the walk's start state
    // (bit i of it is the register bit of stage -1 - i).
    const unsigned start = walk.state[f];
    const auto register_bit = [&](std::ptrdiff_t stage) {
      return stage >= 0 ? walked[stage] : (start >> (-stage - 1)) & 1u;
    };
    for (std::size_t t = W; t < W + N; ++t) {
      unsigned predecessor = 0;
      for (int k = 1; k < code.K(); ++k)
        predecessor |= register_bit(static_cast<std::ptrdiff_t>(t) - k) << (k - 1);
      out[f][t - W] = static_cast<std::uint8_t>(code.input_bit(predecessor, walked[t]));
    }
  }
}

}  // namespace gpufec::conv::detail
