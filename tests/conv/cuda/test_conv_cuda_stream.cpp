// The CUDA tiled stream decoder against its oracle, the CPU tiled decoder on the whole stream as
// one truncated frame: the same bits for every chunking (1, 7, 333 values, sizes straddling a
// stage, a tile and a window), window size, code (the register kernel's K = 7 and K = 5, its
// four-lane K = 9 and a forced shared kernel), rate and input kind; bad streams as on the
// CPU. And the plan's float and hard device paths against its host paths. A disabled test
// measures throughput (run with --gtest_also_run_disabled_tests).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "conv/conv_test_util.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "conv/stream_test_util.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::conv {
namespace {

using namespace testing;

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

#define CHECK_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

stream_options cuda_options(const tile_shape& tile, std::size_t window_stages,
                            cuda_kernel kernel = cuda_kernel::automatic) {
  stream_options o;
  o.where = backend::cuda;
  o.tile = tile;
  o.window_stages = window_stages;
  o.kernel = kernel;
  return o;
}

TEST(ConvCudaStream, ChunkedEqualsTheTiledDecoderOnTheWholeStream) {
  SKIP_WITHOUT_GPU();
  struct tested {
    conv_code code;
    cuda_kernel kernel;
  };
  const std::size_t stages = 20000;
  std::size_t compared = 0, with_errors = 0;
  for (const tested& t : {tested{conv_code(7, {0171, 0133}), cuda_kernel::registers},
                          tested{conv_code(7, {0171, 0133}), cuda_kernel::shared_memory},
                          tested{conv_code(5, {023, 035}), cuda_kernel::registers},
                          tested{conv_code(9, {0561, 0753}), cuda_kernel::automatic}})
    for (const auto& pattern : {puncture_pattern::none(2), puncture_pattern::parse("3/4", 2)}) {
      const auto s =
          make_stream(t.code, pattern, stages, 0.85 * std::sqrt(0.5 / pattern.rate()), 61);
      const auto q = stream_quantized(s.llr);
      const tile_shape tile = default_tile_shape(t.code, pattern);
      const auto expected = tiled_whole(t.code, pattern, tile, q, stages);
      const auto expected_hard = tiled_whole(t.code, pattern, tile, hard_as_int8(s.coded), stages);
      with_errors += expected != s.info;
      // Chunks straddling a stage (odd sizes at rate 1/2), a tile (f stages' values +- 1) and a
      // window (its values +- 1).
      const std::size_t per_tile =
          static_cast<std::size_t>(std::llround(static_cast<double>(tile.f) / pattern.rate()));
      const std::size_t window = 3 * tile.f;
      const std::size_t per_window = 3 * per_tile;
      const std::vector<std::vector<std::size_t>> chunkings = {{std::size_t{1} << 40},
                                                               {1},
                                                               {7},
                                                               {333},
                                                               {per_tile - 1, per_tile + 1, 3},
                                                               {per_window + 1, per_window - 1, 1}};
      for (std::size_t window_stages : {window, std::size_t{0}}) {
        SCOPED_TRACE(t.code.to_string() + ", " + std::string(name_of(t.kernel)) + ", pattern " +
                     pattern.to_string() + ", window " + std::to_string(window_stages));
        stream_decoder dec(t.code, pattern, cuda_options(tile, window_stages, t.kernel));
        EXPECT_EQ(dec.where(), backend::cuda);
        EXPECT_NE(dec.describe().find("CUDA kernel"), std::string::npos) << dec.describe();
        for (const auto& sizes : chunkings) {
          if (sizes[0] == 1 && window_stages == 0) continue;  // one window: nothing new
          EXPECT_EQ(decode_in_chunks(dec, q, sizes, push_values), expected) << "int8";
          EXPECT_EQ(dec.bits_decided(), stages);
          ++compared;
        }
        EXPECT_EQ(decode_in_chunks(dec, s.llr, {4097, 1}, push_values), expected) << "float";
        EXPECT_EQ(decode_in_chunks(dec, s.coded, {999}, push_hard), expected_hard) << "hard";
      }
    }
  EXPECT_GT(compared, 60u);
  EXPECT_GT(with_errors, 4u) << "too little noise to exercise the decisions";
}

TEST(ConvCudaStream, ShortStreamsAndHighSnr) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  for (const auto& pattern : {puncture_pattern::none(2), puncture_pattern::parse("3/4", 2)}) {
    const tile_shape tile = default_tile_shape(code, pattern);
    stream_decoder dec(code, pattern, cuda_options(tile, 2 * tile.f));
    for (std::size_t stages : {1, 2, 5, 35, 36, 37, 71, 1056, 1057, 1093}) {
      SCOPED_TRACE(pattern.to_string() + ", " + std::to_string(stages) + " stages");
      const auto s = make_stream(code, pattern, stages, 0.9, 62);
      EXPECT_EQ(decode_in_chunks(dec, s.llr, {5}, push_values),
                tiled_whole(code, pattern, tile, stream_quantized(s.llr), stages));
    }
    std::vector<std::uint8_t> none;
    dec.reset();
    dec.finish(none);
    EXPECT_TRUE(none.empty()) << "an empty stream decides nothing";
    // At high SNR the tiled stream, the CPU's traceback-ring stream and the bits sent agree.
    const auto s = make_stream(code, pattern, 300000, 0.45 * std::sqrt(0.5 / pattern.rate()), 63);
    stream_decoder cpu(code, pattern);
    const auto gpu_bits = decode_in_chunks(dec, s.llr, {100003}, push_values);
    EXPECT_EQ(gpu_bits, decode_in_chunks(cpu, s.llr, {65536}, push_values));
    EXPECT_EQ(gpu_bits, s.info);
  }
}

// Without a tile shape the stream runs the default of the kernel that runs, as plans do: the
// register kernel's where it is compiled for the code, else the shared kernel's (256, D, D, 0).
TEST(ConvCudaStream, WithoutATileShapeEachKernelRunsItsOwnDefault) {
  SKIP_WITHOUT_GPU();
  const auto none = puncture_pattern::none(2);
  const std::size_t stages = 9000;
  for (const default_tile_case& c : default_tile_cases()) {
    SCOPED_TRACE(c.code.to_string() + ", kernel " + std::string(name_of(c.kernel)));
    stream_decoder dec(c.code, none, cuda_options({}, 0, c.kernel));
    EXPECT_EQ(dec.tile(), c.expected);
    EXPECT_EQ(dec.traceback_depth(), c.expected.v2);
    EXPECT_EQ(dec.release_block() % c.expected.f, 0u);
    const std::string text = dec.describe();
    EXPECT_NE(text.find(c.registers ? "CUDA kernel: registers" : "CUDA kernel: shared memory"),
              std::string::npos)
        << text;
    const auto s = make_stream(c.code, none, stages, 0.9 * std::sqrt(0.5 / none.rate()), 64);
    const auto bits = decode_in_chunks(dec, s.llr, {3001}, push_values);
    EXPECT_EQ(bits, tiled_whole(c.code, none, c.expected, stream_quantized(s.llr), stages));
    EXPECT_NE(bits, s.info) << "too little noise to exercise the decisions";
  }
}

TEST(ConvCudaStream, BadStreamsAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::parse("3/4", 2);
  stream_decoder dec(code, pattern, cuda_options(tile_shape{}, 0));
  std::vector<std::uint8_t> out;
  expect_nan_named(dec);
  dec.reset();
  dec.push(std::vector<std::int8_t>(5, 3), out);
  EXPECT_THROW(dec.finish(out), format_error);
  dec.reset();
  out.clear();
  dec.push(std::vector<std::int8_t>(4, 3), out);
  dec.finish(out);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_THROW(dec.push(std::vector<std::int8_t>(4, 1), out), invalid_argument);
  stream_options o = cuda_options(tile_shape{}, 0);
  o.decoder = decoder_kind::fast;
  EXPECT_THROW(stream_decoder(code, pattern, o), invalid_argument);
}

// Float LLRs and hard bits in device memory == the host paths, bit for bit: auto scale (frames
// of several sum blocks, lengths that are and are not multiples of 4: the float4 kernels and the
// others) and a fixed scale; NaN named as on the host, the lowest index of its frame.
TEST(ConvCudaStream, PlanFloatAndHardDevicePathsEqualTheHostPaths) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  for (const auto& pattern : {puncture_pattern::none(2), puncture_pattern::parse("3/4", 2)})
    for (const std::size_t N : {std::size_t{3001}, std::size_t{4094}, std::size_t{200}})
      for (const double scale : {0.0, 7.25}) {
        SCOPED_TRACE(pattern.to_string() + ", N " + std::to_string(N) + ", scale " +
                     std::to_string(scale));
        const encoder enc(code, pattern, N, termination::zero_tail);
        const std::size_t frames = 37, n = enc.shape().coded_bits;
        std::vector<float> llr(frames * n);
        std::vector<std::uint8_t> hard(frames * n), coded(n);
        for (std::size_t f = 0; f < frames; ++f) {
          enc.encode(random_bits(71, f, N), coded);
          const auto l =
              awgn_llrs(coded, 0.8 * std::sqrt(0.5 / pattern.rate()) * (1 + f % 3), 71, f);
          std::copy(l.begin(), l.end(), llr.begin() + static_cast<std::ptrdiff_t>(f * n));
          for (std::size_t i = 0; i < n; ++i) hard[f * n + i] = l[i] < 0;
        }
        decoder_options options;
        options.llr_scale = scale;
        decoder_plan plan(code, pattern, N, termination::zero_tail, options, backend::cuda, 8);
        std::vector<std::uint8_t> host(frames * N), device(frames * N), host_hard(frames * N);
        for (std::size_t f = 0; f < frames; f += 8) {  // the host path: max_batch 8
          const std::size_t c = std::min<std::size_t>(8, frames - f);
          plan.decode(batch_view<float>::uniform(llr.data() + f * n, c, n),
                      batch_span<std::uint8_t>::uniform(host.data() + f * N, c, N));
          plan.decode_hard(batch_view<std::uint8_t>::uniform(hard.data() + f * n, c, n),
                           batch_span<std::uint8_t>::uniform(host_hard.data() + f * N, c, N));
        }
        float* d_llr = nullptr;
        std::uint8_t *d_bits = nullptr, *d_hard = nullptr;
        CHECK_CUDA(cudaMalloc(&d_llr, llr.size() * sizeof(float)));
        CHECK_CUDA(cudaMalloc(&d_hard, hard.size()));
        CHECK_CUDA(cudaMalloc(&d_bits, device.size()));
        CHECK_CUDA(cudaMemcpy(d_llr, llr.data(), llr.size() * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_hard, hard.data(), hard.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaDeviceSynchronize());  // pageable copies may return before they land
        cudaStream_t stream = nullptr;
        CHECK_CUDA(cudaStreamCreate(&stream));
        const auto d_out =
            batch_span<std::uint8_t>::uniform(d_bits, frames, N, memory_space::device);
        plan.decode(batch_view<float>::uniform(d_llr, frames, n, memory_space::device), d_out,
                    stream);
        CHECK_CUDA(cudaMemcpy(device.data(), d_bits, device.size(), cudaMemcpyDeviceToHost));
        EXPECT_EQ(device, host) << "float";
        plan.decode_hard(batch_view<std::uint8_t>::uniform(d_hard, frames, n, memory_space::device),
                         d_out, stream);
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(device.data(), d_bits, device.size(), cudaMemcpyDeviceToHost));
        EXPECT_EQ(device, host_hard) << "hard";
        // A NaN in frame 20 (an infinity after it, in the same four) and an infinity in frame
        // 30: frame 20's NaN is named, as on the host.
        const float nan = std::nanf(""), inf = INFINITY;
        CHECK_CUDA(cudaMemcpy(d_llr + 20 * n + 17, &nan, 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_llr + 20 * n + 18, &inf, 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_llr + 30 * n + 3, &inf, 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaDeviceSynchronize());
        try {
          plan.decode(batch_view<float>::uniform(d_llr, frames, n, memory_space::device), d_out,
                      stream);
          ADD_FAILURE() << "a NaN was taken";
        } catch (const invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("frame 20: LLR 17 is NaN"), std::string::npos)
              << e.what();
        }
        CHECK_CUDA(cudaStreamDestroy(stream));
        CHECK_CUDA(cudaFree(d_llr));
        CHECK_CUDA(cudaFree(d_hard));
        CHECK_CUDA(cudaFree(d_bits));
      }
}

// Fewer long host frames than threads: each frame is made int8 over all the plan's threads
// (detail::quantize_frame), and decides as one thread's quantizer (a plan of one thread) and the
// device's (float LLRs in device memory, the scale's runs on a warp's lanes) make it: auto and
// fixed scale, float and hard bits; a NaN late in the second frame is named as the one-thread path
// names it.
TEST(ConvCudaStream, LongHostFramesAreMadeInt8OverThreadsAsByOne) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::none(2);
  // 2 200 014 LLRs a frame: 2.1 of the automatic scale's runs of 2^20 values, summed at once on
  // the host's threads and on the device's lanes.
  const std::size_t N = 1100001, frames = 2;
  const encoder enc(code, pattern, N, termination::zero_tail);
  const std::size_t n = enc.shape().coded_bits;
  std::vector<float> llr(frames * n);
  std::vector<std::uint8_t> hard(frames * n), coded(n);
  for (std::size_t f = 0; f < frames; ++f) {
    enc.encode(random_bits(79, f, N), coded);
    const auto l = awgn_llrs(coded, 0.85, 79, f);
    std::copy(l.begin(), l.end(), llr.begin() + static_cast<std::ptrdiff_t>(f * n));
    for (std::size_t i = 0; i < n; ++i) hard[f * n + i] = l[i] < 0;
  }
  float* d_llr = nullptr;
  std::uint8_t* d_bits = nullptr;
  CHECK_CUDA(cudaMalloc(&d_llr, llr.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_bits, frames * N));
  CHECK_CUDA(cudaMemcpy(d_llr, llr.data(), llr.size() * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaDeviceSynchronize());  // pageable copies may return before they land
  const auto host_in = batch_view<float>::uniform(llr.data(), frames, n);
  for (const double scale : {0.0, 5.5}) {
    SCOPED_TRACE("scale " + std::to_string(scale));
    decoder_options many, one;
    many.llr_scale = one.llr_scale = scale;
    many.threads = 8;
    one.threads = 1;
    decoder_plan plan(code, pattern, N, termination::zero_tail, many, backend::cuda, frames);
    decoder_plan single(code, pattern, N, termination::zero_tail, one, backend::cuda, frames);
    std::vector<std::uint8_t> by_many(frames * N), by_one(frames * N), device(frames * N);
    plan.decode(host_in, batch_span<std::uint8_t>::uniform(by_many.data(), frames, N));
    single.decode(host_in, batch_span<std::uint8_t>::uniform(by_one.data(), frames, N));
    plan.decode(batch_view<float>::uniform(d_llr, frames, n, memory_space::device),
                batch_span<std::uint8_t>::uniform(d_bits, frames, N, memory_space::device));
    CHECK_CUDA(cudaMemcpy(device.data(), d_bits, device.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(by_many, by_one);
    EXPECT_EQ(by_many, device);
    plan.decode_hard(batch_view<std::uint8_t>::uniform(hard.data(), frames, n),
                     batch_span<std::uint8_t>::uniform(by_many.data(), frames, N));
    single.decode_hard(batch_view<std::uint8_t>::uniform(hard.data(), frames, n),
                       batch_span<std::uint8_t>::uniform(by_one.data(), frames, N));
    EXPECT_EQ(by_many, by_one) << "hard";

    auto bad = llr;
    bad[n + n - 5] = std::nanf("");
    bad[n + n - 1] = INFINITY;
    std::string messages[2];
    for (int k = 0; k < 2; ++k) {
      try {
        (k ? single : plan)
            .decode(batch_view<float>::uniform(bad.data(), frames, n),
                    batch_span<std::uint8_t>::uniform(by_many.data(), frames, N));
        ADD_FAILURE() << "a NaN was taken";
      } catch (const invalid_argument& e) {
        messages[k] = e.what();
      }
    }
    EXPECT_EQ(messages[0], messages[1]);
    EXPECT_NE(messages[0].find("frame 1: LLR " + std::to_string(n - 5) + " is NaN"),
              std::string::npos)
        << messages[0];
  }
  CHECK_CUDA(cudaFree(d_llr));
  CHECK_CUDA(cudaFree(d_bits));
}

// A frame whose |L| sum overflows to infinity from finite values (every value +-3e38): the device
// quantizer takes it as the host does (scale 0: every value 0, decided by the ties), and names
// no value, while a NaN among finite values is still named (its block's sum is not finite, and
// the block is searched for it).
TEST(ConvCudaStream, FloatSumsThatOverflowDecodeAsOnTheHost) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::none(2);
  // n = 8200 (whole fours: the float4 kernel) and 8198 (the other, with a tail of 2), three sum
  // blocks each.
  for (const std::size_t N : {std::size_t{4094}, std::size_t{4093}}) {
    SCOPED_TRACE("N " + std::to_string(N));
    const std::size_t frames = 5;
    const encoder enc(code, pattern, N, termination::zero_tail);
    const std::size_t n = enc.shape().coded_bits;
    std::vector<float> llr(frames * n);
    std::vector<std::uint8_t> coded(n);
    for (std::size_t f = 0; f < frames; ++f) {
      enc.encode(random_bits(73, f, N), coded);
      const auto l = awgn_llrs(coded, 0.8, 73, f);
      for (std::size_t i = 0; i < n; ++i)
        llr[f * n + i] = f == 1 ? std::copysign(3e38f, l[i]) : l[i];
    }
    decoder_plan plan(code, pattern, N, termination::zero_tail, decoder_options{}, backend::cuda,
                      frames);
    std::vector<std::uint8_t> host(frames * N), device(frames * N);
    plan.decode(batch_view<float>::uniform(llr.data(), frames, n),
                batch_span<std::uint8_t>::uniform(host.data(), frames, N));
    float* d_llr = nullptr;
    std::uint8_t* d_bits = nullptr;
    CHECK_CUDA(cudaMalloc(&d_llr, llr.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_bits, device.size()));
    CHECK_CUDA(cudaMemcpy(d_llr, llr.data(), llr.size() * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaDeviceSynchronize());  // pageable copies may return before they land
    const auto d_in = batch_view<float>::uniform(d_llr, frames, n, memory_space::device);
    const auto d_out = batch_span<std::uint8_t>::uniform(d_bits, frames, N, memory_space::device);
    plan.decode(d_in, d_out);
    CHECK_CUDA(cudaMemcpy(device.data(), d_bits, device.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(device, host);
    // The overflowing frame decodes to the ties (scale 0), not to its message.
    EXPECT_NE(std::vector<std::uint8_t>(host.begin() + static_cast<std::ptrdiff_t>(N),
                                        host.begin() + static_cast<std::ptrdiff_t>(2 * N)),
              random_bits(73, 1, N));
    // A NaN as frame 3's last value (the last block's last four, or its tail) and one early in
    // frame 4: frame 3's is named.
    const float nan = std::nanf("");
    CHECK_CUDA(cudaMemcpy(d_llr + 3 * n + (n - 1), &nan, 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_llr + 4 * n + 5, &nan, 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaDeviceSynchronize());
    try {
      plan.decode(d_in, d_out);
      ADD_FAILURE() << "a NaN was taken";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("frame 3: LLR " + std::to_string(n - 1) + " is NaN"),
                std::string::npos)
          << e.what();
    }
    CHECK_CUDA(cudaFree(d_llr));
    CHECK_CUDA(cudaFree(d_bits));
  }
}

// Throughput of K = 7 (171,133) rate 1/2, default tile: the stream decoder end to end from host
// int8 values (2^31 values: 2^30 decoded bits), and the window kernel alone on int8 values
// already in device memory (a default-size window, timed by events).
TEST(ConvCudaStream, DISABLED_Throughput) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::none(2);
  const tile_shape tile = default_tile_shape(code, pattern);
  std::vector<std::int8_t> chunk(std::size_t{1} << 24);
  std::mt19937 rng(5);
  for (auto& v : chunk) v = static_cast<std::int8_t>(static_cast<int>(rng() % 61) - 20);
  stream_decoder dec(code, pattern, cuda_options(tile, 0));
  std::printf("%s\n", dec.describe().c_str());
  std::vector<std::uint8_t> out;
  out.reserve(std::size_t{1} << 26);
  for (int warm = 0; warm < 2; ++warm) {
    dec.reset();
    const int pushes = warm ? 128 : 16;
    const auto t0 = std::chrono::steady_clock::now();
    std::uint64_t bits = 0;
    for (int k = 0; k < pushes; ++k) {
      out.clear();
      dec.push(chunk, out);
      bits += out.size();
    }
    out.clear();
    dec.finish(out);
    bits += out.size();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (warm)
      std::printf("stream, host int8 end to end: %llu bits in %.3f s: %.2f Gb/s\n",
                  static_cast<unsigned long long>(bits), s, bits / s * 1e-9);
  }
  // The window path alone: the kernel on device-resident values.
  const auto engine = detail::make_device_engine(
      detail::tiled_setup{code, pattern,
                          make_frame_shape(code, pattern, tile.stages(), termination::truncated),
                          termination::truncated, tile, 0, cuda_kernel::automatic},
      "test");
  const std::size_t tiles = 2 * engine->plan().resident_tiles;
  const std::size_t stages = tiles * tile.f + tile.v1 + tile.v2, values = 2 * stages;
  std::int8_t* d_in = nullptr;
  std::uint8_t* d_out = nullptr;
  CHECK_CUDA(cudaMalloc(&d_in, values));
  CHECK_CUDA(cudaMalloc(&d_out, stages));
  for (std::size_t at = 0; at < values; at += chunk.size())
    CHECK_CUDA(cudaMemcpy(d_in + at, chunk.data(), std::min(chunk.size(), values - at),
                          cudaMemcpyHostToDevice));
  const detail::window_geometry w{stages, values, tile.v1, tiles, true};
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  engine->decode_window(d_in, w, d_out, nullptr);
  CHECK_CUDA(cudaEventRecord(start));
  const int repeats = 10;
  for (int r = 0; r < repeats; ++r) engine->decode_window(d_in, w, d_out, nullptr);
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  const double bits = static_cast<double>(tiles * tile.f) * repeats;
  std::printf("stream window, int8 on the device: %zu tiles, %.0f bits per window: %.2f Gb/s\n",
              tiles, bits / repeats, bits / (ms * 1e-3) * 1e-9);
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
}

}  // namespace
}  // namespace gpufec::conv
