// `gpufec simulate|decode|bench conv --backend cuda` end to end through the real binary: the CUDA
// tiled decoder gives the CPU tiled decoder's counts (same seed, same tile) and bits (same files),
// its reports name the backend, the device and the tile, and the bench writes its CUDA rows beside
// the CPU rows. Every test skips without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conv/cli_test_util.hpp"
#include "conv/conv_test_util.hpp"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/reference.hpp"

namespace gpufec::conv::testing {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

class ConvCudaCli : public ConvCliTest {
 protected:
  // Runs `args --json FILE` and returns the report.
  nlohmann::json simulate(const std::string& args, const std::string& name) {
    const auto r = run_cli(args + " --json " + path(name));
    EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
    return r.status == 0 ? read_json(path(name)) : nlohmann::json();
  }
};

// Same seed, same tile (the one the CUDA run reports: its default, fitted to the device and the
// batch): the CUDA run and the CPU tiled run see the same frames and decide alike,
// so every point has the same frames, frame errors and bit errors, for int8 LLRs (made on the GPU,
// the device path) and float LLRs (made on the CPU, quantized per frame on the host), at points
// with many errors and with few.
TEST_F(ConvCudaCli, SimulateCudaGivesTheCpuTiledCounts) {
  SKIP_WITHOUT_GPU();
  for (const char* llr : {"int8", "float"}) {
    SCOPED_TRACE(llr);
    const std::string common =
        std::string("simulate conv --K 7 --polys 171,133 --rate 3/4 --ebn0 3,4.5,6 ") +
        "--frame-bits 2000 --max-fe 30 --max-frames 4000 --seed 9 --llr " + llr;
    const auto gpu = simulate(common + " --backend cuda", "gpu.json");
    ASSERT_FALSE(gpu.is_null());
    // The GPU's default tile is fitted to the device and batch; the CPU runs the shape it reports.
    const auto& g = gpu["parameters"];
    const std::string tile = std::to_string(g["tile_f"].get<int>()) + "," +
                             std::to_string(g["tile_v1"].get<int>()) + "," +
                             std::to_string(g["tile_v2"].get<int>()) + "," +
                             std::to_string(g["tile_f0"].get<int>());
    const auto cpu = simulate(common + " --backend cpu --decoder tiled --tile " + tile, "cpu.json");
    ASSERT_FALSE(cpu.is_null());
    EXPECT_EQ(gpu["backend"], "cuda");
    EXPECT_EQ(cpu["backend"], "cpu");
    const auto& p = gpu["parameters"];
    EXPECT_EQ(p["decoder"], "tiled");
    for (const char* key : {"tile_f", "tile_v1", "tile_v2", "tile_f0"})
      EXPECT_EQ(p[key], cpu["parameters"][key]) << key;
    EXPECT_EQ(p["device"], cuda_devices().front().name);
    EXPECT_FALSE(p["cuda_kernel"].get<std::string>().empty()) << p.dump();
    EXPECT_EQ(p["llr_path"].get<std::string>().rfind("device", 0), 0u) << p.dump();
    EXPECT_FALSE(cpu["parameters"].contains("device"));
    ASSERT_EQ(gpu["points"].size(), 3u);
    ASSERT_EQ(cpu["points"].size(), 3u);
    for (std::size_t k = 0; k < 3; ++k)
      for (const char* key : {"frames", "frame_errors", "bit_errors"})
        EXPECT_EQ(gpu["points"][k][key], cpu["points"][k][key]) << "point " << k << " " << key;
    EXPECT_GT(gpu["points"][0]["bit_errors"].get<std::uint64_t>(),
              0u);  // the counts mean something
  }
}

// A chosen tile with parallel traceback, tail-biting, hard decisions: the same counts again.
TEST_F(ConvCudaCli, SimulateCudaWithATileGivesTheCpuTiledCounts) {
  SKIP_WITHOUT_GPU();
  for (const char* llr : {"int8", "hard"}) {
    SCOPED_TRACE(llr);
    const std::string common =
        std::string("simulate conv --term tailbiting --frame-bits 1000 --ebn0 2,4 --max-fe 25 ") +
        "--max-frames 3000 --seed 3 --decoder tiled --tile 64,20,40,16 --llr " + llr;
    const auto gpu = simulate(common + " --backend cuda", "gpu.json");
    const auto cpu = simulate(common + " --backend cpu", "cpu.json");
    ASSERT_FALSE(gpu.is_null());
    ASSERT_FALSE(cpu.is_null());
    EXPECT_EQ(gpu["parameters"]["tile_f"], 64);
    EXPECT_EQ(gpu["parameters"]["tile_f0"], 16);
    for (std::size_t k = 0; k < 2; ++k)
      for (const char* key : {"frames", "frame_errors", "bit_errors"})
        EXPECT_EQ(gpu["points"][k][key], cpu["points"][k][key]) << "point " << k << " " << key;
  }
}

// --backend auto runs on the GPU; its BER (the tiled decoder) agrees with the CPU fast decoder's
// (full traceback) within the statistics: the 95% intervals overlap.
TEST_F(ConvCudaCli, SimulateAutoRunsOnTheGpuWithTheCpuBer) {
  SKIP_WITHOUT_GPU();
  const std::string common = "simulate conv --ebn0 3 --frame-bits 1000 --seed 4";
  const std::string long_run = common + " --max-fe 200 --max-frames 200000";
  const auto gpu = simulate(long_run, "auto.json");
  const auto cpu = simulate(long_run + " --backend cpu", "cpu.json");
  ASSERT_FALSE(gpu.is_null());
  ASSERT_FALSE(cpu.is_null());
  EXPECT_EQ(gpu["backend"], "cuda");
  EXPECT_EQ(cpu["parameters"]["decoder"], "fast");
  // The header's tile is the one every point ran (the CUDA plan fits it to the chain's batch).
  const auto& p = gpu["parameters"];
  const std::string header_tile = "f=" + std::to_string(p["tile_f"].get<int>()) +
                                  " v1=" + std::to_string(p["tile_v1"].get<int>()) +
                                  " v2=" + std::to_string(p["tile_v2"].get<int>()) +
                                  " f0=" + std::to_string(p["tile_f0"].get<int>());
  for (const auto& point : gpu["points"]) EXPECT_EQ(point["details"]["tile"], header_tile) << point;
  const auto a = gpu["points"][0]["ber_ci95"], b = cpu["points"][0]["ber_ci95"];
  EXPECT_LE(a[0].get<double>(), b[1].get<double>()) << a << " " << b;
  EXPECT_LE(b[0].get<double>(), a[1].get<double>()) << a << " " << b;
  // The table header names the backend, and the per-point line the CUDA kernel.
  const auto r = run_cli(common + " --max-frames 100");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("simulate conv on cuda"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("# device = "), std::string::npos) << r.output;
}

// A file of noisy frames decoded by the CUDA plan, in chunks of several sizes (a chunk smaller
// than a frame still takes one), equals the CPU tiled decoder's output bit for bit, for float
// and int8 input, both CUDA kernels, the default tile and a chosen one.
TEST_F(ConvCudaCli, DecodeCudaEqualsCpuTiled) {
  SKIP_WITHOUT_GPU();
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::parse("2/3", 2);
  const std::size_t N = 1500, frames = 23;
  const encoder enc(code, pattern, N, termination::zero_tail);
  const std::size_t n = enc.shape().coded_bits;
  const double sigma = channel::sigma_from_ebn0(2.5, pattern.rate());
  std::vector<float> llr;
  for (std::size_t f = 0; f < frames; ++f) {
    std::vector<std::uint8_t> coded(n);
    enc.encode(random_bits(31, f, N), coded);
    const auto l = awgn_llrs(coded, sigma, 31, f);
    llr.insert(llr.end(), l.begin(), l.end());
  }
  std::vector<std::int8_t> q(llr.size());
  quantize_llrs(llr, channel::int8_llr_scale(sigma), q);
  write_raw(path("f.f32"), llr);
  write_raw(path("f.i8"), q);
  // The library's CPU tiled decoder: what both runs must give (the default tile).
  decoder_options tiled;
  tiled.decoder = decoder_kind::tiled;
  decoder_plan plan(code, pattern, N, termination::zero_tail, tiled, backend::cpu, frames);
  std::vector<std::uint8_t> want(frames * N);
  plan.decode(batch_view<float>::uniform(llr.data(), frames, n),
              batch_span<std::uint8_t>::uniform(want.data(), frames, N));

  // Per variant: the CUDA run's decoder options and the CPU tiled run's (the same tile: without
  // --tile, the shared kernel runs its own, f = 256 without subframes, the register kernel the
  // default one).
  struct variant {
    std::string gpu, cpu;
  };
  const std::string depth = std::to_string(default_traceback_depth(code, pattern));
  const variant variants[] = {
      {"", " --decoder tiled"},
      {" --cuda-kernel shared", " --decoder tiled --tile 256," + depth + "," + depth + ",0"},
      {" --cuda-kernel registers", " --decoder tiled"},
      {" --decoder tiled --tile 128,30,30,32 --cuda-kernel shared",
       " --decoder tiled --tile 128,30,30,32"}};
  const std::string opts = " --rate 2/3 --frame-bits 1500";
  for (const char* format : {"f32", "i8"})
    for (const variant& v : variants)
      for (const char* chunk : {"1000", "30000", "1000000"}) {
        const std::string args = opts + " --input-format " + format + " -i " +
                                 path(std::string("f.") + format) + " --chunk " + chunk;
        SCOPED_TRACE(args + v.gpu);
        auto r = run_cli("decode conv --backend cuda" + args + v.gpu + " -o " + path("gpu.txt"));
        ASSERT_EQ(r.status, 0) << r.output;
        EXPECT_NE(r.output.find("CUDA: "), std::string::npos) << r.output;
        r = run_cli("decode conv --backend cpu" + args + v.cpu + " -o " + path("cpu.txt"));
        ASSERT_EQ(r.status, 0) << r.output;
        const std::string gpu = read_all(path("gpu.txt")), cpu = read_all(path("cpu.txt"));
        EXPECT_EQ(std::count(gpu.begin(), gpu.end(), '\n'), static_cast<long>(frames));
        EXPECT_EQ(gpu, cpu);
        if (std::string(format) == "f32" && v.cpu == " --decoder tiled") {
          EXPECT_EQ(bits_of_text(gpu), bits_string(want));
        }
      }
  // --decoder reference on CUDA is a bad command line.
  const auto r = run_cli("decode conv --backend cuda --decoder reference" + opts +
                         " --input-format f32 -i " + path("f.f32") + " -o " + path("x.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("decoder reference runs on the CPU only"), std::string::npos) << r.output;
}

// bench conv --backend cuda: the CPU rows and, per code and rate, a host, a page-locked host and a
// device CUDA row with their tile, kernel and ratio to the fast decoder.
TEST_F(ConvCudaCli, BenchWritesCudaRowsBesideTheCpuRows) {
  SKIP_WITHOUT_GPU();
  const auto r = run_cli(
      "bench conv --backend cuda --K 7 --rates 1/2 3/4 --frame-bits 2048 --frames 4 "
      "--reference-frames 1 --repeats 2 --json " +
      path("bench.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("CUDA rows on"), std::string::npos) << r.output;
  const auto j = read_json(path("bench.json"));
  EXPECT_EQ(j["cuda_device"], cuda_devices().front().name);
  std::size_t cpu = 0, host = 0, locked = 0, device = 0;
  for (const auto& row : j["rows"]) {
    EXPECT_GT(row["mbps"].get<double>(), 0) << row.dump();
    if (row["backend"] == "cpu") {
      ++cpu;
      continue;
    }
    EXPECT_EQ(row["backend"], "cuda");
    EXPECT_EQ(row["input"], "int8");
    EXPECT_FALSE(row["tile"].get<std::string>().empty()) << row.dump();
    EXPECT_FALSE(row["kernel"].get<std::string>().empty()) << row.dump();
    EXPECT_GT(row["vs_cpu_fast_int8_all_threads"].get<double>(), 0) << row.dump();
    EXPECT_LT(row["ber"].get<double>(), 1e-2) << row.dump();  // 4 dB: a working decoder
    const std::string decoder = row["decoder"];
    const bool page_locked = decoder.find("page-locked host") != std::string::npos;
    locked += page_locked;
    host += !page_locked && decoder.find("host") != std::string::npos;
    device += decoder.find("device") != std::string::npos;
  }
  EXPECT_GE(cpu, 6u);  // reference, fast float and fast int8 per rate at least
  EXPECT_EQ(host, 2u);
  EXPECT_EQ(locked, 2u);
  EXPECT_EQ(device, 2u);
}

}  // namespace
}  // namespace gpufec::conv::testing
