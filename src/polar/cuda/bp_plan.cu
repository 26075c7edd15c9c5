// plan_bp_cuda (plan/cuda_engine.hpp): every choice of the CUDA polar BP engine, made once from the
// device's limits, the occupancy API and polar/cuda/policy.hpp.
//
// Kernels: the register kernel (bp_register_kernel.cuh: N / 8 threads per codeword, messages in
// registers, every third column in shared memory; min-sum rules, N in [8, 2048], fp32 or fp16)
// where options.kernel allows it, else the memory kernel (bp_kernel.cuh). Register kernel shape:
// every number of slots per block (up to its most threads) is scored by the occupancy API, most
// resident codewords first, then the fewest slots per block (slots of a block iterate in
// lockstep). Memory kernel: a codeword needs bp_slot_bytes(N, m) bytes of messages and decisions.
// When that (plus the block header) fits the block's opt-in shared memory, the messages live in
// shared memory, and every (threads per codeword T, codewords per block) pair that fits is scored
// by the occupancy API: the most resident threads per SM, then the most resident codewords.
// Otherwise (N beyond ~2^11 in fp32) the regions live in global memory, one per resident slot,
// T = the largest block, as many slots as a wave holds and half the free memory allows.
#include <algorithm>

#include "common/cuda/chunk_pipeline.cuh"
#include "common/cuda/occupancy.cuh"
#include "polar/cuda/kernels/bp_kernel.cuh"
#include "polar/cuda/kernels/bp_register_kernels.cuh"
#include "polar/cuda/policy.hpp"
#include "polar/plan/cuda_engine.hpp"

namespace gpufec::polar::detail {
namespace {

void plan_register_kernel(cuda_plan& plan, const polar_code& code, const decoder_options& options,
                          const cuda::device_limits& limits) {
  const std::uint32_t N = code.N(), m = code.m();
  const void* kernel = register_bp_kernel(code, options);
  require(kernel != nullptr, "no register BP kernel for N = ", N);
  plan.registers = true;
  plan.lanes = options.precision == message_precision::fp16 ? 2 : 1;
  const unsigned T = N / 8;
  plan.region_bytes =
      bp_register_region_bytes(static_cast<int>(m), 4, plan.lanes);  // a float or a __half2
  cudaFuncAttributes attributes{};
  GPUFEC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const auto most_threads = static_cast<unsigned>(attributes.maxThreadsPerBlock);
  // The most codewords resident.
  cuda::shape_search search(kernel, limits.shared_optin);
  for (unsigned slots = 1; T * slots <= most_threads; slots *= 2) {
    const std::size_t shared = bp_register_header_bytes(slots, plan.lanes, static_cast<int>(m)) +
                               slots * plan.region_bytes;
    if (shared > limits.shared_optin) break;
    const int blocks = search.resident(static_cast<int>(T * slots), shared);
    search.offer(
        {static_cast<int>(T * slots), static_cast<int>(T), static_cast<int>(slots), shared, blocks},
        static_cast<long long>(blocks) * slots * plan.lanes);
  }
  plan.shape = search.best();
  plan.registers_per_thread = attributes.numRegs;
  plan.spilled_bytes = attributes.localSizeBytes;
  if (!plan.shape)
    throw out_of_memory(cat("the register BP kernel cannot be resident (N = ", N,
                            ", shared memory per block ", limits.shared_optin, " B)"));
  plan.grid = static_cast<unsigned>(std::max<long long>(1, plan.shape.wave(limits.sm_count)));
  plan.header_bytes = bp_register_header_bytes(static_cast<unsigned>(plan.shape.By), plan.lanes,
                                               static_cast<int>(m));
  plan.slots = static_cast<unsigned>(plan.shape.By) * static_cast<unsigned>(plan.lanes);
}

void plan_memory_kernel(cuda_plan& plan, const polar_code& code, const decoder_options& options,
                        const cuda::device_limits& limits, std::size_t max_batch) {
  const std::uint32_t N = code.N(), m = code.m();
  const void* kernel = memory_bp_kernel(options.update);
  plan.slot_bytes = bp_slot_bytes(N, m);
  const unsigned most_threads =
      static_cast<unsigned>(std::min<std::size_t>(N / 2, limits.max_block_threads));
  // Shared layout: the (T, slots) pair keeping the most threads, then codewords, resident.
  cuda::shape_search search(kernel, limits.shared_optin);
  for (unsigned T = most_threads; T >= 1; T /= 2) {
    for (unsigned slots = 1; T * slots <= static_cast<unsigned>(limits.max_block_threads);
         slots *= 2) {
      if (T * slots < policy::memory_least_block && T * slots < N / 2) continue;
      const std::size_t shared = bp_header_bytes(slots) + slots * plan.slot_bytes;
      if (shared > limits.shared_optin) break;
      const int blocks = search.resident(static_cast<int>(T * slots), shared);
      const long long threads = static_cast<long long>(blocks) * T * slots;
      const long long codewords = static_cast<long long>(blocks) * slots;
      search.offer({static_cast<int>(T * slots), static_cast<int>(T), static_cast<int>(slots),
                    shared, blocks},
                   (threads << 32) + codewords);
    }
    if (T == 1) break;
  }
  plan.shape = search.best();
  if (!plan.shape) {  // global layout
    plan.global = true;
    const std::size_t shared = bp_header_bytes(1);
    for (unsigned T = most_threads;; T /= 2) {
      const int blocks = search.resident(static_cast<int>(T), shared);
      if (blocks > 0) {
        plan.shape = {static_cast<int>(T), static_cast<int>(T), 1, shared, blocks};
        break;
      }
      require(T > 32, "the CUDA polar BP kernel cannot be resident with ", T, " threads");
    }
    const std::size_t affordable = limits.free_memory / 2 / plan.slot_bytes;
    if (affordable == 0)
      throw out_of_memory(cat("the CUDA polar BP decoder (global layout) needs ", plan.slot_bytes,
                              " bytes of device memory per codeword in flight (N = ", N,
                              "); the device has ", limits.free_memory, " bytes free"));
    plan.grid = static_cast<unsigned>(std::min<std::size_t>(
        {affordable, static_cast<std::size_t>(plan.shape.wave(limits.sm_count)),
         std::max<std::size_t>(max_batch, 1)}));
  } else {
    plan.grid = static_cast<unsigned>(std::max<long long>(1, plan.shape.wave(limits.sm_count)));
  }
  plan.slots = static_cast<unsigned>(plan.shape.By);
  plan.header_bytes = bp_header_bytes(plan.slots);
  plan.poll_stop = N > policy::poll_stop_beyond_N;
}

}  // namespace

const void* register_bp_kernel(const polar_code& code, const decoder_options& options) {
  const bool scaled = options.update == update_rule::scaled_min_sum;
  const bool left_first = options.schedule == bp_schedule::lr_rl;
  const auto m = static_cast<int>(code.m());
  return options.precision == message_precision::fp16 ? register_kernel_fp16(scaled, m, left_first)
                                                      : register_kernel_fp32(scaled, m, left_first);
}

cuda_plan plan_bp_cuda(const polar_code& code, const decoder_options& options,
                       std::size_t max_batch) {
  const std::uint32_t N = code.N(), K = code.K();
  const cuda::device_limits limits = cuda::current_device_limits();
  cuda_plan plan;
  plan.sm_count = limits.sm_count;
  plan.shared_optin = limits.shared_optin;
  plan.free_memory = limits.free_memory;
  plan.soft_stride = options.output == output_kind::codeword_llrs ? N
                     : options.output == output_kind::info_llrs   ? K
                                                                  : 0;
  const bool min_sum =
      options.update == update_rule::min_sum || options.update == update_rule::scaled_min_sum;
  if (options.kernel == cuda_kernel::registers || options.precision == message_precision::fp16 ||
      (options.kernel == cuda_kernel::automatic && min_sum && N >= policy::register_min_N &&
       N <= policy::register_max_N))
    plan_register_kernel(plan, code, options, limits);
  else
    plan_memory_kernel(plan, code, options, limits, max_batch);

  // Host chunks: at least chunk_waves waves of resident codewords and chunk_llr_bytes of LLRs,
  // at most the batch.
  const std::size_t resident = static_cast<std::size_t>(plan.grid) * plan.slots;
  plan.chunk_frames = std::min<std::size_t>(
      std::max<std::size_t>(max_batch, 1),
      std::max<std::size_t>(resident * policy::chunk_waves,
                            policy::chunk_llr_bytes / (std::size_t{N} * sizeof(float))));
  plan.device_bytes = (plan.global ? resident * plan.slot_bytes : 0) +
                      cuda::chunk_pipeline::device_bytes_for(plan.chunk_frames, N * sizeof(float),
                                                             plan.host_output_bytes(K)) +
                      N * (1 + sizeof(std::int32_t)) + K * sizeof(std::uint32_t) +
                      3 * sizeof(unsigned long long);
  if (plan.device_bytes > limits.free_memory)
    throw out_of_memory(
        cat("the CUDA polar BP plan needs ", plan.device_bytes, " bytes of device memory (",
            plan.global ? "global message layout, " : "", "chunks of ", plan.chunk_frames,
            " frames); the device has ", limits.free_memory, " bytes free: lower max_batch"));
  return plan;
}

}  // namespace gpufec::polar::detail
