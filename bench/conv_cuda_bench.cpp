// Benchmark program for the CUDA tiled Viterbi decoder (issue 23): K = 7 (171,133), rate 1/2,
// int8 LLRs at Eb/N0 4 dB, frames of 2^20 bits (truncated). Decoded Gb/s with the LLRs already in
// device memory (the device path, median of 5 after a warm-up), end to end from host memory (the
// host path: copies in and out included), for several tile shapes, and the CPU fast decoder on
// all threads on a part of the same frames (the ratio). Built only when CUDA is compiled.
//   conv_cuda_bench [--quick] [--json FILE]
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/philox.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/encoder.hpp"
#include "program.hpp"

namespace {

using namespace gpufec;
using namespace gpufec::conv;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Median seconds of `repeats` calls after one warm-up.
template <class Fn>
double median_seconds(int repeats, Fn&& fn) {
  fn();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  return gpufec::bench::run_program(
      argc, argv, "conv_cuda_bench", "[--quick] [--json FILE]", gpufec::bench::no_own_options,
      [](const gpufec::bench::program_options& program) {
        const bool quick = program.quick;
        if (cuda_device_count() == 0) throw std::runtime_error("no CUDA device");
        const conv_code code(7, {0171, 0133});
        const auto pattern = puncture_pattern::none(2);
        const std::size_t N = std::size_t{1} << 20, frames = quick ? 8 : 32;
        const encoder enc(code, pattern, N, termination::truncated);
        const std::size_t n = enc.shape().coded_bits;
        const double sigma = channel::sigma_from_ebn0(4.0, 0.5);
        std::vector<std::uint8_t> info(frames * N), coded(frames * n);
        std::vector<std::int8_t> llr(frames * n);
#pragma omp parallel for
        for (std::ptrdiff_t fi = 0; fi < static_cast<std::ptrdiff_t>(frames); ++fi) {
          const auto f = static_cast<std::size_t>(fi);
          philox_stream source(7, rng_source, f);
          for (std::size_t i = 0; i < N; ++i)
            info[f * N + i] = static_cast<std::uint8_t>(source.next_bit());
          enc.encode(std::span<const std::uint8_t>(info).subspan(f * N, N),
                     std::span<std::uint8_t>(coded).subspan(f * n, n));
          for (std::size_t i = 0; i < n; ++i) {
            const double L = channel::llr_from_sample(
                channel::awgn_received(7, f, i, coded[f * n + i], sigma), sigma);
            llr[f * n + i] =
                static_cast<std::int8_t>(std::clamp(std::lround(L * 8.0), -127L, 127L));
          }
        }
        std::int8_t* d_llr = nullptr;
        std::uint8_t* d_bits = nullptr;
        check(cudaMalloc(&d_llr, llr.size()), "cudaMalloc");
        check(cudaMalloc(&d_bits, info.size()), "cudaMalloc");
        check(cudaMemcpy(d_llr, llr.data(), llr.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
        const auto in = batch_view<std::int8_t>::uniform(d_llr, frames, n, memory_space::device);
        const auto out = batch_span<std::uint8_t>::uniform(d_bits, frames, N, memory_space::device);
        std::vector<std::uint8_t> bits(info.size());
        const double total_bits = static_cast<double>(frames * N);

        nlohmann::json rows = nlohmann::json::array();
        std::printf(
            "conv_cuda_bench: K=7 (171,133) r=1/2, int8 LLRs at 4 dB, %zu frames of %zu bits\n",
            frames, N);
        std::printf("%-26s | %-10s | %10s | %10s\n", "tile", "path", "Gb/s", "BER");
        for (const tile_shape& tile : {tile_shape{256, 35, 35, 0}, tile_shape{256, 35, 45, 32},
                                       tile_shape{128, 30, 30, 0}, tile_shape{512, 35, 35, 64}}) {
          decoder_options options;
          options.decoder = decoder_kind::tiled;
          options.tile = tile;
          decoder_plan plan(code, pattern, N, termination::truncated, options, backend::cuda,
                            frames);
          for (const bool device : {true, false}) {
            const double s = median_seconds(quick ? 3 : 5, [&] {
              if (device)
                plan.decode(in, out);
              else
                plan.decode(batch_view<std::int8_t>::uniform(llr.data(), frames, n),
                            batch_span<std::uint8_t>::uniform(bits.data(), frames, N));
            });
            if (device)
              check(cudaMemcpy(bits.data(), d_bits, bits.size(), cudaMemcpyDeviceToHost),
                    "cudaMemcpy");
            double errors = 0;
            for (std::size_t i = 0; i < bits.size(); ++i) errors += bits[i] != info[i];
            const double gbps = total_bits / s / 1e9;
            std::printf("%-26s | %-10s | %10.2f | %10.3e\n", tile.to_string().c_str(),
                        device ? "device" : "host", gbps, errors / total_bits);
            rows.push_back({{"tile", tile.to_string()},
                            {"path", device ? "device" : "host"},
                            {"gbps", gbps},
                            {"seconds", s},
                            {"ber", errors / total_bits},
                            {"plan", plan.describe()}});
          }
        }
        // The CPU fast decoder on all threads, on the first frames.
        const std::size_t cpu_frames = std::min<std::size_t>(frames, 4);
        decoder_options fast;
        fast.decoder = decoder_kind::fast;
        decoder_plan cpu(code, pattern, N, termination::truncated, fast, backend::cpu, cpu_frames);
        const double s = median_seconds(3, [&] {
          cpu.decode(batch_view<std::int8_t>::uniform(llr.data(), cpu_frames, n),
                     batch_span<std::uint8_t>::uniform(bits.data(), cpu_frames, N));
        });
        const double cpu_gbps = static_cast<double>(cpu_frames * N) / s / 1e9;
        std::printf("%-26s | %-10s | %10.3f | (%d threads)\n", "CPU fast decoder", "host", cpu_gbps,
                    omp_get_max_threads());
        nlohmann::json result = {{"code", code.to_string()},
                                 {"frames", frames},
                                 {"frame_bits", N},
                                 {"ebn0_db", 4.0},
                                 {"rows", rows},
                                 {"cpu_fast_gbps", cpu_gbps},
                                 {"cpu_threads", omp_get_max_threads()}};
        cudaFree(d_llr);
        cudaFree(d_bits);
        return result;
      });
}
