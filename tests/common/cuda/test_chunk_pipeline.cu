// The host chunk pipeline every family's host path runs through (common/cuda/chunk_pipeline.cuh),
// on the device: whole frames with one and two outputs from pageable and page-locked memory at
// every batch size around its chunk rules, pieces that read overlapping input, a stream of pieces
// handed over in order, a failure and a wait that throws, each leaving nothing queued. Every test
// skips when no CUDA device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/cuda/chunk_pipeline.cuh"
#include "gpufec/common/device.hpp"
#include "gpufec/common/page_locked.hpp"

namespace gpufec::cuda {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

constexpr std::size_t kIn = 5, kOut = 3;  // bytes per frame

// Frame f of `frames` (in: kIn bytes): out0 = its first kOut bytes + 1; out1 = the sum of its
// bytes (one byte); each when wanted.
__global__ void frame_kernel(const unsigned char* in, std::size_t frames, unsigned char* out0,
                             unsigned char* out1) {
  const std::size_t f = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (f >= frames) return;
  unsigned sum = 0;
  for (std::size_t b = 0; b < kIn; ++b) sum += in[f * kIn + b];
  if (out0)
    for (std::size_t b = 0; b < kOut; ++b)
      out0[f * kOut + b] = static_cast<unsigned char>(in[f * kIn + b] + 1);
  if (out1) out1[f] = static_cast<unsigned char>(sum);
}

void launch_frames(const chunk_pipeline::lane_work& w) {
  const auto blocks = static_cast<unsigned>((w.frames + 127) / 128);
  frame_kernel<<<blocks, 128, 0, w.stream>>>(w.in, w.frames, w.out[0], w.out[1]);
  GPUFEC_CUDA_CHECK_LAUNCH("frame_kernel");
}

std::vector<unsigned char> input(std::size_t frames) {
  std::vector<unsigned char> v(frames * kIn);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<unsigned char>(i * 37 + 11);
  return v;
}

template <class Vector>
void expect_outputs(const std::vector<unsigned char>& in, const Vector& out0, const Vector& out1,
                    std::size_t frames) {
  for (std::size_t f = 0; f < frames; ++f) {
    unsigned sum = 0;
    for (std::size_t b = 0; b < kIn; ++b) sum += in[f * kIn + b];
    for (std::size_t b = 0; b < kOut; ++b)
      ASSERT_EQ(out0[f * kOut + b], static_cast<unsigned char>(in[f * kIn + b] + 1))
          << "frame " << f << " of " << frames;
    ASSERT_EQ(out1[f], static_cast<unsigned char>(sum)) << "frame " << f << " of " << frames;
  }
}

TEST(ChunkPipeline, WholeFramesFromPageableAndPageLockedMemoryAtEveryBatchSize) {
  SKIP_WITHOUT_GPU();
  chunk_pipeline pipeline(7, kIn, chunk_pipeline::output_bytes{kOut, 1});
  // Two lanes of 7 frames in, then 7 frames of output 0 padded to 16 bytes, then of output 1.
  EXPECT_EQ(pipeline.device_bytes(), 2 * (7 * kIn + 32 + 7));
  EXPECT_EQ(pipeline.device_bytes(),
            chunk_pipeline::device_bytes_for(7, kIn, chunk_pipeline::output_bytes{kOut, 1}));
  for (const std::size_t frames : {0, 1, 3, 4, 27, 28, 29, 35, 1000}) {
    const std::vector<unsigned char> in = input(frames);
    std::vector<unsigned char> out0(frames * kOut, 0xee), out1(frames, 0xee);
    pipeline.run(in.data(), frames, {out0.data(), out1.data()}, launch_frames);
    expect_outputs(in, out0, out1, frames);
    // Page-locked on both sides: copied straight, nothing staged.
    page_locked_vector<unsigned char> pin(in.begin(), in.end()), p0(frames * kOut), p1(frames);
    pipeline.run(pin.data(), frames, {p0.data(), p1.data()}, launch_frames);
    expect_outputs(in, p0, p1, frames);
    // Pageable input, a page-locked output and one not wanted (left as it was).
    std::fill(p0.begin(), p0.end(), 0);
    std::fill(p1.begin(), p1.end(), 0x5a);
    pipeline.run(in.data(), frames, {p0.data(), nullptr}, launch_frames);
    for (std::size_t i = 0; i < frames * kOut; ++i) ASSERT_EQ(p0[i], out0[i]) << i;
    for (std::size_t f = 0; f < frames; ++f) ASSERT_EQ(p1[f], 0x5a) << f;
  }
}

TEST(ChunkPipeline, PiecesMayReadOverlappingInputAndSkipOutput) {
  SKIP_WITHOUT_GPU();
  // Windows of 6 frames' bytes stepping by 4 frames: each window's output from its second frame
  // (skip) for 4 frames, so the outputs tile the whole without overlap.
  const std::size_t frames = 26;
  const std::vector<unsigned char> in = input(frames + 2);
  std::vector<unsigned char> out(frames * kOut, 0);
  chunk_pipeline pipeline(6, kIn, kOut);
  std::size_t at = 0;
  pipeline.run_pieces(
      in.data(), in.size(), {out.data(), nullptr}, {out.size(), 0},
      [&]() -> std::optional<chunk_pipeline::piece> {
        if (at >= frames) return std::nullopt;
        chunk_pipeline::piece p;
        const std::size_t first = at == 0 ? 0 : at - 1;
        p.in_at = first * kIn;
        p.frames = std::min<std::size_t>(6, frames + 2 - first);
        p.in_bytes = p.frames * kIn;
        const std::size_t n = std::min<std::size_t>(4, frames - at);
        p.out[0] = {at * kOut, n * kOut, (at - first) * kOut};
        at += n;
        return p;
      },
      [&](const chunk_pipeline::lane_work& w, const chunk_pipeline::piece&) { launch_frames(w); });
  for (std::size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], static_cast<unsigned char>(in[i / kOut * kIn + i % kOut] + 1)) << i;
  // A piece larger than a lane's buffers is refused before anything is queued for it.
  EXPECT_THROW(pipeline.run_pieces(
                   in.data(), in.size(), {out.data(), nullptr}, {out.size(), 0},
                   [done = false]() mutable -> std::optional<chunk_pipeline::piece> {
                     if (std::exchange(done, true)) return std::nullopt;
                     chunk_pipeline::piece p;
                     p.in_bytes = 7 * kIn;
                     p.frames = 7;
                     return p;
                   },
                   [](const chunk_pipeline::lane_work&, const chunk_pipeline::piece&) {}),
               std::logic_error);
}

TEST(ChunkPipeline, AStreamOfPiecesComesBackInOrder) {
  SKIP_WITHOUT_GPU();
  chunk_pipeline pipeline(4, kIn, kOut);
  pipeline.reserve_staging();
  EXPECT_EQ(pipeline.host_bytes(), 2 * (4 * kIn + 16));  // the output's region on 16 bytes
  const std::vector<unsigned char> in = input(4 * 9);
  std::vector<unsigned char> got;
  const auto sink = [&](std::size_t k, const unsigned char* bytes,
                        const chunk_pipeline::output_range& r) {
    ASSERT_EQ(k, 0u);
    got.insert(got.end(), bytes, bytes + r.bytes);
  };
  for (std::size_t piece = 0; piece < 9; ++piece) {
    unsigned char* staging = pipeline.input_staging();
    std::copy_n(in.data() + piece * 4 * kIn, 4 * kIn, staging);
    chunk_pipeline::piece p;
    p.in_bytes = 4 * kIn;
    p.frames = 4;
    p.out[0] = {0, 4 * kOut - 1, 1};  // all but the first byte
    pipeline.submit(
        p,
        [&](const chunk_pipeline::lane_work& w, const chunk_pipeline::piece&) { launch_frames(w); },
        sink);
    // Handed over: every piece but the one in flight.
    EXPECT_EQ(got.size(), piece * (4 * kOut - 1));
  }
  pipeline.drain(sink);
  ASSERT_EQ(got.size(), 9 * (4 * kOut - 1));
  for (std::size_t piece = 0, i = 0; piece < 9; ++piece)
    for (std::size_t b = 1; b < 4 * kOut; ++b, ++i) {
      const std::size_t f = piece * 4 + b / kOut;
      ASSERT_EQ(got[i], static_cast<unsigned char>(in[f * kIn + b % kOut] + 1)) << i;
    }
}

TEST(ChunkPipeline, AFailureOrAWaitThatThrowsLeavesNothingQueued) {
  SKIP_WITHOUT_GPU();
  chunk_pipeline pipeline(8, kIn, kOut);
  const std::vector<unsigned char> in = input(100);
  std::vector<unsigned char> out(100 * kOut);
  int launches = 0;
  EXPECT_THROW(pipeline.run(in.data(), 100, {out.data(), nullptr},
                            [&](const chunk_pipeline::lane_work& w) {
                              if (++launches == 3) throw std::runtime_error("launch 3 fails");
                              launch_frames(w);
                            }),
               std::runtime_error);
  EXPECT_EQ(launches, 3);
  EXPECT_EQ(cudaStreamQuery(pipeline.lane_stream(0)), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(pipeline.lane_stream(1)), cudaSuccess);
  // The wait given is the one used (a family's stop-aware wait): throwing from it ends the run.
  int waits = 0;
  EXPECT_THROW(pipeline.run(in.data(), 100, {out.data(), nullptr}, launch_frames,
                            [&](cudaStream_t s) {
                              GPUFEC_CUDA_CHECK(cudaStreamSynchronize(s));
                              if (++waits == 2) throw std::runtime_error("stopped");
                            }),
               std::runtime_error);
  EXPECT_EQ(waits, 2);
  EXPECT_EQ(cudaStreamQuery(pipeline.lane_stream(0)), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(pipeline.lane_stream(1)), cudaSuccess);
  // And the pipeline runs again afterwards.
  pipeline.run(in.data(), 100, {out.data(), nullptr}, launch_frames);
  for (std::size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], static_cast<unsigned char>(in[i / kOut * kIn + i % kOut] + 1)) << i;
}

}  // namespace
}  // namespace gpufec::cuda
