// The CUDA tiled Viterbi decoder against its CPU oracle, the tiled decoder (tiling.hpp): the same
// bits on every frame, ties included, for every code K = 3..9, beta = 2..4, puncturing, termination
// and tile shape tested, from host batches and from device memory on a caller's stream; batches of
// many short frames and one long frame; and the errors a CUDA plan reports.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "conv/conv_test_util.hpp"
#include "conv/plan/cuda_engine.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/page_locked.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv {
namespace {

using namespace testing;

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

std::vector<std::uint8_t> decode_on(decoder_plan& plan, const std::vector<std::int8_t>& llr,
                                    std::size_t frames) {
  std::vector<std::uint8_t> bits(frames * plan.shape().info_bits);
  plan.decode(batch_view<std::int8_t>::uniform(llr.data(), frames, plan.shape().coded_bits),
              batch_span<std::uint8_t>::uniform(bits.data(), frames, plan.shape().info_bits));
  return bits;
}

decoder_plan tiled_plan(const conv_code& code, const puncture_pattern& pattern, std::size_t N,
                        termination term, const tile_shape& tile, backend where,
                        std::size_t max_batch, cuda_kernel kernel = cuda_kernel::automatic,
                        std::size_t host_window_tiles = 0) {
  decoder_options options;
  options.decoder = decoder_kind::tiled;
  options.tile = tile;
  options.kernel = kernel;
  if (where == backend::cuda) options.cuda_test.host_window_tiles = host_window_tiles;
  return decoder_plan(code, pattern, N, term, options, where, max_batch);
}

// The register kernel's cycle: K - 1 stages, 6 for K = 9 (four lanes per tile).
std::size_t cycle_of(const conv_code& code) {
  return code.K() == 9 ? 6 : static_cast<std::size_t>(code.K() - 1);
}

TEST(ConvCuda, EqualsTheTiledDecoderForEveryCodeRateTerminationAndShape) {
  SKIP_WITHOUT_GPU();
  const std::size_t N = 151, frames = 23;
  std::size_t frames_with_errors = 0, checked = 0;
  for (const auto& [name, code] : all_codes())
    for (const auto& pattern : patterns_for(code))
      for (termination term : all_terminations)
        for (const tile_shape& tile : {default_tile_shape(code, pattern), tile_shape{32, 10, 20, 0},
                                       tile_shape{64, 16, 40, 16}, tile_shape{5, 3, 4, 2}}) {
          if (!can_encode(code, pattern, N, term)) continue;
          SCOPED_TRACE(name + ", pattern " + pattern.to_string() + ", " +
                       std::string(name_of(term)) + ", " + tile.to_string());
          const encoder enc(code, pattern, N, term);
          const double sigma = 0.9 * std::sqrt(0.5 / pattern.rate());
          const auto batch = make_int8_batch(enc, frames, sigma, 41, 3.0);
          auto gpu = tiled_plan(code, pattern, N, term, tile, backend::cuda, frames);
          auto cpu = tiled_plan(code, pattern, N, term, tile, backend::cpu, frames);
          const auto a = decode_on(gpu, batch.llr, frames), b = decode_on(cpu, batch.llr, frames);
          for (std::size_t f = 0; f < frames; ++f) {
            ASSERT_TRUE(std::equal(a.begin() + f * N, a.begin() + (f + 1) * N, b.begin() + f * N))
                << "frame " << f;
            frames_with_errors +=
                !std::equal(a.begin() + f * N, a.begin() + (f + 1) * N, batch.info.begin() + f * N);
            ++checked;
          }
        }
  EXPECT_GT(frames_with_errors, checked / 10) << "too little noise to exercise the decisions";
}

// The register kernel (forced) on the codes it is compiled for: frames of several tiles, so tiles
// start and end inside frames and wrap around tail-biting ones, tiles ending at every layout
// phase, one-cycle subframes, the ring wrapping; the same bits as the CPU tiled decoder and as the
// shared-memory kernel.
TEST(ConvCuda, RegisterKernelEqualsTheTiledDecoderAndTheSharedKernel) {
  SKIP_WITHOUT_GPU();
  const std::size_t N = 1000, frames = 40;
  std::size_t frames_with_errors = 0, checked = 0;
  for (const conv_code& code :
       {conv_code(7, {0171, 0133}), conv_code(7, {0133, 0171, 0165}), conv_code(9, {0561, 0753}),
        conv_code(9, {0557, 0663, 0711}), conv_code(5, {023, 035}), conv_code(3, {07, 05})})
    for (const auto& pattern : patterns_for(code))
      for (termination term : all_terminations)
        for (const std::size_t P = cycle_of(code);
             const tile_shape& tile :
             {default_tile_shape(code, pattern), tile_shape{17 * P, 6 * P, 6 * P, 3 * P},
              tile_shape{P, P, P, P}, tile_shape{50 * P, 4 * P, 7 * P, 11 * P},
              tile_shape{8 * P, 2 * P, 3 * P, 0}}) {
          if (!can_encode(code, pattern, N, term)) continue;
          SCOPED_TRACE(code.to_string() + ", pattern " + pattern.to_string() + ", " +
                       std::string(name_of(term)) + ", " + tile.to_string());
          const encoder enc(code, pattern, N, term);
          const double sigma = 0.9 * std::sqrt(0.5 / pattern.rate());
          const auto batch = make_int8_batch(enc, frames, sigma, 43, 3.0);
          decoder_options options;
          options.decoder = decoder_kind::tiled;
          options.tile = tile;
          options.kernel = cuda_kernel::registers;
          decoder_plan registers(code, pattern, N, term, options, backend::cuda, frames);
          EXPECT_NE(registers.describe().find("registers"), std::string::npos);
          options.kernel = cuda_kernel::shared_memory;
          decoder_plan shared(code, pattern, N, term, options, backend::cuda, frames);
          auto cpu = tiled_plan(code, pattern, N, term, tile, backend::cpu, frames);
          const auto a = decode_on(registers, batch.llr, frames);
          const auto b = decode_on(cpu, batch.llr, frames);
          ASSERT_EQ(a, b);
          ASSERT_EQ(decode_on(shared, batch.llr, frames), b);
          for (std::size_t f = 0; f < frames; ++f) {
            frames_with_errors +=
                !std::equal(a.begin() + f * N, a.begin() + (f + 1) * N, batch.info.begin() + f * N);
            ++checked;
          }
        }
  EXPECT_GT(frames_with_errors, checked / 10) << "too little noise to exercise the decisions";
}

// Rate 1/2 codes on one lane decide in pairs of stages (register_kernel.cuh, kTagScale): frames
// whose stage count is odd end their last tile inside a pair, whose first stage's decisions the
// walk reads alone. N = 997 makes every termination's stage count odd for K = 3, 5 and 7 (tiles
// start at whole cycles); the register kernel's bits equal the CPU tiled decoder's.
TEST(ConvCuda, RegisterKernelTilesEndingInsideAPairOfStages) {
  SKIP_WITHOUT_GPU();
  const std::size_t N = 997, frames = 24;
  for (const conv_code& code : {conv_code(7, {0171, 0133}), conv_code(7, {0133, 0171}),
                                conv_code(5, {023, 035}), conv_code(3, {07, 05})})
    for (const auto& pattern : patterns_for(code))
      for (termination term : all_terminations)
        for (const std::size_t P = cycle_of(code);
             const tile_shape& tile :
             {default_tile_shape(code, pattern), tile_shape{17 * P, 6 * P, 6 * P, 3 * P},
              tile_shape{P, P, P, P}, tile_shape{8 * P, 2 * P, 3 * P, 0}}) {
          if (!can_encode(code, pattern, N, term)) continue;
          SCOPED_TRACE(code.to_string() + ", pattern " + pattern.to_string() + ", " +
                       std::string(name_of(term)) + ", " + tile.to_string());
          const encoder enc(code, pattern, N, term);
          const auto batch =
              make_int8_batch(enc, frames, 0.9 * std::sqrt(0.5 / pattern.rate()), 53, 3.0);
          auto registers = tiled_plan(code, pattern, N, term, tile, backend::cuda, frames,
                                      cuda_kernel::registers);
          auto cpu = tiled_plan(code, pattern, N, term, tile, backend::cpu, frames);
          ASSERT_EQ(decode_on(registers, batch.llr, frames), decode_on(cpu, batch.llr, frames));
        }
}

// What the register kernel saves on unpunctured codes, switched off (cuda_test.register_checks =
// 3: decide the cycles of the v1 warm-up too, where the kernels with
// decision sums skip them, keep each walk's history through its convergence too): the same bits
// as with the savings, on tiles with long warm-ups and walks, on the CPU tiled decoder's bits,
// for every termination. (The savings skip work whose result is never read; this is the check
// that it is never read.)
TEST(ConvCuda, RegisterKernelSavingsChangeNoBit) {
  SKIP_WITHOUT_GPU();
  const std::size_t N = 1200, frames = 30;
  for (const conv_code& code : {conv_code(7, {0171, 0133}), conv_code(7, {0133, 0171, 0165}),
                                conv_code(9, {0561, 0753}), conv_code(5, {023, 035})})
    for (termination term : all_terminations)
      for (const std::size_t P = cycle_of(code);
           const tile_shape& tile :
           {default_tile_shape(code, puncture_pattern::none(code.beta())),
            tile_shape{20 * P, 8 * P, 9 * P, 2 * P}, tile_shape{7 * P, 5 * P, 6 * P, P}}) {
        const puncture_pattern none = puncture_pattern::none(code.beta());
        if (!can_encode(code, none, N, term)) continue;
        SCOPED_TRACE(code.to_string() + ", " + std::string(name_of(term)) + ", " +
                     tile.to_string());
        const encoder enc(code, none, N, term);
        const auto batch =
            make_int8_batch(enc, frames, 0.9 * std::sqrt(0.5 / none.rate()), 47, 3.0);
        decoder_options options;
        options.decoder = decoder_kind::tiled;
        options.tile = tile;
        options.kernel = cuda_kernel::registers;
        decoder_plan registers(code, none, N, term, options, backend::cuda, frames);
        const auto saving = decode_on(registers, batch.llr, frames);
        options.cuda_test.register_checks = 3;
        decoder_plan everything(code, none, N, term, options, backend::cuda, frames);
        const std::vector<std::uint8_t> full = decode_on(everything, batch.llr, frames);
        ASSERT_EQ(saving, full);
        auto cpu = tiled_plan(code, none, N, term, tile, backend::cpu, frames);
        ASSERT_EQ(saving, decode_on(cpu, batch.llr, frames));
      }
}

// int8 LLRs over the whole range, -128 included (the quantizers stop at -127, a caller's own
// int8 need not): -128 gives a branch metric below the old bias of 127 beta, whose negative low
// half borrowed from the high half of a packed pair. Many values saturated, so that both values
// of a stage are often -128; the register kernel against the CPU tiled decoder.
TEST(ConvCuda, RegisterKernelTakesTheWholeInt8Range) {
  SKIP_WITHOUT_GPU();
  const std::size_t N = 600, frames = 24;
  for (const conv_code& code :
       {conv_code(7, {0171, 0133}), conv_code(7, {0133, 0171}), conv_code(7, {0133, 0171, 0165}),
        conv_code(9, {0561, 0753}), conv_code(5, {023, 035}), conv_code(3, {07, 05})})
    for (const auto& pattern : patterns_for(code))
      for (termination term : all_terminations)
        for (const std::size_t P = cycle_of(code);
             const tile_shape& tile :
             {default_tile_shape(code, pattern), tile_shape{10 * P, 4 * P, 5 * P, 3 * P}}) {
          if (!can_encode(code, pattern, N, term)) continue;
          SCOPED_TRACE(code.to_string() + ", pattern " + pattern.to_string() + ", " +
                       std::string(name_of(term)) + ", " + tile.to_string());
          auto registers = tiled_plan(code, pattern, N, term, tile, backend::cuda, frames,
                                      cuda_kernel::registers);
          auto cpu = tiled_plan(code, pattern, N, term, tile, backend::cpu, frames);
          std::vector<std::int8_t> llr(frames * registers.shape().coded_bits);
          std::uint64_t x = 99 + llr.size();
          std::size_t lowest = 0;
          for (auto& v : llr) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const auto r = static_cast<unsigned>(x >> 33);
            v = static_cast<std::int8_t>(r % 10 < 4    ? -128
                                         : r % 10 == 4 ? 127
                                         : r % 10 == 5 ? -127
                                                       : static_cast<int>((r >> 8) % 256) - 128);
            lowest += v == -128;
          }
          ASSERT_GT(lowest, llr.size() / 3);
          ASSERT_EQ(decode_on(registers, llr, frames), decode_on(cpu, llr, frames));
        }
}

// Where the register kernel does not apply, asking for it is a clear error.
TEST(ConvCuda, RegisterKernelRefusesWhatItCannotRun) {
  SKIP_WITHOUT_GPU();
  decoder_options options;
  options.kernel = cuda_kernel::registers;
  const auto refused = [&](const conv_code& code, const tile_shape& tile, std::size_t N = 500) {
    options.tile = tile;
    try {
      decoder_plan(code, puncture_pattern::none(code.beta()), N, termination::truncated, options,
                   backend::cuda, 1);
    } catch (const invalid_argument& e) {
      return std::string(e.what()).find("register kernel") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused(conv_code(8, {0371, 0247}), {}));
  EXPECT_TRUE(refused(conv_code(9, {0561, 0753}), tile_shape{1024, 48, 60, 64}));  // f0: not 6 k
  EXPECT_FALSE(refused(conv_code(9, {0561, 0753}), {}));
  EXPECT_TRUE(refused(conv_code::recursive_systematic(5, {023, 035}), {}));
  // A ring of 6030 stages (47 KB a thread) does not fit; the shared kernel's tile would.
  EXPECT_TRUE(refused(conv_code(7, {0171, 0133}), tile_shape{6000, 36, 36, 0}, 20000));
  EXPECT_TRUE(refused(conv_code(7, {0171, 0133}), tile_shape{1024, 35, 35, 64}));
  EXPECT_FALSE(refused(conv_code(7, {0171, 0133}), {}));
}

// No tile shape given: where the register kernel runs, the default shape (long tiles with
// subframes) as it is, since 12 frames of 2000 bits are far less than a wave of tiles (a larger
// batch gets it fitted: TheDefaultTileFillsWholeWavesOfTheBatch); elsewhere (a code it is not
// compiled for, or the shared kernel asked for) the shared kernel's own, f = 256 without
// subframes. The plan reports the shape and the kernel it runs, keeps a whole number of warps per
// scheduler resident on the register kernel, and decides as the CPU tiled decoder on that shape.
// (133,171) is (171,133) with its outputs swapped, compiled in on its own.
TEST(ConvCuda, WithoutATileShapeEachKernelRunsItsOwnDefault) {
  SKIP_WITHOUT_GPU();
  const std::size_t N = 2000, frames = 12;
  const auto none = puncture_pattern::none(2);
  for (const default_tile_case& c : default_tile_cases()) {
    SCOPED_TRACE(c.code.to_string() + ", kernel " + std::string(name_of(c.kernel)));
    decoder_options options;
    options.kernel = c.kernel;
    decoder_plan gpu(c.code, none, N, termination::truncated, options, backend::cuda, frames);
    EXPECT_EQ(gpu.summary().tile, c.expected);
    const std::string text = gpu.describe();
    EXPECT_NE(text.find(c.expected.to_string()), std::string::npos) << text;
    EXPECT_NE(text.find(c.registers ? "CUDA kernel: registers" : "CUDA kernel: shared memory"),
              std::string::npos)
        << text;
    if (c.registers) {
      const int warps = resident_warps_per_sm(gpu.summary().kernel);
      EXPECT_TRUE(warps > 0 && warps % 4 == 0) << gpu.summary().kernel;
    }
    auto cpu =
        tiled_plan(c.code, none, N, termination::truncated, c.expected, backend::cpu, frames);
    const encoder enc(c.code, none, N, termination::truncated);
    const auto batch = make_int8_batch(enc, frames, 0.9 * std::sqrt(0.5 / none.rate()), 47, 3.0);
    const auto a = decode_on(gpu, batch.llr, frames);
    EXPECT_EQ(a, decode_on(cpu, batch.llr, frames));
    EXPECT_NE(a, batch.info) << "too little noise to exercise the decisions";
  }
}

// A plan given no tile fits the tile length to its batch: 64 and 256 frames of 2^20 bits fill
// whole waves of resident tiles (one wave of K = 7 rate 1/2 decodes 16% faster than 1.25 waves on
// an H200: bench/RESULTS.md 2026-11-27), the last at least 90% full, with the shortest tiles of
// whole cycles on 16 stages (48 at K = 7: register_shape.cu; fitted_tile_length on this device's
// wave), a batch of less than a wave keeps the default shape, and fit_tile = false runs the
// default shape; each decides as the CPU tiled decoder on its shape.
TEST(ConvCuda, TheDefaultTileFillsWholeWavesOfTheBatch) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  const auto none = puncture_pattern::none(2);
  const std::size_t N = std::size_t{1} << 20;
  const tile_shape nominal = default_tile_shape(code, none);
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  const encoder enc(code, none, N, termination::truncated);
  const auto batch = make_int8_batch(enc, 2, 0.85 * std::sqrt(0.5 / none.rate()), 48, 3.0);
  for (const std::size_t frames : {std::size_t{1}, std::size_t{64}, std::size_t{256}}) {
    SCOPED_TRACE(frames);
    auto gpu = tiled_plan(code, none, N, termination::truncated, {}, backend::cuda, frames);
    const tile_shape tile = gpu.summary().tile;
    const std::string& line = gpu.summary().kernel;
    const int warps = resident_warps_per_sm(line);
    ASSERT_GT(warps, 0) << line;
    EXPECT_EQ(warps % 4, 0) << line;
    const std::size_t wave = static_cast<std::size_t>(sms) * static_cast<std::size_t>(warps) * 32;
    const std::size_t tiles = frames * ((N + nominal.f - 1) / nominal.f);
    if (tiles < wave) {
      EXPECT_EQ(tile, nominal) << line;
    } else {
      // The rule (checked against a search in ConvTiling) on this device's wave, on 16 stages.
      EXPECT_EQ(tile.f, detail::fitted_tile_length(nominal.f, N, frames, wave, 48)) << line;
      const std::size_t fitted = frames * ((N + tile.f - 1) / tile.f);
      EXPECT_LE(fitted, tiles / wave * wave) << tile.to_string();
    }
    // Up to two frames through the plan made for the batch, against the CPU on its shape.
    const std::size_t n = std::min<std::size_t>(frames, 2);
    auto cpu = tiled_plan(code, none, N, termination::truncated, tile, backend::cpu, n);
    const auto a = decode_on(gpu, batch.llr, n);
    EXPECT_EQ(a, decode_on(cpu, batch.llr, n));
    EXPECT_NE(a, std::vector<std::uint8_t>(batch.info.begin(),
                                           batch.info.begin() + static_cast<std::ptrdiff_t>(n * N)))
        << "too little noise to exercise the decisions";
  }
  decoder_options exact;
  exact.fit_tile = false;
  const decoder_plan fixed(code, none, N, termination::truncated, exact, backend::cuda, 64);
  EXPECT_EQ(fixed.summary().tile, nominal);
}

// Device memory on a caller's stream, and device views through the synchronous call.
TEST(ConvCuda, DevicePathEqualsHostPath) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::standard("3/4", 2);
  const std::size_t N = 1000, frames = 300;
  const encoder enc(code, pattern, N, termination::truncated);
  const auto batch = make_int8_batch(enc, frames, channel::sigma_from_ebn0(3.0, 0.75), 42, 8.0);
  auto plan = tiled_plan(code, pattern, N, termination::truncated, {}, backend::cuda, frames);
  const auto host = decode_on(plan, batch.llr, frames);

  std::int8_t* d_llr = nullptr;
  std::uint8_t* d_bits = nullptr;
  ASSERT_EQ(cudaMalloc(&d_llr, batch.llr.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_bits, host.size()), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_llr, batch.llr.data(), batch.llr.size(), cudaMemcpyHostToDevice),
            cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const auto in =
      batch_view<std::int8_t>::uniform(d_llr, frames, enc.shape().coded_bits, memory_space::device);
  const auto out = batch_span<std::uint8_t>::uniform(d_bits, frames, N, memory_space::device);
  std::vector<std::uint8_t> device(host.size(), 2);
  plan.decode(in, out, stream);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device.data(), d_bits, device.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(device, host);
  ASSERT_EQ(cudaMemset(d_bits, 7, device.size()), cudaSuccess);
  plan.decode(in, out);  // device views, default stream, waits
  ASSERT_EQ(cudaMemcpy(device.data(), d_bits, device.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(device, host);

  // A CPU plan refuses device views; host views of a CUDA plan are checked as ever.
  auto cpu = tiled_plan(code, pattern, N, termination::truncated, {}, backend::cpu, frames);
  EXPECT_THROW(cpu.decode(in, out), invalid_argument);
  cudaStreamDestroy(stream);
  cudaFree(d_llr);
  cudaFree(d_bits);
}

// Random int8 LLRs over the whole range (every decision, ties included, without encoding).
std::vector<std::int8_t> random_llrs(std::size_t count, std::uint64_t seed) {
  std::vector<std::int8_t> llr(count);
  for (auto& v : llr) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<std::int8_t>(static_cast<int>((seed >> 33) % 256) - 128);
  }
  return llr;
}

// K = 7 (171,133) rate 1/2 zero-tail frames of 200 bits, as many as `chunks` of the host chunks
// its CUDA plan names in describe(), of random int8 LLRs over the whole range: every decision, ties
// included, is exercised without encoding millions of frames.
struct chunked_batch {
  conv_code code{7, {0171, 0133}};
  puncture_pattern pattern = puncture_pattern::none(2);
  std::size_t N = 200, frames = 0, coded = 0;
  std::vector<std::int8_t> llr;
};
chunked_batch random_chunked_batch(double chunks, std::uint64_t seed) {
  chunked_batch b;
  auto probe =
      tiled_plan(b.code, b.pattern, b.N, termination::zero_tail, {}, backend::cuda, 1u << 18);
  const std::string text = probe.describe();
  const std::size_t at = text.find("chunks of ");
  if (at == std::string::npos) throw std::runtime_error("no host chunk in: " + text);
  b.frames =
      static_cast<std::size_t>(chunks * static_cast<double>(std::stoul(text.substr(at + 10))));
  b.coded = probe.shape().coded_bits;
  b.llr = random_llrs(b.frames * b.coded, seed);
  return b;
}

// A host batch of several chunks goes through the two-stream pipeline and gives the bits of one
// device-path call on the whole batch.
TEST(ConvCuda, HostBatchesOfSeveralChunksEqualTheDevicePath) {
  SKIP_WITHOUT_GPU();
  const chunked_batch b = random_chunked_batch(2.5, 12345);
  const std::size_t frames = b.frames, coded = b.coded, N = b.N;
  const std::vector<std::int8_t>& llr = b.llr;
  auto plan = tiled_plan(b.code, b.pattern, N, termination::zero_tail, {}, backend::cuda, frames);
  const auto host = decode_on(plan, llr, frames);
  std::int8_t* d_llr = nullptr;
  std::uint8_t* d_bits = nullptr;
  ASSERT_EQ(cudaMalloc(&d_llr, llr.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_bits, host.size()), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_llr, llr.data(), llr.size(), cudaMemcpyHostToDevice), cudaSuccess);
  plan.decode(batch_view<std::int8_t>::uniform(d_llr, frames, coded, memory_space::device),
              batch_span<std::uint8_t>::uniform(d_bits, frames, N, memory_space::device));
  std::vector<std::uint8_t> device(host.size(), 2);
  ASSERT_EQ(cudaMemcpy(device.data(), d_bits, device.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(device, host);
  cudaFree(d_llr);
  cudaFree(d_bits);
}

// Page-locked batches (cudaHostAlloc, cudaHostRegister, page_locked_vector) are copied straight
// over the link, with no staging and no host wait between chunks (chunk_pipeline.cuh): the same
// bits as from pageable memory, for page-locked input, output or both, over several chunks and a
// partial last one.
TEST(ConvCuda, HostBatchesInPageLockedMemoryEqualPageableOnes) {
  SKIP_WITHOUT_GPU();
  const chunked_batch b = random_chunked_batch(2.33, 2024);
  const std::size_t frames = b.frames, coded = b.coded, N = b.N;
  auto plan = tiled_plan(b.code, b.pattern, N, termination::zero_tail, {}, backend::cuda, frames);
  const auto pageable = decode_on(plan, b.llr, frames);

  std::int8_t* locked_llr = nullptr;
  std::uint8_t* locked_bits = nullptr;
  ASSERT_EQ(cudaHostAlloc(&locked_llr, b.llr.size(), cudaHostAllocDefault), cudaSuccess);
  ASSERT_EQ(cudaHostAlloc(&locked_bits, pageable.size(), cudaHostAllocDefault), cudaSuccess);
  std::copy(b.llr.begin(), b.llr.end(), locked_llr);
  std::vector<std::int8_t> registered = b.llr;
  ASSERT_EQ(cudaHostRegister(registered.data(), registered.size(), cudaHostRegisterDefault),
            cudaSuccess);
  std::vector<std::uint8_t> bits(pageable.size());
  const auto run = [&](const std::int8_t* in, std::uint8_t* out) {
    std::fill(out, out + pageable.size(), 2);
    plan.decode(batch_view<std::int8_t>::uniform(in, frames, coded),
                batch_span<std::uint8_t>::uniform(out, frames, N));
    return std::vector<std::uint8_t>(out, out + pageable.size());
  };
  EXPECT_EQ(run(locked_llr, bits.data()), pageable) << "page-locked input";
  EXPECT_EQ(run(b.llr.data(), locked_bits), pageable) << "page-locked output";
  EXPECT_EQ(run(locked_llr, locked_bits), pageable) << "both page-locked";
  EXPECT_EQ(run(registered.data(), locked_bits), pageable) << "registered input";
  page_locked_vector<std::int8_t> vector_llr(b.llr.begin(), b.llr.end());
  page_locked_vector<std::uint8_t> vector_bits(pageable.size());
  EXPECT_TRUE(is_page_locked(vector_llr.data()) && is_page_locked(vector_bits.data()));
  EXPECT_EQ(run(vector_llr.data(), vector_bits.data()), pageable) << "page_locked_vector";
  EXPECT_EQ(cudaHostUnregister(registered.data()), cudaSuccess);
  cudaFreeHost(locked_llr);
  cudaFreeHost(locked_bits);
}

// Host frames of more tiles than a window go to the GPU in windows (stream_tiles.hpp), two lanes
// at a time, and decide exactly as the whole frame does: windows of 7 tiles
// (cuda_test.host_window_tiles) over frames of 10 to 40 tiles, for the register kernel (K = 7 at
// rates 1/2 and 3/4, K = 9 on four lanes) and the shared one, truncated and zero-tail frames (one
// whose last tile holds only the tail), from pageable and page-locked memory; against the CPU
// tiled decoder. Tail-biting frames wrap around and go whole.
TEST(ConvCuda, LongHostFramesGoInWindowsAndDecideAsWholeFrames) {
  SKIP_WITHOUT_GPU();
  struct window_case {
    conv_code code;
    puncture_pattern pattern;
    tile_shape tile;
    cuda_kernel kernel;
  };
  const std::vector<window_case> cases{
      {conv_code(7, {0171, 0133}),
       puncture_pattern::none(2),
       {264, 36, 36, 36},
       cuda_kernel::registers},
      {conv_code(7, {0171, 0133}),
       puncture_pattern::standard("3/4", 2),
       {264, 72, 72, 36},
       cuda_kernel::registers},
      {conv_code(9, {0561, 0753}),
       puncture_pattern::none(2),
       {264, 48, 48, 66},
       cuda_kernel::registers},
      {conv_code(5, {025, 027, 033, 037}),
       puncture_pattern::none(4),
       {100, 20, 25, 0},
       cuda_kernel::shared_memory},
  };
  for (const window_case& c : cases)
    for (const termination term : all_terminations)
      for (const std::size_t N : {c.tile.f * 20, c.tile.f * 40 - 77, c.tile.f * 10 + 1}) {
        SCOPED_TRACE(c.code.to_string() + ", pattern " + c.pattern.to_string() + ", " +
                     std::string(name_of(term)) + ", N = " + std::to_string(N));
        const std::size_t frames = 3;
        auto gpu =
            tiled_plan(c.code, c.pattern, N, term, c.tile, backend::cuda, frames, c.kernel, 7);
        auto cpu = tiled_plan(c.code, c.pattern, N, term, c.tile, backend::cpu, frames);
        const bool windowed = gpu.describe().find("windows of 7 tiles") != std::string::npos;
        EXPECT_EQ(windowed, term != termination::tail_biting) << gpu.describe();
        const std::size_t coded = gpu.shape().coded_bits;
        const auto llr = random_llrs(frames * coded, N + 17 * static_cast<std::size_t>(term));
        const auto expected = decode_on(cpu, llr, frames);
        ASSERT_EQ(decode_on(gpu, llr, frames), expected);
        page_locked_vector<std::int8_t> locked_llr(llr.begin(), llr.end());
        page_locked_vector<std::uint8_t> locked_bits(expected.size(), 2);
        gpu.decode(batch_view<std::int8_t>::uniform(locked_llr.data(), frames, coded),
                   batch_span<std::uint8_t>::uniform(locked_bits.data(), frames, N));
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), locked_bits.begin()))
            << "page-locked";
      }
}

// One frame of two and a half of the plan's own windows (a wave of resident tiles or more) from
// host memory: the bits of the device path on the whole frame.
TEST(ConvCuda, AHostFrameOfSeveralDefaultWindowsEqualsTheDevicePath) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::none(2);
  // The plan's window for a frame far longer than any device's wave, read from describe().
  const auto probe =
      tiled_plan(code, pattern, std::size_t{1} << 30, termination::truncated, {}, backend::cuda, 1);
  const std::string text = probe.describe();
  const std::size_t at = text.find("windows of ");
  ASSERT_NE(at, std::string::npos) << text;
  const std::size_t window = std::stoul(text.substr(at + 11));
  const std::size_t N = window * probe.summary().tile.f * 5 / 2 + 123;
  auto plan =
      tiled_plan(code, pattern, N, termination::truncated, probe.summary().tile, backend::cuda, 1);
  ASSERT_NE(plan.describe().find("windows of " + std::to_string(window) + " tiles"),
            std::string::npos)
      << plan.describe();
  const std::size_t coded = plan.shape().coded_bits;
  const auto llr = random_llrs(coded, 99);
  const auto host = decode_on(plan, llr, 1);
  std::int8_t* d_llr = nullptr;
  std::uint8_t* d_bits = nullptr;
  ASSERT_EQ(cudaMalloc(&d_llr, llr.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_bits, host.size()), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_llr, llr.data(), llr.size(), cudaMemcpyHostToDevice), cudaSuccess);
  plan.decode(batch_view<std::int8_t>::uniform(d_llr, 1, coded, memory_space::device),
              batch_span<std::uint8_t>::uniform(d_bits, 1, N, memory_space::device));
  std::vector<std::uint8_t> device(host.size(), 2);
  ASSERT_EQ(cudaMemcpy(device.data(), d_bits, device.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(device, host);
  cudaFree(d_llr);
  cudaFree(d_bits);
}

// Many short frames (802.11 / LTE control-channel sizes) and one long frame in a few thousand
// tiles; float and hard inputs go through the same quantizer as on the CPU.
TEST(ConvCuda, ShortFrameBatchesLongFramesAndEveryInputKind) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::none(2);
  for (const auto& [N, frames] : {std::pair<std::size_t, std::size_t>{200, 4000}, {400000, 2}}) {
    SCOPED_TRACE("frames of " + std::to_string(N) + " bits");
    const encoder enc(code, pattern, N, termination::zero_tail);
    const auto batch = make_int8_batch(enc, frames, channel::sigma_from_ebn0(2.5, 0.5), 43, 8.0);
    auto gpu = tiled_plan(code, pattern, N, termination::zero_tail, {}, backend::cuda, frames);
    auto cpu = tiled_plan(code, pattern, N, termination::zero_tail, gpu.summary().tile,
                          backend::cpu, frames);
    EXPECT_EQ(decode_on(gpu, batch.llr, frames), decode_on(cpu, batch.llr, frames));

    std::vector<float> llr(batch.llr.size());
    std::vector<std::uint8_t> hard(batch.llr.size());
    for (std::size_t i = 0; i < llr.size(); ++i) {
      llr[i] = 0.37f * static_cast<float>(batch.llr[i]) + 0.01f;
      hard[i] = batch.llr[i] < 0;
    }
    std::vector<std::uint8_t> a(frames * N), b(frames * N);
    const std::size_t n = enc.shape().coded_bits;
    gpu.decode(batch_view<float>::uniform(llr.data(), frames, n),
               batch_span<std::uint8_t>::uniform(a.data(), frames, N));
    cpu.decode(batch_view<float>::uniform(llr.data(), frames, n),
               batch_span<std::uint8_t>::uniform(b.data(), frames, N));
    EXPECT_EQ(a, b) << "float LLRs";
    gpu.decode_hard(batch_view<std::uint8_t>::uniform(hard.data(), frames, n),
                    batch_span<std::uint8_t>::uniform(a.data(), frames, N));
    cpu.decode_hard(batch_view<std::uint8_t>::uniform(hard.data(), frames, n),
                    batch_span<std::uint8_t>::uniform(b.data(), frames, N));
    EXPECT_EQ(a, b) << "hard bits";
  }
}

TEST(ConvCuda, PlanReportsWhatItCannotDo) {
  SKIP_WITHOUT_GPU();
  const conv_code code(9, {0561, 0753});
  const auto pattern = puncture_pattern::none(2);
  decoder_options fast;
  fast.decoder = decoder_kind::fast;
  EXPECT_THROW(decoder_plan(code, pattern, 1000, termination::zero_tail, fast, backend::cuda),
               invalid_argument);
  try {  // 60 000 stages of 256 states: 1.9 MB of survivors, more than any SM's shared memory
    tiled_plan(code, pattern, 100000, termination::zero_tail, {60000, 100, 100, 0}, backend::cuda,
               1);
    ADD_FAILURE() << "accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bytes of shared memory"), std::string::npos) << e.what();
  }
  try {  // 2^32 bits at rate 1/2: 2^33 LLRs, past the kernels' 32-bit frame indices
    tiled_plan(code, pattern, std::size_t{1} << 32, termination::truncated, {}, backend::cuda, 1);
    ADD_FAILURE() << "accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("as a stream"), std::string::npos) << e.what();
  }
  const auto plan = tiled_plan(code, pattern, 1000, termination::zero_tail, {}, backend::cuda, 8);
  EXPECT_EQ(plan.summary().where, backend::cuda);
  EXPECT_NE(plan.describe().find("tiled (CUDA kernel: registers: four threads per tile"),
            std::string::npos)
      << plan.describe();
}

}  // namespace
}  // namespace gpufec::conv
