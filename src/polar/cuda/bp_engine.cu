// The CUDA BP engine: chooses the kernel's layout and block shape from the device at
// plan time, owns the device buffers, and runs host batches (chunked, copies overlapped on two
// streams through page-locked buffers) and device batches (on the caller's stream).
//
// Kernels: the register kernel (bp_register_kernel.cuh: N / 8 threads per codeword, messages in
// registers, every third column in shared memory; min-sum rules, N in [8, 2048], fp32 or fp16)
// where options.kernel allows it, else the memory kernel (bp_kernel.cuh). Register kernel shape:
// every number of slots per block (up to 256 threads) is scored by the occupancy API, most resident
// codewords first, then the fewest slots per block (slots of a block iterate in lockstep).
// Memory kernel: a codeword needs bp_slot_bytes(N, m) bytes of messages and decisions. When
// that (plus the block header) fits the block's opt-in shared memory, the messages live in shared
// memory, and every (threads per codeword T, codewords per block) pair that fits is scored by the
// occupancy API: the most resident threads per SM, then the most resident codewords. Otherwise
// (N beyond ~2^11 in fp32) the regions live in global memory, one per resident slot, T = the
// largest block, as many slots as a wave holds and half the free memory allows.
#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "common/cuda/device_buffer.cuh"
#include "common/cuda/occupancy.cuh"
#include "common/cuda/pinned_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "polar/cuda/kernels/bp_kernel.cuh"
#include "polar/cuda/kernels/bp_register_kernels.cuh"
#include "polar/cuda/launch_control.cuh"
#include "polar/plan/cuda_engine.hpp"

namespace gpufec::polar::detail {
namespace {

// Host batches move in chunks of about this many LLR bytes (at least 8 waves of codewords).
constexpr std::size_t chunk_llr_bytes = std::size_t{32} << 20;

struct stream_set {
  cuda::stream stream;
  cuda::device_buffer<float> llr, soft;
  cuda::device_buffer<std::uint8_t> bits;
  cuda::device_buffer<std::uint32_t> iterations;
  cuda::pinned_buffer in, out;        // LLRs; then bits, soft, iterations
  std::size_t first = 0, frames = 0;  // the chunk in flight
};

template <class Rule>
class cuda_bp_engine final : public bp_device_engine {
 public:
  cuda_bp_engine(const polar_code& code, const decoder_options& options, std::size_t max_batch,
                 Rule rule)
      : code_(code), options_(options), rule_(rule), max_batch_(max_batch) {
    const std::uint32_t N = code.N(), K = code.K(), m = code.m();
    const cuda::device_limits limits = cuda::current_device_limits();
    sm_count_ = limits.sm_count;
    soft_stride_ = options.output == output_kind::codeword_llrs ? N
                   : options.output == output_kind::info_llrs   ? K
                                                                : 0;
    const bool min_sum =
        options.update == update_rule::min_sum || options.update == update_rule::scaled_min_sum;
    registers_ = options.kernel == cuda_kernel::registers ||
                 options.precision == message_precision::fp16 ||
                 (options.kernel == cuda_kernel::automatic && min_sum && N >= 8 && N <= 2048);
    if (registers_)
      choose_register_shape(limits);
    else
      choose_memory_shape(limits, max_batch);
    set_up_buffers(limits, max_batch);
  }

  std::size_t scratch_bytes() const override { return device_bytes_; }
  std::size_t device_bytes() const override { return device_bytes_; }
  std::size_t chunk_frames() const override { return chunk_; }

  std::string describe() const override {
    const std::string chunks = cat("; host chunks of ", chunk_, " frames on 2 streams");
    const std::string refill =
        cat(", refill ", options_.refill == refill_policy::replace ? "replace" : "block");
    if (registers_) {
      return cat("CUDA BP register kernel (",
                 lanes_ == 2 ? "fp16, 2 codewords per register" : "fp32", "), ", code_.N() / 8,
                 " threads per codeword holding 8 nodes of every 3-stage group, ",
                 (code_.m() + 2) / 3 - 1, " boundary columns in shared memory (",
                 register_params_.region_bytes, " B per slot), ", registers_per_thread_,
                 " registers per thread (", spilled_bytes_, " B local), ", shape_.By,
                 " slots per block, ", cuda::to_string(shape_), ", grid ", grid_, refill, chunks);
    }
    return cat("CUDA BP memory kernel, messages in ", global_ ? "global" : "shared", " memory (",
               params_.slot_bytes, " B per codeword), ", params_.T, " threads per codeword, ",
               params_.slots, " codewords per block, ", cuda::to_string(shape_), ", grid ", grid_,
               refill, chunks);
  }

  // Without an iterations array, the frames' iterations are summed on the device (early
  // stopping; else each frame runs them all) for device_iterations().
  void decode_device(const decode_request& r, cuda_stream stream) override {
    if (r.iterations || r.frames == 0) return launch(r, 2, stream);
    if (!options_.early_stop) {
      tally_.add_all(r.frames, options_.iterations);
      return launch(r, 2, stream);
    }
    decode_request d = r;
    d.iterations = tally_.slots(r.frames);
    launch(d, 2, stream);
    tally_.add(r.frames, sm_count_, stream);
  }

  std::uint64_t device_iterations() override { return tally_.take(); }

  void wait(cuda_stream stream, const stop_token* stop) override {
    const in_flight launch{stream, counters_.get() + 2};
    stopper_.wait(stream, stop, std::span(&launch, 1));
  }

  // Chunk c runs on stream c mod 2: while one stream's kernel runs, the other's copies move and
  // the host stages the next chunk's LLRs into page-locked memory.
  void decode(const decode_request& r) override {
    const std::uint32_t N = code_.N();
    const std::size_t out_bytes =
        chunk_ * (soft_stride_ ? soft_stride_ * sizeof(float) : std::size_t{code_.K()}) +
        chunk_ * sizeof(std::uint32_t);
    for (auto& s : sets_) {
      s.in.reserve(chunk_ * N * sizeof(float));
      s.out.reserve(out_bytes);
      s.frames = 0;
    }
    std::size_t c = 0;
    for (std::size_t first = 0; first < r.frames; first += chunk_, ++c) {
      stream_set& s = sets_[c % 2];
      finish(s, r);
      if (r.stop_requested()) {  // between chunks: the chunk in flight ends early too
        finish(sets_[(c + 1) % 2], r);
        throw stopped();
      }
      const std::size_t n = std::min(chunk_, r.frames - first);
      std::memcpy(s.in.get(), r.llr + first * N, n * N * sizeof(float));
      GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.llr.get(), s.in.get(), n * N * sizeof(float),
                                        cudaMemcpyHostToDevice, s.stream));
      decode_request d;
      d.llr = s.llr.get();
      d.frames = n;
      d.info_bits = r.info_bits ? s.bits.get() : nullptr;
      d.soft = r.soft ? s.soft.get() : nullptr;
      d.soft_stride = soft_stride_;
      d.iterations = r.iterations ? s.iterations.get() : nullptr;
      launch(d, c % 2, s.stream);
      const std::size_t per = soft_stride_ ? soft_stride_ * sizeof(float) : code_.K();
      const std::size_t out = n * per;
      if (d.info_bits)
        GPUFEC_CUDA_CHECK(
            cudaMemcpyAsync(s.out.get(), d.info_bits, out, cudaMemcpyDeviceToHost, s.stream));
      if (d.soft)
        GPUFEC_CUDA_CHECK(
            cudaMemcpyAsync(s.out.get(), d.soft, out, cudaMemcpyDeviceToHost, s.stream));
      if (d.iterations)
        GPUFEC_CUDA_CHECK(cudaMemcpyAsync(s.out.get() + chunk_ * per, d.iterations,
                                          n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                          s.stream));
      s.first = first;
      s.frames = n;
    }
    for (auto& s : sets_) finish(s, r);
  }

  double time_device(const decode_request& host, int repeats) override {
    const std::uint32_t N = code_.N(), K = code_.K();
    cuda::device_buffer<float> llr(host.frames * N),
        soft(host.soft ? host.frames * soft_stride_ : 0);
    cuda::device_buffer<std::uint8_t> bits(host.info_bits ? host.frames * K : 0);
    cuda::device_buffer<std::uint32_t> iterations(host.iterations ? host.frames : 0);
    llr.upload(host.llr, host.frames * N);
    decode_request d = host;
    d.llr = llr.get();
    d.info_bits = bits.get();
    d.soft = soft.get();
    d.iterations = iterations.get();
    cudaStream_t stream = sets_[0].stream;
    launch(d, 0, stream);  // warm-up
    const cuda::event start(true), stop(true);
    std::vector<double> times;
    for (int rep = 0; rep < repeats; ++rep) {
      start.record(stream);
      launch(d, 0, stream);
      stop.record(stream);
      stop.synchronize();
      times.push_back(cuda::seconds_between(start, stop));
    }
    if (host.info_bits)
      GPUFEC_CUDA_CHECK(
          cudaMemcpy(host.info_bits, bits.get(), bits.bytes(), cudaMemcpyDeviceToHost));
    if (host.soft)
      GPUFEC_CUDA_CHECK(cudaMemcpy(host.soft, soft.get(), soft.bytes(), cudaMemcpyDeviceToHost));
    if (host.iterations)
      GPUFEC_CUDA_CHECK(cudaMemcpy(host.iterations, iterations.get(), iterations.bytes(),
                                   cudaMemcpyDeviceToHost));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

 private:
  void choose_register_shape(const cuda::device_limits& limits) {
    const std::uint32_t N = code_.N(), m = code_.m();
    const bool scaled = options_.update == update_rule::scaled_min_sum;
    const bool fp16 = options_.precision == message_precision::fp16;
    const bool left_first = options_.schedule == bp_schedule::lr_rl;
    register_kernel_ = fp16 ? register_kernel_fp16(scaled, static_cast<int>(m), left_first)
                            : register_kernel_fp32(scaled, static_cast<int>(m), left_first);
    require(register_kernel_ != nullptr, "no register BP kernel for N = ", N);
    lanes_ = fp16 ? 2 : 1;
    if (fp16) {
      const auto rule = lane_rules::fp16_min_sum<true>::make(options_.scale);
      static_assert(sizeof rule <= sizeof rule_argument_);
      std::memcpy(rule_argument_, &rule, sizeof rule);
    } else {
      const lane_rules::fp32_min_sum<true> rule{options_.scale};
      std::memcpy(rule_argument_, &rule, sizeof rule);
    }
    const unsigned T = N / 8;
    const unsigned region =
        bp_register_region_bytes(static_cast<int>(m), 4, lanes_);  // a float or a __half2
    long long best_codewords = 0;
    cudaFuncAttributes attributes{};
    GPUFEC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, register_kernel_));
    const unsigned most_threads = static_cast<unsigned>(attributes.maxThreadsPerBlock);
    for (unsigned slots = 1; T * slots <= most_threads; slots *= 2) {
      const std::size_t shared =
          bp_register_header_bytes(slots, lanes_, static_cast<int>(m)) + slots * region;
      if (shared > limits.shared_optin) break;
      cuda::allow_shared(register_kernel_, shared);
      const int blocks =
          cuda::resident_blocks(register_kernel_, static_cast<int>(T * slots), shared);
      const long long codewords = static_cast<long long>(blocks) * slots * lanes_;
      if (codewords > best_codewords) {
        best_codewords = codewords;
        shape_ = {static_cast<int>(T * slots), static_cast<int>(T), static_cast<int>(slots), shared,
                  blocks};
      }
    }
    registers_per_thread_ = attributes.numRegs;
    spilled_bytes_ = attributes.localSizeBytes;
    if (!shape_)
      throw out_of_memory(cat("the register BP kernel cannot be resident (N = ", N,
                              ", shared memory per block ", limits.shared_optin, " B)"));
    grid_ = static_cast<unsigned>(std::max<long long>(1, shape_.wave(sm_count_)));
    register_params_.K = code_.K();
    register_params_.header_bytes =
        bp_register_header_bytes(static_cast<unsigned>(shape_.By), lanes_, static_cast<int>(m));
    register_params_.region_bytes = region;
    register_params_.soft_stride = static_cast<unsigned>(soft_stride_);
    register_params_.soft_at_top =
        options_.output == output_kind::codeword_llrs || code_.systematic();
    register_params_.max_iterations = options_.iterations;
    register_params_.early_stop = options_.early_stop;
    register_params_.systematic = code_.systematic();
    register_params_.replace = options_.refill == refill_policy::replace;
    params_.slots = static_cast<unsigned>(shape_.By) * lanes_;  // codewords per block
  }

  void choose_memory_shape(const cuda::device_limits& limits, std::size_t max_batch) {
    const std::uint32_t N = code_.N(), K = code_.K(), m = code_.m();
    const decoder_options& options = options_;
    auto* kernel = &polar_bp_kernel<Rule>;
    const std::size_t slot_bytes = bp_slot_bytes(N, m);
    const unsigned most_threads =
        static_cast<unsigned>(std::min<std::size_t>(N / 2, limits.max_block_threads));
    // Shared layout: the (T, slots) pair keeping the most threads, then codewords, resident.
    long long best_threads = 0, best_codewords = 0;
    for (unsigned T = most_threads; T >= 1; T /= 2) {
      for (unsigned slots = 1; T * slots <= static_cast<unsigned>(limits.max_block_threads);
           slots *= 2) {
        if (T * slots < 32 && T * slots < N / 2) continue;  // at least a warp, where N allows
        const std::size_t shared = bp_header_bytes(slots) + slots * slot_bytes;
        if (shared > limits.shared_optin) break;
        cuda::allow_shared(kernel, shared);
        const int blocks = cuda::resident_blocks(kernel, static_cast<int>(T * slots), shared);
        const long long threads = static_cast<long long>(blocks) * T * slots;
        const long long codewords = static_cast<long long>(blocks) * slots;
        if (threads > best_threads || (threads == best_threads && codewords > best_codewords)) {
          best_threads = threads;
          best_codewords = codewords;
          shape_ = {static_cast<int>(T * slots), static_cast<int>(T), static_cast<int>(slots),
                    shared, blocks};
        }
      }
      if (T == 1) break;
    }
    params_.N = N;
    params_.K = K;
    params_.m = m;
    params_.slot_bytes = slot_bytes;
    if (!shape_) {  // global layout
      global_ = true;
      const std::size_t shared = bp_header_bytes(1);
      cuda::allow_shared(kernel, shared);
      for (unsigned T = most_threads;; T /= 2) {
        const int blocks = cuda::resident_blocks(kernel, static_cast<int>(T), shared);
        if (blocks > 0) {
          shape_ = {static_cast<int>(T), static_cast<int>(T), 1, shared, blocks};
          break;
        }
        require(T > 32, "the CUDA polar BP kernel cannot be resident with ", T, " threads");
      }
      const std::size_t affordable = limits.free_memory / 2 / slot_bytes;
      if (affordable == 0)
        throw out_of_memory(cat("the CUDA polar BP decoder (global layout) needs ", slot_bytes,
                                " bytes of device memory per codeword in flight (N = ", N,
                                "); the device has ", limits.free_memory, " bytes free"));
      grid_ = static_cast<unsigned>(
          std::min<std::size_t>({affordable, static_cast<std::size_t>(shape_.wave(sm_count_)),
                                 std::max<std::size_t>(max_batch, 1)}));
    } else {
      grid_ = static_cast<unsigned>(std::max<long long>(1, shape_.wave(sm_count_)));
    }
    params_.T = static_cast<unsigned>(shape_.Bx);
    params_.slots = static_cast<unsigned>(shape_.By);
    params_.header_bytes = bp_header_bytes(params_.slots);
    params_.max_iterations = options.iterations;
    params_.early_stop = options.early_stop;
    params_.systematic = code_.systematic();
    params_.left_first = options.schedule == bp_schedule::lr_rl;
    params_.replace = options.refill == refill_policy::replace;
    // Beyond the register kernel's lengths an iteration takes long enough (>= 24 stages of N / 2
    // butterflies) for a poll of the counter by one thread to cost nothing measurable; a codeword
    // of N = 2^20 at 10^4 iterations takes seconds.
    params_.poll_stop = N > 2048;
    params_.soft_stride = static_cast<unsigned>(soft_stride_);
    params_.soft_column =
        options.output == output_kind::codeword_llrs || code_.systematic() ? m : 0;
  }

  // Device memory: what the plan needs, checked against what is free before allocating.
  void set_up_buffers(const cuda::device_limits& limits, std::size_t max_batch) {
    const std::uint32_t N = code_.N(), K = code_.K();
    const std::size_t slot_bytes = params_.slot_bytes;
    const std::size_t resident = static_cast<std::size_t>(grid_) * params_.slots;
    chunk_ = std::min<std::size_t>(
        std::max<std::size_t>(max_batch, 1),
        std::max<std::size_t>(resident * 8, chunk_llr_bytes / (std::size_t{N} * sizeof(float))));
    const std::size_t per_frame = N * sizeof(float) + K + soft_stride_ * sizeof(float) + 4;
    const std::size_t needed = (global_ ? resident * slot_bytes : 0) + 2 * chunk_ * per_frame +
                               N * (1 + sizeof(std::int32_t)) + K * sizeof(std::uint32_t) +
                               3 * sizeof(unsigned long long);
    if (needed > limits.free_memory)
      throw out_of_memory(cat("the CUDA polar BP plan needs ", needed, " bytes of device memory (",
                              global_ ? "global message layout, " : "", "chunks of ", chunk_,
                              " frames); the device has ", limits.free_memory,
                              " bytes free: lower max_batch"));
    frozen_.resize(N);
    frozen_.upload(code_.frozen_mask().data(), N);
    info_.resize(K);
    info_.upload(code_.info_positions().data(), K);
    std::vector<std::int32_t> rank(N, -1);  // the register kernel's outputs by node
    for (std::uint32_t k = 0; k < K; ++k)
      rank[code_.info_positions()[k]] = static_cast<std::int32_t>(k);
    rank_.resize(N);
    rank_.upload(rank.data(), N);
    counters_.resize(3);
    if (global_) scratch_.resize(resident * slot_bytes);
    for (auto& s : sets_) {
      s.stream = cuda::stream(0);
      s.llr.resize(chunk_ * N);
      if (soft_stride_)
        s.soft.resize(chunk_ * soft_stride_);
      else
        s.bits.resize(chunk_ * K);
      s.iterations.resize(chunk_);
    }
    device_bytes_ = needed;
  }

  // Queues one kernel over `r` (device pointers) with work counter `counter` on `stream`.
  void launch(const decode_request& r, int counter, cudaStream_t stream) {
    if (r.frames == 0) return;
    unsigned long long* next = counters_.get() + counter;
    GPUFEC_CUDA_CHECK(cudaMemsetAsync(next, 0, sizeof(unsigned long long), stream));
    const unsigned long long per_block = params_.slots;  // codewords a block holds at once
    const auto blocks = static_cast<unsigned>(
        std::min<unsigned long long>((r.frames + per_block - 1) / per_block, grid_));
    bp_batch_params batch;
    batch.llr = r.llr;
    batch.bits = r.info_bits;
    batch.soft = r.soft;
    batch.iterations = r.iterations;
    batch.frames = r.frames;
    batch.next = next;
    batch.frozen = frozen_.get();
    if (registers_) {
      bp_register_params p = register_params_;
      static_cast<bp_batch_params&>(p) = batch;
      p.rank = rank_.get();
      void* arguments[] = {&p, rule_argument_};
      GPUFEC_CUDA_CHECK(cudaLaunchKernel(register_kernel_, dim3(blocks),
                                         dim3(static_cast<unsigned>(shape_.threads)), arguments,
                                         shape_.shared, stream));
      return;
    }
    bp_kernel_params p = params_;
    static_cast<bp_batch_params&>(p) = batch;
    p.info = info_.get();
    p.scratch = global_ ? scratch_.get() : nullptr;
    polar_bp_kernel<Rule>
        <<<blocks, static_cast<unsigned>(shape_.threads), shape_.shared, stream>>>(p, rule_);
    GPUFEC_CUDA_CHECK_LAUNCH("polar_bp_kernel");
  }

  // Waits for the chunk `s` has in flight and copies its outputs to the caller's buffers.
  void finish(stream_set& s, const decode_request& r) {
    if (!s.frames) return;
    const in_flight chunks[] = {{sets_[0].stream, counters_.get()},
                                {sets_[1].stream, counters_.get() + 1}};
    stopper_.wait(s.stream, r.stop, chunks);
    const std::size_t n = s.frames, per = soft_stride_ ? soft_stride_ * sizeof(float) : code_.K();
    if (r.info_bits) std::memcpy(r.info_bits + s.first * code_.K(), s.out.get(), n * per);
    if (r.soft) std::memcpy(r.soft + s.first * soft_stride_, s.out.get(), n * per);
    if (r.iterations)
      std::memcpy(r.iterations + s.first, s.out.get() + chunk_ * per, n * sizeof(std::uint32_t));
    s.frames = 0;
  }

  polar_code code_;
  decoder_options options_;
  Rule rule_;
  std::size_t max_batch_;
  int sm_count_ = 0;
  bool global_ = false, registers_ = false;
  int lanes_ = 1;  // codewords per register (register kernel)
  int registers_per_thread_ = 0;
  std::size_t spilled_bytes_ = 0;
  const void* register_kernel_ = nullptr;
  bp_register_params register_params_;
  alignas(8) unsigned char rule_argument_[16] = {};  // the register kernel's rule, by value
  unsigned grid_ = 1;
  cuda::launch_shape shape_;
  bp_kernel_params params_;
  std::size_t soft_stride_ = 0, chunk_ = 1, device_bytes_ = 0;
  cuda::device_buffer<std::uint8_t> frozen_;
  cuda::device_buffer<std::uint32_t> info_;
  cuda::device_buffer<std::int32_t> rank_;
  cuda::device_buffer<unsigned long long> counters_;  // host streams 0, 1; device path 2
  cuda::device_buffer<unsigned char> scratch_;
  stream_set sets_[2];
  iteration_tally tally_;   // device-path frames' iterations, for device_iterations()
  launch_stopper stopper_;  // ends the launches in flight on a stop
};

std::unique_ptr<bp_device_engine> make_cuda_bp(const polar_code& code,
                                               const decoder_options& options,
                                               std::size_t max_batch) {
  switch (options.update) {
    case update_rule::lr_sum_product:
      return std::make_unique<cuda_bp_engine<cuda_rules::lr_sum_product>>(
          code, options, max_batch, cuda_rules::lr_sum_product{});
    case update_rule::sum_product:
      return std::make_unique<cuda_bp_engine<cuda_rules::sum_product>>(code, options, max_batch,
                                                                       cuda_rules::sum_product{});
    case update_rule::min_sum:
      return std::make_unique<cuda_bp_engine<cuda_rules::min_sum>>(code, options, max_batch,
                                                                   cuda_rules::min_sum{1.0f});
    case update_rule::scaled_min_sum:
      return std::make_unique<cuda_bp_engine<cuda_rules::min_sum>>(
          code, options, max_batch, cuda_rules::min_sum{options.scale});
  }
  return nullptr;
}

const register_cuda_backend<cuda_bp_entry> registered{&make_cuda_bp};

}  // namespace
}  // namespace gpufec::polar::detail
