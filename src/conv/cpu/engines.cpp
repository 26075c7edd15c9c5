// The three CPU engines of conv::decoder_plan (cpu/engine.hpp): the reference decoder frame by
// frame in doubles; the fast and tiled decoders on int8 LLRs, with float and hard frames made
// int8 one frame per task, in a buffer of the thread's own.
#include <algorithm>
#include <span>
#include <vector>

#include "conv/cpu/engine.hpp"
#include "conv/cpu/fast_decoder.hpp"
#include "conv/cpu/frame_quantizer.hpp"
#include "conv/cpu/frame_tasks.hpp"
#include "gpufec/conv/reference.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv::detail {
namespace {

class reference_engine final : public cpu_engine {
 public:
  reference_engine(const cpu_engine_setup& s, const reference_options& options)
      : threads_(s.threads) {
    for (int t = 0; t < threads_; ++t)
      decoders_.emplace_back(s.code, s.pattern, s.frame_bits, s.term, options);
    const frame_shape shape = make_frame_shape(s.code, s.pattern, s.frame_bits, s.term);
    // Per thread: a byte per state and stage of decisions over the frame and its wrap-around,
    // and the depunctured LLRs in doubles (the frame, and its extension when it wraps).
    const std::size_t total = shape.stages + 2 * options.wrap_stages;
    const auto beta = static_cast<std::size_t>(s.code.beta());
    bytes_ =
        static_cast<std::size_t>(threads_) *
        (total * s.code.states() + 8 * beta * (shape.stages + (options.wrap_stages ? total : 0)));
  }

  void decode(batch_view<float> received, batch_span<std::uint8_t> bits,
              const stop_token& stop) override {
    run(received, bits, stop, [](reference_decoder& d, auto frame, auto out, const stop_token& s) {
      d.decode(frame, out, s);
    });
  }
  void decode(batch_view<std::int8_t> received, batch_span<std::uint8_t> bits,
              const stop_token& stop) override {
    run(received, bits, stop, [](reference_decoder& d, auto frame, auto out, const stop_token& s) {
      d.decode(frame, out, s);
    });
  }
  void decode_hard(batch_view<std::uint8_t> received, batch_span<std::uint8_t> bits,
                   const stop_token& stop) override {
    run(received, bits, stop, [](reference_decoder& d, auto frame, auto out, const stop_token& s) {
      d.decode_hard(frame, out, s);
    });
  }
  std::size_t scratch_bytes() const override { return bytes_; }

 private:
  template <class T, class Decode>
  void run(batch_view<T> received, batch_span<std::uint8_t> bits, const stop_token& stop,
           Decode decode) {
    for_each_frame(received.frames(), threads_, [&](std::size_t f, int t) {
      decode(decoders_[static_cast<std::size_t>(t)], received.frame(f), bits.frame(f), stop);
    });
  }

  int threads_;
  std::vector<reference_decoder> decoders_;  // one per thread
  std::size_t bytes_ = 0;
};

// The int8 decoders' three inputs: Derived::run(frames, bits, input, stop) decodes frames whose
// int8 LLRs input(f, buffer) gives (the caller's own, or the thread's `buffer` after making frame
// f int8 in it).
template <class Derived>
class int8_engine : public cpu_engine {
 public:
  explicit int8_engine(double llr_scale) : llr_scale_(llr_scale) {}

  void decode(batch_view<float> received, batch_span<std::uint8_t> bits,
              const stop_token& stop) final {
    derived().run(
        received.frames(), bits,
        [&](std::size_t f, std::vector<std::int8_t>& buffer) {
          const auto frame = received.frame(f);
          buffer.resize(frame.size());
          try {
            quantize_frame(frame, llr_scale_, buffer.data(), 1);
          } catch (const std::exception& error) {
            throw frame_error(f, error.what());
          }
          return std::span<const std::int8_t>(buffer);
        },
        stop);
  }
  void decode(batch_view<std::int8_t> received, batch_span<std::uint8_t> bits,
              const stop_token& stop) final {
    derived().run(
        received.frames(), bits,
        [&](std::size_t f, std::vector<std::int8_t>&) { return received.frame(f); }, stop);
  }
  void decode_hard(batch_view<std::uint8_t> received, batch_span<std::uint8_t> bits,
                   const stop_token& stop) final {
    derived().run(
        received.frames(), bits,
        [&](std::size_t f, std::vector<std::int8_t>& buffer) {
          const auto frame = received.frame(f);
          buffer.resize(frame.size());
          harden_frame(frame, buffer.data(), 1);
          return std::span<const std::int8_t>(buffer);
        },
        stop);
  }

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }
  double llr_scale_;
};

class fast_engine final : public int8_engine<fast_engine> {
 public:
  fast_engine(const cpu_engine_setup& s, std::size_t wrap_stages, std::size_t run)
      : int8_engine(s.llr_scale),
        threads_(s.threads),
        run_(std::max<std::size_t>(run, 1)),
        trellis_(s.code),
        fast_(trellis_, s.pattern, make_frame_shape(s.code, s.pattern, s.frame_bits, s.term),
              s.term, wrap_stages) {
    for (int t = 0; t < threads_; ++t) scratch_.push_back(fast_.make_scratch(run_));
  }

  std::size_t scratch_bytes() const override {
    return static_cast<std::size_t>(threads_) * fast_.scratch_bytes(run_);
  }
  std::string kernel() const override { return trellis_.describe(); }

  template <class Input>
  void run(std::size_t frames, batch_span<std::uint8_t> bits, Input input, const stop_token& stop) {
    for_each_group(frames, run_, threads_, [&](std::size_t first, std::size_t count, int t) {
      fast_.decode_run(
          count,
          [&](std::size_t f, std::vector<std::int8_t>& buffer) { return input(first + f, buffer); },
          [&](std::size_t f) { return bits.frame(first + f); },
          scratch_[static_cast<std::size_t>(t)], stop);
    });
  }

 private:
  int threads_;
  std::size_t run_;  // frames per task
  fast_trellis trellis_;
  fast_frame_decoder fast_;            // refers to trellis_
  std::vector<fast_scratch> scratch_;  // one per thread
};

class tiled_engine final : public int8_engine<tiled_engine> {
 public:
  tiled_engine(const cpu_engine_setup& s, const tile_shape& tile)
      : int8_engine(s.llr_scale), threads_(s.threads), frame_(static_cast<std::size_t>(s.threads)) {
    for (int t = 0; t < threads_; ++t)
      decoders_.emplace_back(s.code, s.pattern, s.frame_bits, s.term, tile);
    // Per thread: the tile's path-metric decisions and LLRs, the frame's depunctured LLRs in
    // doubles and its decided stage bits, and one frame made int8 (float and hard input).
    const frame_shape shape = decoders_.front().shape();
    const auto beta = static_cast<std::size_t>(s.code.beta());
    bytes_ =
        static_cast<std::size_t>(threads_) * (tile.stages() * (s.code.states() + 8 * beta) +
                                              shape.stages * (1 + 8 * beta) + shape.coded_bits);
  }

  std::size_t scratch_bytes() const override { return bytes_; }

  template <class Input>
  void run(std::size_t frames, batch_span<std::uint8_t> bits, Input input, const stop_token& stop) {
    for_each_frame(frames, threads_, [&](std::size_t f, int t) {
      const auto thread = static_cast<std::size_t>(t);
      decoders_[thread].decode(input(f, frame_[thread]), bits.frame(f), stop);
    });
  }

 private:
  int threads_;
  std::vector<tiled_decoder> decoders_;          // one per thread
  std::vector<std::vector<std::int8_t>> frame_;  // one per thread, sized on first use
  std::size_t bytes_ = 0;
};

}  // namespace

std::unique_ptr<cpu_engine> make_reference_engine(const cpu_engine_setup& setup,
                                                  const reference_options& options) {
  return std::make_unique<reference_engine>(setup, options);
}

std::unique_ptr<cpu_engine> make_fast_engine(const cpu_engine_setup& setup, std::size_t wrap_stages,
                                             std::size_t run) {
  return std::make_unique<fast_engine>(setup, wrap_stages, run);
}

std::unique_ptr<cpu_engine> make_tiled_engine(const cpu_engine_setup& setup,
                                              const tile_shape& tile) {
  return std::make_unique<tiled_engine>(setup, tile);
}

}  // namespace gpufec::conv::detail
