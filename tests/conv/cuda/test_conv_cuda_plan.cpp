// The CUDA conv plan on a device (plan_tiled_cuda, conv/cuda/tiled_plan.cu): what it chooses for
// the register and shared-memory kernels, and that the decoder's engine runs that plan.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "conv/cuda/policy.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "conv/stream/stream_tiles.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/conv/decoder.hpp"

namespace gpufec::conv {
namespace {

using detail::cuda_plan;

detail::tiled_setup setup_for(const conv_code& code, std::size_t bits, std::size_t frames,
                              cuda_kernel kernel = cuda_kernel::automatic) {
  const auto pattern = puncture_pattern::none(code.beta());
  return {code,
          pattern,
          make_frame_shape(code, pattern, bits, termination::zero_tail),
          termination::zero_tail,
          {},
          frames,
          kernel,
          true,
          {}};
}

TEST(ConvCudaPlan, TheRegisterKernelsTileIsFittedToABatchOfWaves) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const conv_code code(7, {0171, 0133});
  const cuda_plan big = detail::plan_tiled_cuda(setup_for(code, 1u << 20, 512));
  EXPECT_TRUE(big.registers);
  EXPECT_EQ(big.lanes, 1);
  EXPECT_EQ(big.source, cuda_plan::tile_source::fitted);
  EXPECT_EQ(big.tile.f % 16, 0u) << big.tile.to_string();  // rate 1/2: tiles on 16 stages
  EXPECT_EQ(big.params.tiles_per_frame, ((1u << 20) + 6 + big.tile.f - 1) / big.tile.f);
  EXPECT_EQ(big.resident_tiles, static_cast<std::size_t>(big.shape.wave(big.sm_count)) *
                                    static_cast<std::size_t>(big.shape.threads));
  // Batches of 2^21 LLRs a frame cross the link 16 frames a chunk (32 MB).
  EXPECT_TRUE(big.host_batches);
  EXPECT_EQ(big.window_tiles, 0u);
  EXPECT_EQ(big.chunk_frames, policy::host_chunk_llr_bytes / ((std::size_t{1} << 21) + 12));
  EXPECT_GE(big.quantizer_frames * big.params.tiles_per_frame,
            policy::quantizer_waves * big.resident_tiles);
  // Less than a wave of tiles keeps the kernel's default tile.
  const cuda_plan small = detail::plan_tiled_cuda(setup_for(code, 1u << 20, 2));
  EXPECT_EQ(small.source, cuda_plan::tile_source::kernel_default);
  EXPECT_EQ(small.tile, default_tile_shape(code, puncture_pattern::none(2)));
  // A stream's engine (max_batch 0) has no host batches; its windows are whole waves of tiles, at
  // least policy::stream_window_waves.
  const cuda_plan stream = detail::plan_tiled_cuda(setup_for(code, 4096, 0));
  EXPECT_FALSE(stream.host_batches);
  EXPECT_EQ(stream.window_tiles,
            detail::device_window_tiles(stream.tile, puncture_pattern::none(2),
                                        stream.resident_tiles, policy::stream_window_waves));
  EXPECT_GE(stream.window_tiles, policy::stream_window_waves * stream.resident_tiles);
  EXPECT_EQ(stream.window_tiles % stream.resident_tiles, 0u);
}

TEST(ConvCudaPlan, TheSharedMemoryKernelRunsShortTilesAWarpEach) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const conv_code code(7, {0171, 0133});
  const cuda_plan p =
      detail::plan_tiled_cuda(setup_for(code, 8192, 64, cuda_kernel::shared_memory));
  EXPECT_FALSE(p.registers);
  EXPECT_EQ(p.tile.f, policy::shared_kernel_f);
  EXPECT_EQ(p.shape.Bx, 32);
  EXPECT_EQ(p.shape.shared, static_cast<std::size_t>(p.shape.By) * p.params.slot_bytes);
  EXPECT_LE(p.shape.shared, p.shared_optin);
  EXPECT_GT(p.shape.blocks_per_sm, 0);
  EXPECT_EQ(p.resident_tiles, static_cast<std::size_t>(p.shape.wave(p.sm_count) * p.shape.By));
  // A recursive code has no register kernel: asking for it names what is compiled.
  const conv_code rsc = conv_code::recursive_systematic(4, {013, 015});
  EXPECT_FALSE(detail::plan_tiled_cuda(setup_for(rsc, 1000, 8)).registers);
  try {
    detail::plan_tiled_cuda(setup_for(rsc, 1000, 8, cuda_kernel::registers));
    ADD_FAILURE() << "accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("register kernel is compiled for"), std::string::npos)
        << e.what();
  }
}

TEST(ConvCudaPlan, TheDecoderRunsThePlanItDescribes) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const conv_code code(9, {0561, 0753});
  const auto pattern = puncture_pattern::none(2);
  const std::size_t frames = 300;
  const auto engine = detail::make_device_engine(setup_for(code, 8192, frames), "test");
  const cuda_plan again = detail::plan_tiled_cuda(setup_for(code, 8192, frames));
  EXPECT_EQ(engine->plan().tile, again.tile);
  EXPECT_EQ(engine->plan().describe(code.to_string()), again.describe(code.to_string()));
  EXPECT_EQ(engine->plan().lanes, 4);
  const decoder_plan plan(code, pattern, 8192, termination::zero_tail, {}, backend::cuda, frames);
  EXPECT_EQ(plan.summary().tile, again.tile);
  EXPECT_EQ(plan.summary().preferred_batch, again.preferred_batch(frames));
  EXPECT_NE(plan.summary().kernel.find(again.describe(code.to_string())), std::string::npos)
      << plan.summary().kernel;
  // The plan's count of the engine's device memory is what the engine holds.
  EXPECT_EQ(engine->device_bytes(), again.device_bytes);
}

TEST(ConvCudaPlan, APreviewChoosesWhatThePlanChoosesAndAllocatesNothing) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::standard("3/4", 2);
  for (const std::size_t bits : {std::size_t{8192}, std::size_t{1} << 24}) {  // chunks; windows
    const std::size_t frames = bits > 8192 ? 2 : 4096;
    const plan_summary preview = decoder_plan::preview(code, pattern, bits, termination::zero_tail,
                                                       {}, backend::cuda, frames);
    const decoder_plan plan(code, pattern, bits, termination::zero_tail, {}, backend::cuda, frames);
    EXPECT_EQ(preview.tile, plan.summary().tile);
    EXPECT_EQ(preview.kernel, plan.summary().kernel);
    EXPECT_EQ(preview.scratch_bytes, plan.summary().scratch_bytes);
    EXPECT_EQ(preview.preferred_batch, plan.summary().preferred_batch);
    EXPECT_EQ(preview.shape.coded_bits, plan.summary().shape.coded_bits);
  }
  // A preview allocates nothing on the device: its free memory stays as it was (measured around
  // the second preview: the first may load the kernels' modules).
  const auto preview_big = [&] {
    return decoder_plan::preview(code, puncture_pattern::none(2), 8192, termination::zero_tail, {},
                                 backend::cuda, 1 << 20);
  };
  (void)preview_big();
  std::size_t before = 0, after = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&before, &total), cudaSuccess);
  const plan_summary big = preview_big();
  ASSERT_EQ(cudaMemGetInfo(&after, &total), cudaSuccess);
  EXPECT_GT(big.scratch_bytes, std::size_t{1} << 30);  // the batch's int8 LLRs, 17 GB
  EXPECT_EQ(after, before);
}

}  // namespace
}  // namespace gpufec::conv
