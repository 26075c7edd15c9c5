// stream_decoder: assembles stages from values that arrive in any chunking, runs the fast or the
// reference recursion into a ring of survivors, and traces back at fixed stage counts (see
// gpufec/conv/stream.hpp for the method and why chunking cannot change the bits).
#include "gpufec/conv/stream.hpp"

#include <algorithm>
#include <optional>
#include <type_traits>

#include "conv/fast_decoder.hpp"
#include "conv/llr_input.hpp"
#include "conv/reference_core.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::conv {
namespace detail {

class stream_engine {
 public:
  stream_engine(const conv_code& code, const puncture_pattern& pattern, bool fast,
                std::size_t depth, std::size_t block)
      : code_(code), pattern_(pattern), depth_(depth), block_(block), ring_(depth + block) {
    const unsigned S = code_.states();
    const auto beta = static_cast<std::size_t>(code_.beta());
    if (fast) {
      trellis_.emplace(code_);
      row_size_ = trellis_->row_bytes();
      metric16_.resize(S);
      stage_q_.resize(block_ * beta);
      tables_.resize(block_ * trellis_->table_entries());
    } else {
      row_size_ = S;
      metric_.resize(S);
      stage_llr_.resize(block_ * beta);
    }
    rows_.resize(ring_ * row_size_ + 8);
    bits_.resize(ring_);
    for (int p = 0, k = 0; p < pattern_.period(); ++p) {
      int sent = 0;
      for (int b = 0; b < code_.beta(); ++b) {
        const bool sends = pattern_.sends(b, static_cast<std::size_t>(p));
        sent += sends;
        gather_.push_back(sends ? k++ : -1);
      }
      sent_in_column_.push_back(sent);
    }
    reset();
  }

  bool fast() const { return trellis_.has_value(); }
  std::uint64_t stages() const { return stages_ + pending_; }
  std::uint64_t decided() const { return decided_; }
  std::size_t memory_bytes() const {
    return rows_.size() + bits_.size() + stage_q_.size() + 2 * (metric16_.size() + tables_.size()) +
           8 * (metric_.size() + stage_llr_.size());
  }
  std::string kernel() const { return trellis_ ? trellis_->describe() : "reference"; }

  void reset() {
    stages_ = decided_ = 0;
    pending_ = 0;
    phase_ = filled_ = 0;
    if (trellis_) {
      trellis_->start_metrics(false, metric16_.data());
    } else {
      std::fill(metric_.begin(), metric_.end(), excluded_metric<double>());
      metric_[0] = 0;
    }
  }

  // One received value of the stream (int8 for the fast recursion, double for the reference).
  template <class T>
  void add(T value, std::vector<std::uint8_t>& decided) {
    partial_[filled_++] = static_cast<double>(value);
    if (filled_ < sent_in_column_[static_cast<std::size_t>(phase_)]) return;
    complete_stage();
    filled_ = 0;
    if (++phase_ == pattern_.period()) phase_ = 0;
    if (pending_ == block_) flush(decided);
  }

  // Many int8 values: whole periods go straight into the pending stages through the period's
  // gather table; a partial period at either end goes value by value.
  void add_many(const std::int8_t* values, std::size_t n, std::vector<std::uint8_t>& decided) {
    const auto P = static_cast<std::size_t>(pattern_.period());
    const auto per_period = static_cast<std::size_t>(pattern_.sent_per_period());
    const auto beta = static_cast<std::size_t>(code_.beta());
    while (n) {
      const std::size_t room = (block_ - pending_) / P;
      const std::size_t periods = std::min(n / per_period, room);
      if (!trellis_ || filled_ != 0 || phase_ != 0 || periods == 0) {
        add(*values++, decided);
        --n;
        if (room == 0 && filled_ == 0 && phase_ == 0) flush(decided);
        continue;
      }
      std::int8_t* out = stage_q_.data() + pending_ * beta;
      for (std::size_t k = 0; k < periods; ++k, values += per_period, out += P * beta)
        for (std::size_t j = 0; j < P * beta; ++j)
          out[j] = gather_[j] < 0 ? std::int8_t{0} : values[gather_[j]];
      pending_ += periods * P;
      n -= periods * per_period;
      if (block_ - pending_ < P) flush(decided);
    }
  }

  bool inside_stage() const { return filled_ != 0; }
  int filled() const { return filled_; }
  int expected() const { return sent_in_column_[static_cast<std::size_t>(phase_)]; }

  // The rest of the stream, from the best end state.
  void finish(std::vector<std::uint8_t>& decided) {
    flush(decided);
    const std::size_t left = static_cast<std::size_t>(stages_ - decided_);
    if (left) trace_and_release(left, decided);
  }

  void flush(std::vector<std::uint8_t>& decided) {
    if (trellis_ && pending_)
      trellis_->branch_tables(stage_q_.data(), pending_, tables_.data(), trellis_->table_entries());
    std::size_t done = 0;
    while (done < pending_) {
      // Forward up to the next traceback point and the end of the ring, whichever comes first.
      const std::size_t undecided = static_cast<std::size_t>(stages_ - decided_);
      const std::size_t slot = static_cast<std::size_t>(stages_ % ring_);
      const std::size_t m = std::min({pending_ - done, depth_ + block_ - undecided, ring_ - slot});
      std::uint8_t* rows = rows_.data() + slot * row_size_;
      if (trellis_) {
        trellis_->forward(metric16_.data(), tables_.data() + trellis_->table_entries() * done, m,
                          rows);
      } else {
        viterbi_forward(code_, stage_llr_.data() + done * code_.beta(), m, metric_.data(), next_,
                        rows);
      }
      stages_ += m;
      done += m;
      if (stages_ - decided_ == depth_ + block_) trace_and_release(block_, decided);
    }
    pending_ = 0;
  }

 private:
  void complete_stage() {
    const int beta = code_.beta();
    double llr[conv_code::max_beta];
    int k = 0;
    for (int b = 0; b < beta; ++b)
      llr[b] = pattern_.sends(b, static_cast<std::size_t>(phase_)) ? partial_[k++] : 0.0;
    if (trellis_) {
      for (int b = 0; b < beta; ++b)
        stage_q_[pending_ * static_cast<std::size_t>(beta) + static_cast<std::size_t>(b)] =
            static_cast<std::int8_t>(llr[b]);
    } else {
      std::copy_n(llr, beta, stage_llr_.data() + pending_ * static_cast<std::size_t>(beta));
    }
    ++pending_;
  }

  // Traces back over all undecided stages from the best state now and releases the oldest
  // `count` bits.
  void trace_and_release(std::size_t count, std::vector<std::uint8_t>& decided) {
    const std::uint64_t lo = decided_;
    unsigned state = trellis_ ? trellis_->best_state(metric16_.data())
                              : best_state(metric_.data(), code_.states());
    std::uint64_t end = stages_;
    while (end > lo) {
      // The ring holds stage t at slot t mod ring_: walk back one contiguous run of slots.
      const std::size_t slot_end = end % ring_ == 0 ? ring_ : static_cast<std::size_t>(end % ring_);
      const std::size_t run = std::min<std::size_t>(slot_end, static_cast<std::size_t>(end - lo));
      const std::uint64_t run_start = end - run;
      const std::uint8_t* rows = rows_.data() + (slot_end - run) * row_size_;
      // Release stages [lo, lo + count) that fall in this run.
      const std::uint64_t first = std::max<std::uint64_t>(lo, run_start);
      const std::uint64_t last = std::min<std::uint64_t>(lo + count, end);
      const std::size_t local_first = static_cast<std::size_t>(first - run_start);
      const std::size_t n = last > first ? static_cast<std::size_t>(last - first) : 0;
      std::uint8_t* out = bits_.data() + (first - lo);
      state = trellis_ ? trellis_->traceback(rows, run, state, local_first, n, out)
                       : traceback(code_, rows, run, state, local_first, n, out);
      end = run_start;
    }
    decided.insert(decided.end(), bits_.begin(),
                   bits_.begin() + static_cast<std::ptrdiff_t>(count));
    decided_ += count;
  }

  conv_code code_;
  puncture_pattern pattern_;
  std::size_t depth_, block_, ring_, row_size_ = 1;
  std::optional<fast_trellis> trellis_;
  std::vector<std::int8_t> stage_q_;  // fast: [stage][b] of the pending stages
  std::vector<std::int16_t> metric16_, tables_;
  std::vector<double> metric_, next_, stage_llr_;
  std::vector<std::uint8_t> rows_, bits_;
  std::vector<int> sent_in_column_;
  std::vector<int> gather_;  // [p][b] of a period: index among its sent values, or -1
  std::uint64_t stages_ = 0, decided_ = 0;  // stages forwarded; bits released
  std::size_t pending_ = 0;                 // stages assembled, not yet forwarded
  int phase_ = 0, filled_ = 0;
  double partial_[conv_code::max_beta] = {};
};

}  // namespace detail

stream_decoder::stream_decoder(const conv_code& code, const puncture_pattern& pattern,
                               const stream_options& options)
    : code_(code), pattern_(pattern), options_(options) {
  require(pattern_.beta() == code_.beta(), "the puncture pattern ", pattern_.to_string(), " has ",
          pattern_.beta(), " rows but the code has beta = ", code_.beta(), " output streams");
  require(options.llr_scale == 0 || (std::isfinite(options.llr_scale) && options.llr_scale > 0),
          "llr_scale = ", options.llr_scale, " must be 0 (automatic) or positive");
  require(options.decoder != decoder_kind::tiled,
          "the stream decoder runs the reference or the fast decoder; the tiled decoder decodes "
          "frames (zero-tail, truncated or tail-biting)");
  depth_ =
      options.traceback_depth ? options.traceback_depth : default_traceback_depth(code_, pattern_);
  block_ = 4 * depth_;
  bool fast = options.decoder == decoder_kind::fast;
  if (options.decoder == decoder_kind::automatic) fast = detail::acs_shape(code_.K()).lanes >= 2;
  engine_ = std::make_unique<detail::stream_engine>(code_, pattern_, fast, depth_, block_);
  held_.reserve(scale_window);
  quantized_.resize(scale_window);
  reset();
}

stream_decoder::~stream_decoder() = default;
stream_decoder::stream_decoder(stream_decoder&&) noexcept = default;
stream_decoder& stream_decoder::operator=(stream_decoder&&) noexcept = default;

void stream_decoder::reset() {
  engine_->reset();
  values_ = 0;
  finished_ = false;
  scale_ = static_cast<float>(options_.llr_scale);
  held_.clear();
}

std::uint64_t stream_decoder::stages_received() const {
  return engine_->stages();
}
std::uint64_t stream_decoder::bits_decided() const {
  return engine_->decided();
}
std::size_t stream_decoder::memory_bytes() const {
  return engine_->memory_bytes() + 4 * held_.capacity() + quantized_.size();
}

std::string stream_decoder::describe() const {
  return cat("conv stream decoder: ", code_.to_string(), ", pattern ", pattern_.to_string(), ", ",
             engine_->kernel(), ", traceback depth ", depth_, " stages, released in blocks of ",
             block_, ", ", memory_bytes(), " bytes");
}

template <class T>
void stream_decoder::feed(std::span<const T> values, std::vector<std::uint8_t>& decided) {
  require(!finished_, "this stream has finished; reset() starts a new one");
  values_ += values.size();
  if constexpr (std::is_same_v<T, std::int8_t>) {
    engine_->add_many(values.data(), values.size(), decided);
  } else {
    for (const T v : values) engine_->add(v, decided);
  }
  engine_->flush(decided);
}

void stream_decoder::feed_float(std::span<const float> llrs, std::vector<std::uint8_t>& decided) {
  if (!engine_->fast()) {
    for (float v : llrs) engine_->add(static_cast<double>(v), decided);
  } else {
    for (std::size_t start = 0; start < llrs.size(); start += quantized_.size()) {
      const std::size_t n = std::min(quantized_.size(), llrs.size() - start);
      detail::quantize_llrs(llrs.data() + start, n, scale_, quantized_.data());
      engine_->add_many(quantized_.data(), n, decided);
    }
  }
}

void stream_decoder::push(std::span<const float> llrs, std::vector<std::uint8_t>& decided) {
  require(!finished_, "this stream has finished; reset() starts a new one");
  const auto scan = detail::scan_llrs(llrs.data(), llrs.size());
  if (scan.first_not_finite < llrs.size())
    throw invalid_argument(
        cat("stream value ", values_ + scan.first_not_finite, ": ",
            detail::not_finite_message(llrs[scan.first_not_finite], scan.first_not_finite)));
  values_ += llrs.size();
  if (!engine_->fast() || scale_ > 0) {
    feed_float(llrs, decided);
    return engine_->flush(decided);
  }
  // Hold the first scale_window LLRs back until they fix the automatic scale.
  const std::size_t take = std::min(llrs.size(), scale_window - held_.size());
  held_.insert(held_.end(), llrs.begin(), llrs.begin() + static_cast<std::ptrdiff_t>(take));
  if (held_.size() < scale_window) return;
  scale_ = static_cast<float>(auto_llr_scale(held_));
  feed_float(held_, decided);
  held_.clear();
  feed_float(llrs.subspan(take), decided);
  engine_->flush(decided);
}

void stream_decoder::push(std::span<const std::int8_t> llrs, std::vector<std::uint8_t>& decided) {
  feed(llrs, decided);
}

void stream_decoder::push_hard(std::span<const std::uint8_t> hard,
                               std::vector<std::uint8_t>& decided) {
  require(!finished_, "this stream has finished; reset() starts a new one");
  values_ += hard.size();
  for (std::uint8_t v : hard) engine_->add(static_cast<std::int8_t>(v ? -1 : 1), decided);
  engine_->flush(decided);
}

void stream_decoder::finish(std::vector<std::uint8_t>& decided) {
  require(!finished_, "this stream has already finished; reset() starts a new one");
  if (!held_.empty()) {
    scale_ = static_cast<float>(auto_llr_scale(held_));
    feed_float(held_, decided);
    held_.clear();
  }
  require<format_error>(!engine_->inside_stage(),
                        "the stream ends inside a stage: ", engine_->filled(), " of the ",
                        engine_->expected(), " values of stage ", engine_->stages(), " arrived (",
                        values_, " values in all; pattern ", pattern_.to_string(),
                        "): the LLR count is not a whole number of stages");
  engine_->finish(decided);
  finished_ = true;
}

}  // namespace gpufec::conv
