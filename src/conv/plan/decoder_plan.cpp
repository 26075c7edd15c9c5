// decoder_plan: checks the description, resolves the backend, the decoder, the threads and the
// tile, makes the engine that executes them (the CPU's, cpu/engine.hpp, or the CUDA one) after
// checking what it will hold, and checks every batch before handing it over.
#include "gpufec/conv/decoder.hpp"

#include <omp.h>

#include <algorithm>

#include "conv/cpu/engine.hpp"
#include "conv/cpu/fast_decoder.hpp"
#include "conv/cpu/frame_quantizer.hpp"
#include "conv/cpu/frame_tasks.hpp"
#include "conv/model/llr_input.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/page_locked.hpp"

namespace gpufec::conv {

double auto_llr_scale(std::span<const float> llrs) {
  const auto scan = detail::scan_llrs(llrs.data(), llrs.size());
  if (scan.first_not_finite < llrs.size())
    throw invalid_argument(
        detail::not_finite_message(llrs[scan.first_not_finite], scan.first_not_finite));
  return detail::auto_scale_of_sum(scan.sum_abs, llrs.size());
}

void quantize_llrs(std::span<const float> llrs, double scale, std::span<std::int8_t> q) {
  require(q.size() == llrs.size(), "quantize_llrs: ", llrs.size(), " LLRs but room for ", q.size());
  require(std::isfinite(scale) && scale > 0, "the LLR scale must be positive (llr_scale = ", scale,
          ")");
  detail::quantize_llrs(llrs.data(), llrs.size(), static_cast<float>(scale), q.data());
}

backend_choice choose_backend(const decoder_options& options, backend where) {
  const bool tiled =
      options.decoder == decoder_kind::automatic || options.decoder == decoder_kind::tiled;
  if (where == backend::cpu) return {backend::cpu, {}};
  if (where == backend::cuda) {
    (void)resolve_backend(backend::cuda);  // a machine that cannot run CUDA says so first
    require(tiled, "decoder ", name_of(options.decoder),
            " runs on the CPU only: the CUDA conv decoder is the tiled decoder (decoder auto or "
            "tiled), or use backend cpu");
    return {backend::cuda, {}};
  }
  if (!tiled) return {backend::cpu, cat("decoder ", name_of(options.decoder), " runs on the CPU")};
  if (options.wrap_stages)
    return {backend::cpu,
            "a wrap-around (wrap_stages) belongs to the CPU's full-traceback decoders"};
  backend_choice device = choose_device_backend(where);
  if (device.where == backend::cuda) device.reason += ", and the tiled decoder runs there";
  return device;
}

namespace detail {

// A plan's engine: the CPU engine (cpu/engine.hpp) or the CUDA one, and the CUDA plan's staging of
// host batches.
class plan_engine {
 public:
  std::unique_ptr<cpu_engine> cpu;
  std::unique_ptr<tiled_device_engine> device;  // CUDA
  std::size_t coded = 0;                        // LLRs per frame
  // CUDA, host batches made int8 (float, hard): page-locked, so that the engine copies them
  // straight over the link, up to kMostLockedBatch bytes; a larger batch in ordinary memory,
  // which the engine stages (locking gigabytes would take them from the rest of the machine).
  static constexpr std::size_t kMostLockedBatch = std::size_t{256} << 20;
  page_locked_vector<std::int8_t> locked_batch;
  std::vector<std::int8_t> large_batch;

  // Room for `bytes` of int8 LLRs, per the rule above.
  std::int8_t* int8_batch(std::size_t bytes) {
    if (bytes > kMostLockedBatch) {
      large_batch.resize(bytes);
      return large_batch.data();
    }
    if (locked_batch.size() < bytes) locked_batch.resize(bytes);
    return locked_batch.data();
  }
};

}  // namespace detail

decoder_plan::decoder_plan(const conv_code& code, const puncture_pattern& pattern,
                           std::size_t frame_bits, termination term, const decoder_options& options,
                           backend where, std::size_t max_batch)
    : decoder_plan(code, pattern, frame_bits, term, options, where, max_batch, true) {}

plan_summary decoder_plan::preview(const conv_code& code, const puncture_pattern& pattern,
                                   std::size_t frame_bits, termination term,
                                   const decoder_options& options, backend where,
                                   std::size_t max_batch) {
  return decoder_plan(code, pattern, frame_bits, term, options, where, max_batch, false).summary_;
}

decoder_plan::decoder_plan(const conv_code& code, const puncture_pattern& pattern,
                           std::size_t frame_bits, termination term, const decoder_options& options,
                           backend where, std::size_t max_batch, bool make_engines)
    : code_(code), pattern_(pattern), term_(term), options_(options) {
  require(max_batch >= 1, "max_batch = ", max_batch, " must be at least 1");
  require(options.threads >= 0, "threads = ", options.threads, " must be 0 (all) or positive");
  require(options.llr_scale == 0 || (std::isfinite(options.llr_scale) && options.llr_scale > 0),
          "llr_scale = ", options.llr_scale, " must be 0 (per frame) or positive");
  const backend_choice choice = choose_backend(options, where);
  const bool on_cuda = choice.where == backend::cuda;
  summary_.backend_reason = choice.reason;
  const bool tiled = on_cuda || options.decoder == decoder_kind::tiled;
  require(tiled || options.tile == tile_shape{},
          "a tile shape applies to the tiled decoder only (decoder = ", name_of(options.decoder),
          ")");
  require(!tiled || options.wrap_stages == 0, "wrap_stages = ", options.wrap_stages,
          ": the tiled decoder wraps its tiles around a tail-biting frame (the overlaps v1 and v2 "
          "take the wrap-around's place)");
  summary_.where = on_cuda ? backend::cuda : backend::cpu;
  summary_.shape = make_frame_shape(code_, pattern_, frame_bits, term_);
  summary_.max_batch = max_batch;
  summary_.threads = options.threads ? options.threads : omp_get_max_threads();
  if (term_ == termination::tail_biting && !tiled)
    summary_.wrap_stages =
        options.wrap_stages ? options.wrap_stages : default_traceback_depth(code_, pattern_);

  engine_ = std::make_unique<detail::plan_engine>();
  engine_->coded = summary_.shape.coded_bits;
  bool use_fast = options.decoder == decoder_kind::fast;
  if (options.decoder == decoder_kind::automatic)
    use_fast = detail::acs_shape(code_.K()).lanes >= 2;
  // A CPU decoder takes a frame (the fast one a run of frames) per thread: no more threads, and
  // no more per-thread scratch, than a batch of max_batch frames can use. One long frame is one
  // thread's work with one frame's scratch, not a copy per thread.
  if (!on_cuda) {
    const std::size_t tasks =
        use_fast && !tiled ? (max_batch + detail::kFastRun - 1) / detail::kFastRun : max_batch;
    summary_.threads =
        static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(summary_.threads), tasks));
  }
  if (on_cuda) {
    summary_.decoder = decoder_kind::tiled;
    // No shape given: the plan takes the default of the kernel it runs.
    const detail::tiled_setup setup{code_,          pattern_,         summary_.shape,
                                    term_,          options.tile,     max_batch,
                                    options.kernel, options.fit_tile, options.cuda_test};
    const char* who = "the CUDA conv decoder";
    if (make_engines) engine_->device = detail::make_device_engine(setup, who);
    const detail::cuda_plan plan =
        make_engines ? engine_->device->plan() : detail::plan_device_engine(setup, who);
    summary_.tile = plan.tile;
    summary_.kernel = plan.describe(code_.to_string());
    summary_.scratch_bytes = max_batch * summary_.shape.coded_bits + plan.device_bytes;
    summary_.preferred_batch = plan.preferred_batch(max_batch);
    return;
  }
  const detail::cpu_engine_setup setup{code_, pattern_,         frame_bits,
                                       term_, summary_.threads, options.llr_scale};
  if (tiled) {
    summary_.decoder = decoder_kind::tiled;
    summary_.tile = options.tile.f ? options.tile : default_tile_shape(code_, pattern_);
    engine_->cpu = detail::make_tiled_engine(setup, summary_.tile);
  } else if (use_fast) {
    summary_.decoder = decoder_kind::fast;
    engine_->cpu = detail::make_fast_engine(setup, summary_.wrap_stages,
                                            std::min(max_batch, detail::kFastRun));
    summary_.kernel = engine_->cpu->kernel();
  } else {
    summary_.decoder = decoder_kind::reference;
    reference_options ro;
    ro.metric = options.reference_metric;
    ro.wrap_stages = summary_.wrap_stages;
    engine_->cpu = detail::make_reference_engine(setup, ro);
  }
  // Made cheaply (the frame-sized buffers come with the first decode): checked before any is.
  summary_.scratch_bytes = engine_->cpu->scratch_bytes();
  summary_.preferred_batch =
      std::min(max_batch, static_cast<std::size_t>(summary_.threads) *
                              (summary_.decoder == decoder_kind::fast ? detail::kFastRun : 1));
  require_memory();
}

// What a CPU plan's decoders will hold (summary_.scratch_bytes), checked before any of it is
// made: an impossible request fails at the plan, naming its need and the ways out.
void decoder_plan::require_memory() const {
  const std::size_t available = available_host_memory();
  const auto threads = static_cast<std::size_t>(summary_.threads);
  require<out_of_memory>(
      summary_.scratch_bytes <= available, "the CPU conv decoder (", name_of(summary_.decoder),
      ") needs ", bytes_text(summary_.scratch_bytes), " for ", threads, " frame",
      threads == 1 ? "" : "s", " of ", summary_.shape.stages, " stages at once, but ",
      bytes_text(available), " of memory is available",
      threads > 1 ? "; fewer threads (--threads 1) need less" : "",
      summary_.decoder == decoder_kind::tiled ? "" : "; the tiled decoder (--decoder tiled) less",
      "; shorter frames less");
}

decoder_plan::~decoder_plan() = default;
decoder_plan::decoder_plan(decoder_plan&&) noexcept = default;
decoder_plan& decoder_plan::operator=(decoder_plan&&) noexcept = default;

std::string decoder_plan::describe() const {
  const frame_shape& s = summary_.shape;
  std::string out =
      cat("conv decoder plan (", gpufec::to_string(summary_.where),
          summary_.backend_reason.empty() ? "" : ", auto: " + summary_.backend_reason, ")\n");
  out += cat("  code: ", code_.to_string(), ", mother rate 1/", code_.beta());
  if (pattern_.punctures())
    out += cat(", punctured by ", pattern_.to_string(), " (period ", pattern_.period(),
               ") to rate ", pattern_.rate_string());
  out += cat("\n  frame: ", s.info_bits, " information bits, ", name_of(term_), ": ", s.stages,
             " trellis stages, ", s.coded_bits, " coded bits");
  if (summary_.wrap_stages)
    out += cat(", wrap-around ", summary_.wrap_stages, " + ", s.stages, " + ", summary_.wrap_stages,
               " stages");
  if (catastrophic(code_, pattern_))
    out +=
        "\n  warning: the code is catastrophic under this pattern (a cycle of branches sends "
        "only zeros): decoding from an unknown state, as tiles and streams do, may fail "
        "without noise";
  out += "\n  decoder: ";
  const std::string quantizer =
      "float LLRs -> int8 " + (options_.llr_scale > 0
                                   ? cat("x ", options_.llr_scale)
                                   : std::string("per frame, mean |LLR| -> 31.75"));
  if (summary_.decoder == decoder_kind::fast) {
    out += cat("fast (", summary_.kernel, "); ", quantizer);
  } else if (summary_.decoder == decoder_kind::tiled) {
    const tile_shape& t = summary_.tile;
    out += summary_.where == backend::cuda
               ? cat("tiled (CUDA kernel: ", summary_.kernel, "; ", t.to_string(), ", ")
               : cat("tiled (the CUDA kernel's algorithm on the CPU: ", t.to_string(), ", ");
    out += t.f0 ? cat("parallel traceback by subframes of ", t.f0, " stages")
                : std::string("one traceback per tile");
    out += cat(", ", (s.stages + t.f - 1) / t.f, " tiles per frame); ", quantizer);
  } else {
    out += cat("reference (", name_of(options_.reference_metric), " path metrics, full traceback)");
  }
  out += cat("\n  threads: ", summary_.threads, ", scratch ", summary_.scratch_bytes,
             " bytes, max batch ", summary_.max_batch, ", preferred batch ",
             summary_.preferred_batch, "\n");
  return out;
}

namespace {

// `device`: the batches must both be in device memory (the device path), else both on the host.
template <class T>
void check_batches(const decoder_plan& plan, batch_view<T> received, batch_span<std::uint8_t> bits,
                   const char* what, bool device = false) {
  require(received.is_uniform(), "conv decode: the received batch must be uniform (every frame ",
          plan.shape().coded_bits, " ", what, ")");
  if (device) {
    require(plan.summary().where == backend::cuda,
            "conv decode: batches in device memory need a CUDA plan (this one runs on the CPU)");
    require(received.on_device() && bits.on_device(),
            "conv decode: the device path takes LLRs and bits both in device memory");
  } else {
    require(!received.on_device() && !bits.on_device(),
            "conv decode: batches in device memory need a CUDA plan and both the ", what,
            " and the bits in device memory");
    require(received.frames() <= plan.summary().max_batch, "conv decode: ", received.frames(),
            " frames exceed the plan's max_batch = ", plan.summary().max_batch);
  }
  if (received.frames()) {
    detail::require_frame_length(received.stride, plan.shape(), plan.term(), plan.pattern(), what);
    detail::require_bits_room(bits.stride, plan.shape());
  }
  require(bits.frames() == received.frames(), "conv decode: ", received.frames(),
          " frames received but room for ", bits.frames());
}

// CUDA, a checked host batch of float LLRs or hard bits: made int8 by make(f, q, threads) straight
// into the engine's batch, frames over the threads, or, with fewer frames than threads (one long
// stream), each frame over all of them; then copied, decoded and copied back by the engine.
template <class MakeInt8>
void run_device_batch(detail::plan_engine& e, int threads, std::size_t frames,
                      batch_span<std::uint8_t> bits, MakeInt8 make) {
  if (!frames) return;
  const std::size_t coded = e.coded;
  std::int8_t* batch = e.int8_batch(frames * coded);
  if (frames >= static_cast<std::size_t>(threads)) {
    detail::for_each_frame(frames, threads,
                           [&](std::size_t f, int) { make(f, batch + f * coded, 1); });
  } else {
    for (std::size_t f = 0; f < frames; ++f) {
      try {
        make(f, batch + f * coded, threads);
      } catch (const std::exception& error) {
        throw invalid_argument(cat("frame ", f, ": ", error.what()));
      }
    }
  }
  e.device->decode_host(batch, frames, bits.data);
}

}  // namespace

void decoder_plan::decode(batch_view<float> received, batch_span<std::uint8_t> bits,
                          cuda_stream stream) {
  check_batches(*this, received, bits, "LLRs", true);
  if (received.frames())
    engine_->device->decode_device_float(received.data, received.frames(), options_.llr_scale,
                                         bits.data, stream);
}

void decoder_plan::decode_hard(batch_view<std::uint8_t> received, batch_span<std::uint8_t> bits,
                               cuda_stream stream) {
  check_batches(*this, received, bits, "hard bits", true);
  if (received.frames())
    engine_->device->decode_device_hard(received.data, received.frames(), bits.data, stream);
}

void decoder_plan::decode(batch_view<float> received, batch_span<std::uint8_t> bits,
                          const stop_token& stop) {
  if (received.on_device() || bits.on_device()) return decode(received, bits, nullptr);
  check_batches(*this, received, bits, "LLRs");
  const double fixed_scale = options_.llr_scale;
  if (engine_->device)
    return run_device_batch(*engine_, summary_.threads, received.frames(), bits,
                            [&](std::size_t f, std::int8_t* q, int threads) {
                              detail::quantize_frame(received.frame(f), fixed_scale, q, threads);
                            });
  engine_->cpu->decode(received, bits, stop);
}

void decoder_plan::decode(batch_view<std::int8_t> received, batch_span<std::uint8_t> bits,
                          cuda_stream stream) {
  check_batches(*this, received, bits, "LLRs", true);
  if (received.frames())
    engine_->device->decode_device(received.data, received.frames(), bits.data, stream);
}

void decoder_plan::decode(batch_view<std::int8_t> received, batch_span<std::uint8_t> bits,
                          const stop_token& stop) {
  if (received.on_device() || bits.on_device()) {
    decode(received, bits, nullptr);
    engine_->device->wait(nullptr);
    return;
  }
  check_batches(*this, received, bits, "LLRs");
  if (engine_->device) {  // already int8 and contiguous: no staging copy on the host
    if (received.frames())
      engine_->device->decode_host(received.data, received.frames(), bits.data);
    return;
  }
  engine_->cpu->decode(received, bits, stop);
}

void decoder_plan::decode_hard(batch_view<std::uint8_t> received, batch_span<std::uint8_t> bits,
                               const stop_token& stop) {
  if (received.on_device() || bits.on_device()) {
    decode_hard(received, bits, nullptr);
    engine_->device->wait(nullptr);
    return;
  }
  check_batches(*this, received, bits, "hard bits");
  if (engine_->device)
    return run_device_batch(*engine_, summary_.threads, received.frames(), bits,
                            [&](std::size_t f, std::int8_t* q, int threads) {
                              detail::harden_frame(received.frame(f), q, threads);
                            });
  engine_->cpu->decode_hard(received, bits, stop);
}

}  // namespace gpufec::conv
