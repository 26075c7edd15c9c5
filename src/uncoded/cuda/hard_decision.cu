// The uncoded family's CUDA decoder: a hard decision per LLR, on device views and the chain's
// stream (registered as uncoded::detail::cuda_decoder_entry).
#include "common/cuda/occupancy.cuh"
#include "gpufec/channel/awgn.hpp"
#include "uncoded/hard_decision.hpp"

namespace gpufec::uncoded::detail {
namespace {

// hard_decision_kernel: a grid-stride loop over the batch's LLRs, one thread per LLR.
__global__ void hard_decision_kernel(std::uint64_t total, const float* __restrict__ llr,
                                     std::uint8_t* __restrict__ bits) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       t < total; t += stride)
    bits[t] = channel::hard_decision(llr[t]);
}

class cuda_decoder final : public sim::binary_decoder {
 public:
  explicit cuda_decoder(std::size_t max_batch)
      : max_batch_(max_batch),
        sm_count_(cuda::current_device_limits().sm_count),
        shape_(cuda::suggested_shape(hard_decision_kernel)) {}
  using sim::binary_decoder::decode;
  std::size_t max_batch() const override { return max_batch_; }
  void decode(batch_view<float> llr, batch_span<std::uint8_t> bits, cuda_stream stream,
              const stop_token&) override {
    require(llr.on_device() && bits.on_device(), "the CUDA hard decision takes device memory");
    const std::uint64_t total = llr.count * llr.stride;
    hard_decision_kernel<<<shape_.grid_stride_blocks(sm_count_, total), shape_.threads, 0,
                           stream>>>(total, llr.data, bits.data);
    GPUFEC_CUDA_CHECK_LAUNCH("hard_decision_kernel");
  }
  sim::fields details() const override {
    return {{"decoder", "hard decision (cuda)"}, {"decoder_block", shape_.threads}};
  }

 private:
  std::size_t max_batch_;
  int sm_count_;
  cuda::launch_shape shape_;
};

std::unique_ptr<sim::binary_decoder> make_cuda_decoder(std::size_t max_batch) {
  return std::make_unique<cuda_decoder>(max_batch);
}

const register_cuda_backend<cuda_decoder_entry> registered{&make_cuda_decoder};

}  // namespace
}  // namespace gpufec::uncoded::detail
