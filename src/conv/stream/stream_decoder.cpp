// stream_decoder: assembles stages from values that arrive in any chunking and decodes them by
// one of two engines: the fast or the reference recursion into a ring of survivors, traced back
// at fixed stage counts, or the tiled decoder's tiles in windows, on the CPU or on CUDA (see
// gpufec/conv/stream.hpp for both methods and why chunking cannot change the bits).
#include "gpufec/conv/stream.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>

#include "common/host_copy.hpp"
#include "conv/cpu/fast_decoder.hpp"
#include "conv/cpu/reference_core.hpp"
#include "conv/model/llr_input.hpp"
#include "conv/stream/stream_tiles.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::conv {
namespace detail {

// What stream_decoder asks of an engine. Values arrive as int8 (add_many) when int8_input(),
// else one by one as doubles (the reference's unquantized LLRs).
class stream_engine {
 public:
  virtual ~stream_engine() = default;
  virtual bool int8_input() const = 0;
  virtual void add(double value, std::vector<std::uint8_t>& decided) = 0;
  virtual void add_many(const std::int8_t* values, std::size_t n,
                        std::vector<std::uint8_t>& decided) = 0;
  // Decodes what the values so far allow (the ring engine holds stages back until a flush).
  virtual void flush(std::vector<std::uint8_t>& decided) = 0;
  // Ends the stream (not inside a stage) and appends every bit left.
  virtual void finish(std::vector<std::uint8_t>& decided) = 0;
  virtual void reset() = 0;
  virtual bool inside_stage() const = 0;
  virtual int filled() const = 0;    // values of the stage begun
  virtual int expected() const = 0;  // values that stage needs
  virtual std::uint64_t stages() const = 0;
  virtual std::uint64_t decided() const = 0;
  virtual std::size_t memory_bytes() const = 0;
  virtual std::string kernel() const = 0;
};

namespace {

class ring_engine final : public stream_engine {
 public:
  ring_engine(const conv_code& code, const puncture_pattern& pattern, bool fast, std::size_t depth,
              std::size_t block)
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

  bool int8_input() const override { return trellis_.has_value(); }
  std::uint64_t stages() const override { return stages_ + pending_; }
  std::uint64_t decided() const override { return decided_; }
  std::size_t memory_bytes() const override {
    return rows_.size() + bits_.size() + stage_q_.size() + 2 * (metric16_.size() + tables_.size()) +
           8 * (metric_.size() + stage_llr_.size());
  }
  std::string kernel() const override { return trellis_ ? trellis_->describe() : "reference"; }

  void reset() override {
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

  // One received value of the stream (an int8 value for the fast recursion).
  void add(double value, std::vector<std::uint8_t>& decided) override {
    partial_[filled_++] = value;
    if (filled_ < sent_in_column_[static_cast<std::size_t>(phase_)]) return;
    complete_stage();
    filled_ = 0;
    if (++phase_ == pattern_.period()) phase_ = 0;
    if (pending_ == block_) flush(decided);
  }

  // Many int8 values: whole periods go straight into the pending stages through the period's
  // gather table; a partial period at either end goes value by value.
  void add_many(const std::int8_t* values, std::size_t n,
                std::vector<std::uint8_t>& decided) override {
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

  bool inside_stage() const override { return filled_ != 0; }
  int filled() const override { return filled_; }
  int expected() const override { return sent_in_column_[static_cast<std::size_t>(phase_)]; }

  // The rest of the stream, from the best end state.
  void finish(std::vector<std::uint8_t>& decided) override {
    flush(decided);
    const std::size_t left = static_cast<std::size_t>(stages_ - decided_);
    if (left) trace_and_release(left, decided);
  }

  void flush(std::vector<std::uint8_t>& decided) override {
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

// The tiled engine: values go straight into the runner's staging buffer (page-locked on CUDA);
// whenever a window of tiles is ready it is run, and the values the next window needs move to
// the next staging buffer (the overlaps: about v1 + v2 stages).
class tiled_engine final : public stream_engine {
 public:
  tiled_engine(std::unique_ptr<window_runner> runner, const tile_shape& tile,
               const puncture_pattern& pattern)
      : runner_(std::move(runner)), tiling_(tile, pattern, runner_->window_tiles()) {
    runner_->allocate(tiling_);
  }

  bool int8_input() const override { return true; }
  void add(double value, std::vector<std::uint8_t>& decided) override {
    const auto q = static_cast<std::int8_t>(value);
    add_many(&q, 1, decided);
  }
  void add_many(const std::int8_t* values, std::size_t n,
                std::vector<std::uint8_t>& decided) override {
    while (n) {
      const std::size_t take = std::min(n, tiling_.max_values() - buffered_);
      host_copy(runner_->staging() + buffered_, values, take);  // over threads when large
      buffered_ += take;
      values_ += take;
      values += take;
      n -= take;
      run_ready(false, decided);
      require(buffered_ < tiling_.max_values(), "internal: the tiled stream's buffer is full (",
              buffered_, " values) but no window is ready");
    }
  }
  void flush(std::vector<std::uint8_t>&) override {}
  void finish(std::vector<std::uint8_t>& decided) override {
    run_ready(true, decided);
    const std::size_t before = decided.size();
    runner_->drain(decided);
    decided_ += decided.size() - before;
  }
  void reset() override {
    std::vector<std::uint8_t> discarded;
    runner_->drain(discarded);
    tiling_.reset();
    values_ = buffered_ = 0;
    decided_ = 0;
  }
  bool inside_stage() const override { return tiling_.partial_values(values_) != 0; }
  int filled() const override { return static_cast<int>(tiling_.partial_values(values_)); }
  int expected() const override {
    const std::uint64_t stage = tiling_.stages_in(values_);
    return static_cast<int>(tiling_.value_index(stage + 1) - tiling_.value_index(stage));
  }
  std::uint64_t stages() const override { return tiling_.stages_in(values_); }
  std::uint64_t decided() const override { return decided_; }
  std::size_t memory_bytes() const override {
    return runner_->host_bytes() + runner_->device_bytes();
  }
  std::string kernel() const override {
    return cat("tiled (", runner_->describe(), "; ", tiling_.tile().to_string(), ", windows of ",
               tiling_.window_tiles(), " tiles, ", runner_->host_bytes(), " bytes on the host",
               runner_->device_bytes() ? cat(", ", runner_->device_bytes(), " on the device") : "",
               ")");
  }

 private:
  // Runs every ready window (with `ended`, the rest of the stream).
  void run_ready(bool ended, std::vector<std::uint8_t>& decided) {
    while (const auto w = tiling_.next(tiling_.stages_in(values_), ended)) {
      const std::uint64_t buffer_first = w->first_value;
      const std::int8_t* old = runner_->staging();
      const std::size_t before = decided.size();
      runner_->run(*w, decided);
      decided_ += decided.size() - before;
      tiling_.advance(*w);
      // The next window's origin; past the values after the stream's last window.
      const auto keep = static_cast<std::size_t>(
          std::min<std::uint64_t>(tiling_.value_index(tiling_.origin()) - buffer_first, buffered_));
      std::memmove(runner_->staging(), old + keep, buffered_ - keep);
      buffered_ -= keep;
    }
  }

  std::unique_ptr<window_runner> runner_;
  stream_tiling tiling_;
  std::uint64_t values_ = 0;  // received
  std::size_t buffered_ = 0;  // staged: values from the next window's origin on
  std::uint64_t decided_ = 0;
};

}  // namespace
}  // namespace detail

stream_decoder::stream_decoder(const conv_code& code, const puncture_pattern& pattern,
                               const stream_options& options)
    : code_(code), pattern_(pattern), options_(options) {
  require(pattern_.beta() == code_.beta(), "the puncture pattern ", pattern_.to_string(), " has ",
          pattern_.beta(), " rows but the code has beta = ", code_.beta(), " output streams");
  require(options.llr_scale == 0 || (std::isfinite(options.llr_scale) && options.llr_scale > 0),
          "llr_scale = ", options.llr_scale, " must be 0 (automatic) or positive");
  const bool on_cuda = options.where == backend::cuda;
  require(options.where == backend::cpu || on_cuda || options.where == backend::automatic,
          "stream decoder: unknown backend");
  require(!on_cuda || options.decoder == decoder_kind::automatic ||
              options.decoder == decoder_kind::tiled,
          "the CUDA stream decoder is the tiled decoder (decoder = ", name_of(options.decoder),
          " runs on the CPU)");
  const bool tiled = on_cuda || options.decoder == decoder_kind::tiled;
  require(tiled || options.tile == tile_shape{},
          "a tile shape applies to the tiled stream decoder only (decoder = ",
          name_of(options.decoder), ")");
  require(tiled || options.window_stages == 0,
          "window_stages applies to the tiled stream decoder only (decoder = ",
          name_of(options.decoder), ")");
  require(!tiled || options.traceback_depth == 0, "traceback_depth = ", options.traceback_depth,
          ": the tiled stream decoder traces back over its tiles (the overlap v2 of the tile "
          "shape takes the depth's place)");
  require(on_cuda || options.kernel == cuda_kernel::automatic,
          "a CUDA kernel applies to where = cuda (kernel = ", name_of(options.kernel), ")");
  options_.where = on_cuda ? backend::cuda : backend::cpu;
  if (tiled) {
    // Without a shape the runner takes its default: on CUDA that of the kernel that runs.
    if (options_.tile.f) validate(options_.tile);
    options_.decoder = decoder_kind::tiled;
    std::unique_ptr<detail::window_runner> runner;
    if (on_cuda) {
      const auto make = cuda_factory<detail::cuda_stream_entry>("the CUDA conv stream decoder");
      runner = make(detail::cuda_window_setup{code_, pattern_, options_.tile, options.kernel,
                                              options.window_stages});
    } else {
      runner =
          detail::make_cpu_window_runner(code_, pattern_, options_.tile, options.window_stages);
    }
    options_.tile = runner->tile();
    const std::size_t window_tiles = runner->window_tiles();
    engine_ = std::make_unique<detail::tiled_engine>(std::move(runner), options_.tile, pattern_);
    depth_ = options_.tile.v2;
    block_ = options_.tile.f * window_tiles;
  } else {
    depth_ = options.traceback_depth ? options.traceback_depth
                                     : default_traceback_depth(code_, pattern_);
    block_ = 4 * depth_;
    bool fast = options.decoder == decoder_kind::fast;
    if (options.decoder == decoder_kind::automatic) fast = detail::acs_shape(code_.K()).lanes >= 2;
    engine_ = std::make_unique<detail::ring_engine>(code_, pattern_, fast, depth_, block_);
  }
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
  const std::string head = cat("conv stream decoder (", gpufec::to_string(options_.where),
                               "): ", code_.to_string(), ", pattern ", pattern_.to_string(), ", ");
  if (options_.decoder == decoder_kind::tiled)
    return head + engine_->kernel() + "; bits equal the tiled decoder's on the whole stream";
  return cat(head, engine_->kernel(), ", traceback depth ", depth_,
             " stages, released in blocks of ", block_, ", ", memory_bytes(), " bytes");
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
  if (!engine_->int8_input()) {
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
  if (!engine_->int8_input() || scale_ > 0) {
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
  if (!engine_->int8_input()) {
    for (std::uint8_t v : hard) engine_->add(v ? -1.0 : 1.0, decided);
  } else {  // +-1 by blocks, as int8 LLRs
    for (std::size_t start = 0; start < hard.size(); start += quantized_.size()) {
      const std::size_t n = std::min(quantized_.size(), hard.size() - start);
      for (std::size_t i = 0; i < n; ++i) quantized_[i] = hard[start + i] ? -1 : 1;
      engine_->add_many(quantized_.data(), n, decided);
    }
  }
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
