// The CUDA polar encoder (plan/device_encoder.hpp): the information positions copied to the
// device once; a warp per codeword up to N = 1024 (a lane per word, several codewords a block),
// beyond that a block per codeword at a time, its words in shared memory where the device's
// opt-in shared memory holds N / 8 bytes (every N up to 2^20 on current GPUs), else in global
// scratch, one codeword's words per resident block.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/cuda/device_buffer.cuh"
#include "common/cuda/occupancy.cuh"
#include "gpufec/common/error.hpp"
#include "polar/cuda/kernels/encoder_kernels.cuh"
#include "polar/plan/device_encoder.hpp"

namespace gpufec::polar::detail {
namespace {

class cuda_encoder final : public device_encoder {
 public:
  explicit cuda_encoder(const polar_code& code) {
    const cuda::device_limits limits = cuda::current_device_limits();
    sm_count_ = limits.sm_count;
    params_.N = code.N();
    params_.K = code.K();
    params_.W = std::max(1u, code.N() / 32);
    params_.systematic = code.systematic();
    if (code.systematic()) {
      std::vector<std::uint32_t> mask(params_.W, 0);
      for (const std::uint32_t j : code.info_positions()) mask[j >> 5] |= 1u << (j & 31);
      info_mask_.resize(params_.W);
      info_mask_.upload(mask.data(), params_.W);
    }
    if (code.N() <= kWarpKernelMaxN) {
      // A warp a codeword: each lane's 32 positions' information bits, [b][w].
      std::vector<std::uint16_t> sources(std::size_t{32} * params_.W, kFrozenSource);
      for (std::uint32_t k = 0; k < code.K(); ++k) {
        const std::uint32_t j = code.info_positions()[k];
        sources[(j & 31) * params_.W + (j >> 5)] = static_cast<std::uint16_t>(k);
      }
      sources_.resize(sources.size());
      sources_.upload(sources.data(), sources.size());
      warp_shape_ = cuda::suggested_shape(polar_encode_warp_kernel);
      require(warp_shape_.blocks_per_sm > 0 && warp_shape_.threads >= 32,
              "the CUDA polar encoder cannot be resident (N = ", code.N(), ")");
      return;
    }
    positions_.resize(code.K());
    positions_.upload(code.info_positions().data(), code.K());
    // Threads: one per word up to a block (at least a warp); words in shared memory if they fit.
    threads_ = static_cast<int>(std::clamp<unsigned>(params_.W, 32, 1024));
    threads_ = std::min(threads_, limits.max_block_threads);
    const std::size_t bytes = std::size_t{params_.W} * sizeof(std::uint32_t);
    if (bytes <= limits.shared_optin) {
      shared_ = bytes;
      cuda::allow_shared(polar_encode_kernel, shared_);
    }
    const int per_sm = cuda::resident_blocks(polar_encode_kernel, threads_, shared_);
    require(per_sm > 0, "the CUDA polar encoder cannot be resident (N = ", code.N(), ")");
    wave_ = static_cast<unsigned>(std::max(1, per_sm * limits.sm_count));
    if (!shared_) scratch_.resize(std::size_t{wave_} * params_.W);
  }

  void encode(batch_view<std::uint8_t> info, batch_span<std::uint8_t> codewords,
              cuda_stream stream) override {
    require(info.is_uniform() && info.on_device() && codewords.on_device(),
            "the CUDA polar encoder takes uniform device batches");
    require(info.stride == params_.K && codewords.stride == params_.N &&
                codewords.frames() == info.frames(),
            "the CUDA polar encoder: ", info.frames(), " frames of ", info.stride, " bits into ",
            codewords.frames(), " of ", codewords.stride, "; the code has K = ", params_.K,
            ", N = ", params_.N);
    if (info.frames() == 0) return;
    encoder_kernel_params p = params_;
    p.info = info.data;
    p.codewords = codewords.data;
    p.positions = positions_.get();
    p.info_mask = info_mask_.get();
    p.scratch = shared_ ? nullptr : scratch_.get();
    p.frames = info.frames();
    if (warp_shape_) {
      p.sources = sources_.get();
      const unsigned warps = static_cast<unsigned>(warp_shape_.threads) / 32;
      const auto blocks = static_cast<unsigned>(std::min<unsigned long long>(
          (info.frames() + warps - 1) / warps,
          static_cast<unsigned long long>(warp_shape_.wave(sm_count_))));
      const bool vectors =
          params_.N % 16 == 0 && reinterpret_cast<std::uintptr_t>(codewords.data) % 16 == 0;
      polar_encode_warp_kernel<<<blocks, warps * 32, 0, static_cast<cudaStream_t>(stream)>>>(
          p, vectors);
      GPUFEC_CUDA_CHECK_LAUNCH("polar_encode_warp_kernel");
      return;
    }
    const auto blocks = static_cast<unsigned>(std::min<std::size_t>(info.frames(), wave_));
    polar_encode_kernel<<<blocks, threads_, shared_, static_cast<cudaStream_t>(stream)>>>(p);
    GPUFEC_CUDA_CHECK_LAUNCH("polar_encode_kernel");
  }

 private:
  encoder_kernel_params params_;
  int sm_count_ = 1;
  cuda::launch_shape warp_shape_;  // set: the warp kernel (N <= kWarpKernelMaxN)
  int threads_ = 32;
  std::size_t shared_ = 0;
  unsigned wave_ = 1;
  cuda::device_buffer<std::uint32_t> positions_, info_mask_, scratch_;
  cuda::device_buffer<std::uint16_t> sources_;
};

std::unique_ptr<device_encoder> make_cuda_encoder(const polar_code& code) {
  return std::make_unique<cuda_encoder>(code);
}

const register_cuda_backend<device_encoder_entry> registered{&make_cuda_encoder};

}  // namespace
}  // namespace gpufec::polar::detail
