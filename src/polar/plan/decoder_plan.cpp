// decoder_plan: validates the options against the code, picks the reference or the SIMD engine and
// the thread count, and checks every call's shapes and LLRs before an engine sees them.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "polar/cpu/engine.hpp"
#include "polar/plan/cuda_engine.hpp"

namespace gpufec::polar {

namespace detail {

std::size_t reference_scratch_per_thread(const polar_code& code, const decoder_options& options) {
  const std::size_t N = code.N(), m = code.m();
  if (options.decoder == decoder_kind::sc) return 2 * N * sizeof(float) + N * sizeof(float) + 2 * N;
  return 2 * (m + 1) * N * sizeof(float) + 2 * N;
}

std::size_t fast_scratch_per_thread(const polar_code& code, const decoder_options& options,
                                    std::size_t lanes) {
  const std::size_t N = code.N(), m = code.m();
  if (options.decoder == decoder_kind::sc) return 3 * N * lanes * sizeof(float);  // alpha, beta
  return (2 * (m + 1) + 3) * N * lanes * sizeof(float);  // L, R, u^, x^, check
}

}  // namespace detail

namespace {

// The automatic choice keeps the fast path while one thread's scratch stays below this.
constexpr std::size_t fast_scratch_limit = std::size_t{256} << 20;

// One call's request: `llr`'s frames into `out`, hard bits or soft values.
template <class T>
detail::decode_request request_for(batch_view<float> llr, batch_span<T> out,
                                   std::uint32_t* iterations, const stop_token* stop = nullptr) {
  detail::decode_request r;
  r.llr = llr.data;
  r.frames = llr.frames();
  if constexpr (std::is_same_v<T, float>) {
    r.soft = out.data;
    r.soft_stride = out.stride;
  } else {
    r.info_bits = out.data;
  }
  r.iterations = iterations;
  r.stop = stop && stop->possible() ? stop : nullptr;
  return r;
}

void validate(const polar_code& code, const decoder_options& o, std::size_t max_batch) {
  require(max_batch >= 1, "max_batch must be at least 1 (max_batch = ", max_batch, ")");
  require(o.threads >= 0, "threads must be >= 0, 0 meaning all (threads = ", o.threads, ")");
  if (o.decoder == decoder_kind::sc) {
    require(o.update == update_rule::sum_product || o.update == update_rule::min_sum,
            "the SC decoder's update rule is sp (exact f) or minsum (update = ", name_of(o.update),
            ")");
    require(o.output != output_kind::codeword_llrs,
            "the SC decoder has no codeword LLR output (output = ", name_of(o.output),
            "); use hard or info-llr");
    require(o.output != output_kind::info_llrs || !code.systematic(),
            "the SC decoder's info-llr output is for non-systematic codes (it gives the LLRs the "
            "u_A were decided on, not LLRs of x_A)");
    return;
  }
  require(o.iterations >= 1 && o.iterations <= 10000,
          "BP iterations must lie in [1, 10000] (iterations = ", o.iterations, ")");
  if (o.update == update_rule::scaled_min_sum)
    require(std::isfinite(o.scale) && o.scale > 0.0f && o.scale <= 1.0f,
            "the min-sum scale must lie in (0, 1] (scale = ", o.scale, ")");
}

// What the CUDA kernels can run (checked on every build, so the messages are testable without a
// device): the register kernel takes N in [8, 2048] and the min-sum rules; fp16 is that kernel's.
void validate_cuda(const polar_code& code, const decoder_options& o) {
  const bool min_sum = o.update == update_rule::min_sum || o.update == update_rule::scaled_min_sum;
  const bool registers_fit = code.N() >= 8 && code.N() <= 2048 && min_sum;
  if (o.precision == message_precision::fp16) {
    require(o.kernel != cuda_kernel::memory,
            "fp16 messages are the register kernel's (kernel = memory takes fp32)");
    require(min_sum, "fp16 BP messages take the min-sum rules (update = ", name_of(o.update),
            "): use minsum or scaled, or fp32");
    require(registers_fit, "fp16 BP messages need N in [8, 2048] (N = ", code.N(),
            "), the register kernel's range: use fp32");
  }
  if (o.kernel == cuda_kernel::registers) {
    require(min_sum, "the register BP kernel takes the min-sum rules (update = ", name_of(o.update),
            "): use kernel = memory or auto");
    require(registers_fit, "the register BP kernel needs N in [8, 2048] (N = ", code.N(),
            "): use kernel = memory or auto");
  }
}

}  // namespace

backend_choice choose_backend(const decoder_options& options, backend where) {
  if (where != backend::automatic) return {where, {}};
  if (options.precision != message_precision::fp32 || options.kernel != cuda_kernel::automatic)
    return {backend::cuda, "fp16 messages and kernel choices are CUDA's"};
  if (options.decoder != decoder_kind::bp) return {backend::cpu, "SC runs on the CPU only"};
  if (options.path != implementation::automatic)
    return {backend::cpu, cat("implementation ", name_of(options.path), " is a CPU path")};
  backend_choice device = choose_device_backend(where);
  if (device.where == backend::cuda) device.reason += ", and BP runs there";
  return device;
}

void decoder_plan::check(const polar_code& code, const decoder_options& options,
                         backend requested) {
  validate(code, options, 1);
  if (choose_backend(options, requested).where == backend::cuda) {
    require(options.decoder == decoder_kind::bp,
            "the CUDA polar decoder is BP (decoder = sc): plan SC on backend::cpu (--backend cpu)");
    require(options.path == implementation::automatic, "implementation ", name_of(options.path),
            " names a CPU path; a CUDA plan takes path = auto");
    validate_cuda(code, options);
    (void)cuda_factory<detail::cuda_bp_entry>("the CUDA polar BP decoder");
    return;
  }
  require(options.precision == message_precision::fp32,
          "fp16 messages are a CUDA BP option (precision = fp16 on the CPU): use backend::cuda");
  require(options.kernel == cuda_kernel::automatic,
          "the CUDA kernel choice (kernel = ", name_of(options.kernel),
          ") is a CUDA option: use backend::cuda or kernel = auto");
  require(options.path != implementation::fast || options.decoder != decoder_kind::sc ||
              options.output != output_kind::info_llrs,
          "the fast SC decoder gives hard outputs only (output = ", name_of(options.output),
          "); use the reference path");
}

decoder_plan::decoder_plan(const polar_code& code, const decoder_options& options,
                           backend requested, std::size_t max_batch)
    : code_(code), options_(options) {
  validate(code_, options_, max_batch);
  check(code_, options_, requested);
  summary_.max_batch = max_batch;
  const auto [where, reason] = choose_backend(options_, requested);
  summary_.backend_reason = reason;
  if (where == backend::cuda) {
    auto engine =
        detail::make_bp_device_engine(code_, options_, max_batch, "the CUDA polar BP decoder");
    device_ = engine.get();
    summary_.where = backend::cuda;
    summary_.path = implementation::fast;
    summary_.threads = 1;
    summary_.kernel = engine->describe();
    summary_.scratch_bytes = engine->device_bytes();
    summary_.preferred_batch = engine->plan().chunk_frames;
    engine_ = std::move(engine);
    return;
  }
  summary_.where = backend::cpu;

  const detail::simd_target target = detail::fast_simd_target();
  implementation path = options_.path;
  // SC's soft output is the leaf LLRs, which the fast SC skips (rate-0/rate-1 nodes).
  const bool fast_possible =
      !(options_.decoder == decoder_kind::sc && options_.output == output_kind::info_llrs);
  if (path == implementation::automatic)
    path = fast_possible && detail::fast_scratch_per_thread(code_, options_, target.lanes) <=
                                fast_scratch_limit
               ? implementation::fast
               : implementation::reference;
  summary_.path = path;

  const int available = options_.threads ? options_.threads : omp_get_max_threads();
  const std::size_t per_thread_items =
      path == implementation::fast ? (max_batch + target.lanes - 1) / target.lanes : max_batch;
  summary_.threads = static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(available), per_thread_items));
  if (path == implementation::fast) {
    summary_.simd_target = target.name;
    summary_.lanes = target.lanes;
    engine_ = options_.decoder == decoder_kind::sc
                  ? detail::make_sc_fast(code_, options_, summary_.threads, summary_)
                  : detail::make_bp_fast(code_, options_, summary_.threads);
  } else {
    engine_ = options_.decoder == decoder_kind::sc
                  ? detail::make_sc_reference(code_, options_, summary_.threads)
                  : detail::make_bp_reference(code_, options_, summary_.threads);
  }
  summary_.scratch_bytes = engine_->scratch_bytes();
  summary_.preferred_batch =
      std::min(max_batch, static_cast<std::size_t>(summary_.threads) * summary_.lanes);
}

decoder_plan::~decoder_plan() = default;
decoder_plan::decoder_plan(decoder_plan&&) noexcept = default;
decoder_plan& decoder_plan::operator=(decoder_plan&&) noexcept = default;

std::string decoder_plan::describe() const {
  std::ostringstream os;
  const auto& o = options_;
  const auto& s = summary_;
  os << code_.describe() << "\n  decoder " << name_of(o.decoder) << ", update "
     << name_of(o.update);
  if (o.update == update_rule::scaled_min_sum) os << " (scale " << o.scale << ")";
  if (o.decoder == decoder_kind::bp)
    os << ", " << o.iterations << " iterations"
       << (o.early_stop ? " at most (G-matrix early stop)" : "") << ", schedule "
       << name_of(o.schedule);
  os << ", output " << name_of(o.output) << "\n  backend " << to_string(s.where)
     << (s.backend_reason.empty() ? "" : " (auto: " + s.backend_reason + ")") << ", ";
  if (s.where == backend::cuda)
    return os.str() + s.kernel + ", max batch " + std::to_string(s.max_batch) +
           ", preferred batch " + std::to_string(s.preferred_batch) + ", device memory " +
           std::to_string(s.scratch_bytes) + " B\n";
  os << name_of(s.path) << " path";
  if (s.path == implementation::fast)
    os << " (" << s.simd_target << ", " << s.lanes << " codewords per vector)";
  os << ", " << s.threads << " thread" << (s.threads == 1 ? "" : "s") << ", max batch "
     << s.max_batch << ", preferred batch " << s.preferred_batch << ", scratch " << s.scratch_bytes
     << " B\n";
  if (s.path == implementation::fast && o.decoder == decoder_kind::sc)
    os << "  SC tree: " << s.sc_rate0_nodes << " rate-0 nodes, " << s.sc_rate1_nodes
       << " rate-1 nodes, " << s.sc_leaves << " single-bit leaves\n";
  return os.str();
}

void decoder_plan::check_input(batch_view<float> llr, std::size_t out_frames,
                               std::size_t out_stride, std::size_t iteration_entries) const {
  const std::size_t N = code_.N();
  require(!llr.on_device(), "polar decode: host batches (the LLR batch is in device memory)");
  require(llr.is_uniform(), "polar LLR batches must be uniform (every frame N = ", N, " values)");
  require(llr.stride == N, "LLR frames must have N = ", N, " values (stride = ", llr.stride, ")");
  require(llr.frames() <= summary_.max_batch, "a batch of ", llr.frames(),
          " frames exceeds the plan's max_batch ", summary_.max_batch);
  require(out_frames == llr.frames(), "the output has room for ", out_frames,
          " frames, the input has ", llr.frames());
  const std::size_t expected =
      options_.output == output_kind::codeword_llrs ? N : static_cast<std::size_t>(code_.K());
  require(out_stride == expected, "output frames must have ", expected, " values (",
          name_of(options_.output), " output; stride = ", out_stride, ")");
  require(iteration_entries == 0 || iteration_entries == llr.frames(), "iterations has ",
          iteration_entries, " entries for ", llr.frames(), " frames (give none or one per frame)");
  // Finite: an exponent field other than all ones; on the bits, a loop the compiler vectorizes,
  // over the frames on the plan's threads (a simulation checks every LLR it decodes); where one
  // is not, the message's loop finds the first.
  const auto values = static_cast<std::int64_t>(llr.frames() * N);
  std::uint32_t all_ones = 0;
#pragma omp parallel for simd schedule(static) reduction(| : all_ones) num_threads(summary_.threads)
  for (std::int64_t j = 0; j < values; ++j) {
    std::uint32_t b;
    std::memcpy(&b, llr.data + j, sizeof b);
    all_ones |= static_cast<std::uint32_t>((b & 0x7F800000u) == 0x7F800000u);
  }
  if (!all_ones) return;
  for (std::size_t f = 0; f < llr.frames(); ++f) {
    const float* v = llr.data + f * N;
    for (std::size_t j = 0; j < N; ++j)
      require(std::isfinite(v[j]), "LLR ", j, " of frame ", f, " is ", v[j],
              " (LLRs must be finite numbers)");
  }
}

void decoder_plan::check_device(batch_view<float> llr, std::size_t out_frames,
                                std::size_t out_stride) const {
  const std::size_t N = code_.N();
  require(device_ != nullptr,
          "polar decode: batches in device memory need a CUDA plan (this one runs on the CPU)");
  require(llr.is_uniform(), "polar LLR batches must be uniform (every frame N = ", N, " values)");
  require(llr.stride == N, "LLR frames must have N = ", N, " values (stride = ", llr.stride, ")");
  require(out_frames == llr.frames(), "the output has room for ", out_frames,
          " frames, the input has ", llr.frames());
  const std::size_t expected =
      options_.output == output_kind::codeword_llrs ? N : static_cast<std::size_t>(code_.K());
  require(out_stride == expected, "output frames must have ", expected, " values (",
          name_of(options_.output), " output; stride = ", out_stride, ")");
}

void decoder_plan::decode(batch_view<float> llr, batch_span<std::uint8_t> info_bits,
                          cuda_stream stream, std::uint32_t* iterations) {
  require(options_.output == output_kind::hard, "this plan's output is ", name_of(options_.output),
          ": call decode_soft");
  require(llr.on_device() && info_bits.on_device(),
          "polar decode on a stream: the LLRs and the bits must both be in device memory");
  check_device(llr, info_bits.frames(), info_bits.stride);
  device_->decode_device(request_for(llr, info_bits, iterations), stream);
}

void decoder_plan::decode_soft(batch_view<float> llr, batch_span<float> soft, cuda_stream stream,
                               std::uint32_t* iterations) {
  require(options_.output != output_kind::hard,
          "this plan's output is hard: call decode (or plan with info-llr or codeword-llr)");
  require(llr.on_device() && soft.on_device(),
          "polar decode_soft on a stream: the LLRs and the outputs must both be in device memory");
  check_device(llr, soft.frames(), soft.stride);
  device_->decode_device(request_for(llr, soft, iterations), stream);
}

void decoder_plan::wait(cuda_stream stream, const stop_token& stop) {
  if (device_) device_->wait(stream, &stop);
}

std::uint64_t decoder_plan::device_iterations() {
  return device_ ? device_->device_iterations() : 0;
}

double decoder_plan::time_device(batch_view<float> llr, batch_span<std::uint8_t> info_bits,
                                 std::span<std::uint32_t> iterations, int repeats) {
  require(device_ != nullptr, "time_device needs a CUDA plan (this one runs on the CPU)");
  require(options_.output == output_kind::hard,
          "time_device times hard outputs (output = ", name_of(options_.output), ")");
  require(repeats >= 1, "repeats must be at least 1 (repeats = ", repeats, ")");
  require(!info_bits.on_device(), "time_device takes host batches");
  check_input(llr, info_bits.frames(), info_bits.stride, iterations.size());
  return device_->time_device(
      request_for(llr, info_bits, iterations.empty() ? nullptr : iterations.data()), repeats);
}

void decoder_plan::decode(batch_view<float> llr, batch_span<std::uint8_t> info_bits,
                          std::span<std::uint32_t> iterations, const stop_token& stop) {
  require(options_.output == output_kind::hard, "this plan's output is ", name_of(options_.output),
          ": call decode_soft");
  if (device_ && llr.on_device() && info_bits.on_device()) {
    require(iterations.empty(),
            "iterations of a device batch: use decode(..., stream, iterations)");
    decode(llr, info_bits, cuda_stream{}, nullptr);
    device_->wait(cuda_stream{}, &stop);
    return;
  }
  require(!info_bits.on_device(), "polar decode: host batches (the bits are in device memory)");
  check_input(llr, info_bits.frames(), info_bits.stride, iterations.size());
  engine_->decode(
      request_for(llr, info_bits, iterations.empty() ? nullptr : iterations.data(), &stop));
}

void decoder_plan::decode_soft(batch_view<float> llr, batch_span<float> soft,
                               std::span<std::uint32_t> iterations, const stop_token& stop) {
  require(options_.output != output_kind::hard,
          "this plan's output is hard: call decode (or plan with info-llr or codeword-llr)");
  if (device_ && llr.on_device() && soft.on_device()) {
    require(iterations.empty(), "iterations of a device batch: use decode_soft(..., stream, ...)");
    decode_soft(llr, soft, cuda_stream{}, nullptr);
    device_->wait(cuda_stream{}, &stop);
    return;
  }
  require(!soft.on_device(), "polar decode_soft: host batches (the outputs are in device memory)");
  check_input(llr, soft.frames(), soft.stride, iterations.size());
  engine_->decode(request_for(llr, soft, iterations.empty() ? nullptr : iterations.data(), &stop));
}

}  // namespace gpufec::polar
