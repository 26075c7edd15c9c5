// The CUDA BP engine: executes a cuda_plan (plan/cuda_plan.hpp, made by cuda/bp_plan.cu) over the
// register kernel (bp_register_kernel.cuh) or the memory kernel (bp_kernel.cuh): it owns the
// device buffers, runs host batches (through the chunk pipeline, common/cuda/chunk_pipeline.cuh)
// and device batches (on the caller's stream), and ends launches on a stop.
#include <algorithm>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "common/cuda/chunk_pipeline.cuh"
#include "common/cuda/device_buffer.cuh"
#include "common/cuda/occupancy.cuh"
#include "common/cuda/stream.cuh"
#include "polar/cuda/kernels/bp_kernel.cuh"
#include "polar/cuda/kernels/bp_register_kernels.cuh"
#include "polar/cuda/launch_control.cuh"
#include "polar/plan/cuda_engine.hpp"

namespace gpufec::polar::detail {
namespace {

template <class Rule>
class cuda_bp_engine final : public bp_device_engine {
 public:
  cuda_bp_engine(const polar_code& code, const decoder_options& options, const cuda_plan& plan,
                 Rule rule)
      : code_(code), options_(options), plan_(plan), rule_(rule) {
    if (plan_.registers)
      set_register_params();
    else
      set_memory_params();
    set_up_buffers();
  }

  std::size_t scratch_bytes() const override { return plan_.device_bytes; }
  std::size_t device_bytes() const override { return plan_.device_bytes; }
  const cuda_plan& plan() const override { return plan_; }

  std::string describe() const override {
    return plan_.describe(code_.N(), code_.m(), options_.refill == refill_policy::replace);
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
    tally_.add(r.frames, plan_.sm_count, stream);
  }

  std::uint64_t device_iterations() override { return tally_.take(); }

  void wait(cuda_stream stream, const stop_token* stop) override {
    const in_flight launch{stream, counters_.get() + 2};
    stopper_.wait(stream, stop, std::span(&launch, 1));
  }

  // Host batches through the chunk pipeline: chunk c on lane c mod 2, so that while one lane's
  // kernel runs, the other's copies move and the host stages the next chunk's LLRs. Each lane's
  // launches take frames from their own work counter (0 or 1), which a stop sets to end them.
  void decode(const decode_request& r) override {
    const in_flight lanes[] = {{pipeline_->lane_stream(0), counters_.get()},
                               {pipeline_->lane_stream(1), counters_.get() + 1}};
    const auto wait = [&](cudaStream_t stream) { stopper_.wait(stream, r.stop, lanes); };
    pipeline_->run(
        reinterpret_cast<const unsigned char*>(r.llr), r.frames,
        {r.soft ? reinterpret_cast<unsigned char*>(r.soft) : r.info_bits,
         reinterpret_cast<unsigned char*>(r.iterations)},
        [&](const cuda::chunk_pipeline::lane_work& w) {
          if (r.stop_requested()) {  // between chunks: the chunk in flight ends early too
            wait(lanes[w.lane ^ 1].stream);
            throw stopped();
          }
          decode_request d;
          d.llr = reinterpret_cast<const float*>(w.in);
          d.frames = w.frames;
          d.info_bits = r.info_bits ? w.out[0] : nullptr;
          d.soft = r.soft ? reinterpret_cast<float*>(w.out[0]) : nullptr;
          d.soft_stride = plan_.soft_stride;
          d.iterations = reinterpret_cast<std::uint32_t*>(w.out[1]);
          launch(d, w.lane, w.stream);
        },
        wait);
  }

  double time_device(const decode_request& host, int repeats) override {
    const std::uint32_t N = code_.N(), K = code_.K();
    cuda::device_buffer<float> llr(host.frames * N),
        soft(host.soft ? host.frames * plan_.soft_stride : 0);
    cuda::device_buffer<std::uint8_t> bits(host.info_bits ? host.frames * K : 0);
    cuda::device_buffer<std::uint32_t> iterations(host.iterations ? host.frames : 0);
    llr.upload(host.llr, host.frames * N);
    decode_request d = host;
    d.llr = llr.get();
    d.info_bits = bits.get();
    d.soft = soft.get();
    d.iterations = iterations.get();
    cudaStream_t stream = pipeline_->lane_stream(0);
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
  // The register kernel's parameters and rule argument, from the plan.
  void set_register_params() {
    register_kernel_ = register_bp_kernel(code_, options_);
    require(register_kernel_ != nullptr, "internal: no register BP kernel for N = ", code_.N());
    if (options_.precision == message_precision::fp16) {
      const auto rule = lane_rules::fp16_min_sum<true>::make(options_.scale);
      static_assert(sizeof rule <= sizeof rule_argument_);
      std::memcpy(rule_argument_, &rule, sizeof rule);
    } else {
      const lane_rules::fp32_min_sum<true> rule{options_.scale};
      std::memcpy(rule_argument_, &rule, sizeof rule);
    }
    cuda::allow_shared(register_kernel_, plan_.shape.shared);
    register_params_.K = code_.K();
    register_params_.header_bytes = plan_.header_bytes;
    register_params_.region_bytes = plan_.region_bytes;
    register_params_.soft_stride = static_cast<unsigned>(plan_.soft_stride);
    register_params_.soft_at_top =
        options_.output == output_kind::codeword_llrs || code_.systematic();
    register_params_.max_iterations = options_.iterations;
    register_params_.early_stop = options_.early_stop;
    register_params_.systematic = code_.systematic();
    register_params_.replace = options_.refill == refill_policy::replace;
  }

  // The memory kernel's parameters, from the plan.
  void set_memory_params() {
    cuda::allow_shared(&polar_bp_kernel<Rule>, plan_.shape.shared);
    params_.N = code_.N();
    params_.K = code_.K();
    params_.m = code_.m();
    params_.slot_bytes = plan_.slot_bytes;
    params_.T = static_cast<unsigned>(plan_.shape.Bx);
    params_.slots = plan_.slots;
    params_.header_bytes = plan_.header_bytes;
    params_.max_iterations = options_.iterations;
    params_.early_stop = options_.early_stop;
    params_.systematic = code_.systematic();
    params_.left_first = options_.schedule == bp_schedule::lr_rl;
    params_.replace = options_.refill == refill_policy::replace;
    params_.poll_stop = plan_.poll_stop;
    params_.soft_stride = static_cast<unsigned>(plan_.soft_stride);
    params_.soft_column =
        options_.output == output_kind::codeword_llrs || code_.systematic() ? code_.m() : 0;
  }

  // The device buffers the plan sized (plan_bp_cuda checked them against free memory).
  void set_up_buffers() {
    const std::uint32_t N = code_.N(), K = code_.K();
    const std::size_t resident = static_cast<std::size_t>(plan_.grid) * plan_.slots;
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
    if (plan_.global) scratch_.resize(resident * plan_.slot_bytes);
    // Per frame: the LLRs in; the bits or the soft values, and the iterations out.
    pipeline_.emplace(plan_.chunk_frames, std::size_t{N} * sizeof(float),
                      plan_.host_output_bytes(K));
  }

  // Queues one kernel over `r` (device pointers) with work counter `counter` on `stream`.
  void launch(const decode_request& r, int counter, cudaStream_t stream) {
    if (r.frames == 0) return;
    unsigned long long* next = counters_.get() + counter;
    GPUFEC_CUDA_CHECK(cudaMemsetAsync(next, 0, sizeof(unsigned long long), stream));
    const unsigned blocks = plan_.blocks_for(r.frames);
    bp_batch_params batch;
    batch.llr = r.llr;
    batch.bits = r.info_bits;
    batch.soft = r.soft;
    batch.iterations = r.iterations;
    batch.frames = r.frames;
    batch.next = next;
    batch.frozen = frozen_.get();
    const auto threads = static_cast<unsigned>(plan_.shape.threads);
    if (plan_.registers) {
      bp_register_params p = register_params_;
      static_cast<bp_batch_params&>(p) = batch;
      p.rank = rank_.get();
      void* arguments[] = {&p, rule_argument_};
      GPUFEC_CUDA_CHECK(cudaLaunchKernel(register_kernel_, dim3(blocks), dim3(threads), arguments,
                                         plan_.shape.shared, stream));
      return;
    }
    bp_kernel_params p = params_;
    static_cast<bp_batch_params&>(p) = batch;
    p.info = info_.get();
    p.scratch = plan_.global ? scratch_.get() : nullptr;
    // The global layout's one scratch serves every stream's launches (the pipeline's two lanes,
    // the caller's device path): they take it one after another; the lanes' copies still overlap.
    if (plan_.global) scratch_free_.wait_on(stream);
    polar_bp_kernel<Rule><<<blocks, threads, plan_.shape.shared, stream>>>(p, rule_);
    GPUFEC_CUDA_CHECK_LAUNCH("polar_bp_kernel");
    if (plan_.global) scratch_free_.record(stream);
  }

  polar_code code_;
  decoder_options options_;
  cuda_plan plan_;
  Rule rule_;
  const void* register_kernel_ = nullptr;
  bp_register_params register_params_;
  alignas(8) unsigned char rule_argument_[16] = {};  // the register kernel's rule, by value
  bp_kernel_params params_;
  cuda::device_buffer<std::uint8_t> frozen_;
  cuda::device_buffer<std::uint32_t> info_;
  cuda::device_buffer<std::int32_t> rank_;
  cuda::device_buffer<unsigned long long> counters_;  // host streams 0, 1; device path 2
  cuda::device_buffer<unsigned char> scratch_;
  cuda::event scratch_free_{false};  // the last launch that used scratch_ (global layout)
  std::optional<cuda::chunk_pipeline> pipeline_;  // host batches
  iteration_tally tally_;   // device-path frames' iterations, for device_iterations()
  launch_stopper stopper_;  // ends the launches in flight on a stop
};

std::unique_ptr<bp_device_engine> make_cuda_bp(const polar_code& code,
                                               const decoder_options& options,
                                               const cuda_plan& plan) {
  switch (options.update) {
    case update_rule::lr_sum_product:
      return std::make_unique<cuda_bp_engine<cuda_rules::lr_sum_product>>(
          code, options, plan, cuda_rules::lr_sum_product{});
    case update_rule::sum_product:
      return std::make_unique<cuda_bp_engine<cuda_rules::sum_product>>(code, options, plan,
                                                                       cuda_rules::sum_product{});
    case update_rule::min_sum:
      return std::make_unique<cuda_bp_engine<cuda_rules::min_sum>>(code, options, plan,
                                                                   cuda_rules::min_sum{1.0f});
    case update_rule::scaled_min_sum:
      return std::make_unique<cuda_bp_engine<cuda_rules::min_sum>>(
          code, options, plan, cuda_rules::min_sum{options.scale});
  }
  return nullptr;
}

const cuda_bp_backend backend{&plan_bp_cuda, &make_cuda_bp};
const register_cuda_backend<cuda_bp_entry> registered{&backend};

}  // namespace

const void* memory_bp_kernel(update_rule update) {
  switch (update) {
    case update_rule::lr_sum_product:
      return reinterpret_cast<const void*>(&polar_bp_kernel<cuda_rules::lr_sum_product>);
    case update_rule::sum_product:
      return reinterpret_cast<const void*>(&polar_bp_kernel<cuda_rules::sum_product>);
    case update_rule::min_sum:
    case update_rule::scaled_min_sum:
      return reinterpret_cast<const void*>(&polar_bp_kernel<cuda_rules::min_sum>);
  }
  return nullptr;
}

}  // namespace gpufec::polar::detail
