// `gpufec simulate|decode|encode|info|bench polar` end to end through the real binary: the
// simulator's counts and typed report, the encode -> channel -> decode round trip, the frozen set
// written and read back, and every bad input and option with its exit status and message.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_util.hpp"
#include "gpufec/common/bit_file.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/random.hpp"
#include "gpufec/polar/decoder.hpp"
#include "gpufec/polar/encoder.hpp"

namespace gpufec::polar {
namespace {

using gpufec::testing::cli_result;
using gpufec::testing::read_all;
using gpufec::testing::run_cli;
using gpufec::testing::run_shell;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class PolarCli : public gpufec::testing::cli_test {
 protected:
  // Runs a simulation with a JSON report and returns the report.
  nlohmann::json simulate(const std::string& args) {
    const std::string json = path("sim.json");
    std::filesystem::remove(json);
    const cli_result r = run_cli("simulate polar " + args + " --json " + json);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
    return r.status == 0 ? nlohmann::json::parse(read_all(json)) : nlohmann::json();
  }
};

// Random information words, one line of K 0/1 per frame, from Philox stream (seed, f).
std::string random_words(std::size_t frames, std::size_t K, std::uint64_t seed) {
  std::string text;
  for (std::size_t f = 0; f < frames; ++f) {
    philox_stream bits(seed, rng_source, f);
    for (std::size_t k = 0; k < K; ++k) text += bits.next_bit() ? '1' : '0';
    text += '\n';
  }
  return text;
}

// Noise-free LLRs (+4 for 0, -4 for 1) of the codewords in a text frames file, one line each.
std::string noise_free_llrs(const std::string& codewords) {
  std::string text;
  for (const char c : codewords) {
    if (c == '\n') text += '\n';
    if (c == '0' || c == '1') text += c == '0' ? "4 " : "-4 ";
  }
  return text;
}

const char* const bp_args = "--decoder bp --bp-update lr --iters 30 --early-stop";

TEST_F(PolarCli, SimulateCountsDoNotDependOnThreadsOrBatch) {
  for (const std::string decoder : {"--decoder sc", bp_args}) {
    const std::string args =
        "--N 128 --K 64 --ebn0 1,3 --max-frames 700 --max-fe 0 --seed 5 " + decoder;
    const auto a = simulate(args + " --threads 1");
    const auto b = simulate(args + " --threads 2 --batch 37");
    const auto c = simulate(args + " --threads 2 --batch 5000");
    ASSERT_EQ(a["points"].size(), 2u);
    for (const auto* other : {&b, &c})
      for (std::size_t p = 0; p < 2; ++p) {
        const auto& x = a["points"][p];
        const auto& y = (*other)["points"][p];
        EXPECT_EQ(x["frames"], 700);
        EXPECT_EQ(x["frames"], y["frames"]) << decoder;
        EXPECT_EQ(x["frame_errors"], y["frame_errors"]) << decoder;
        EXPECT_EQ(x["bit_errors"], y["bit_errors"]) << decoder;
        // With --max-frames the decoder runs exactly the counted frames: the same mean.
        EXPECT_EQ(x["details"]["decoded_frames"], 700);
        EXPECT_EQ(x["details"].value("mean_iterations", nlohmann::json()),
                  y["details"].value("mean_iterations", nlohmann::json()))
            << decoder;
      }
    EXPECT_GT(a["points"][0]["frame_errors"].get<int>(), 0) << "1 dB must show errors";
  }
}

TEST_F(PolarCli, SimulateReportsTypedParametersAndMeanIterations) {
  const auto bp = simulate(
      "--N 256 --K 128 --construct ga:2 --systematic --decoder bp --bp-update scaled:0.9 --iters "
      "25 --early-stop --ebn0 0,4 --max-frames 300 --max-fe 0 --backend cpu");
  const auto& p = bp["parameters"];
  EXPECT_EQ(bp["family"], "polar");
  EXPECT_EQ(bp["backend"], "cpu");
  EXPECT_TRUE(p["N"].is_number_integer() && p["N"] == 256);
  EXPECT_TRUE(p["K"].is_number_integer() && p["K"] == 128);
  EXPECT_EQ(p["rate"], 0.5);
  EXPECT_EQ(p["construction"], "ga");
  EXPECT_TRUE(p["design_ebn0_db"].is_number() && p["design_ebn0_db"] == 2.0);
  EXPECT_TRUE(p["frozen_file"].is_null());
  EXPECT_TRUE(p["frozen_set_fnv1a64"].is_string());
  EXPECT_EQ(p["frozen_set_fnv1a64"].get<std::string>().size(), 16u);
  EXPECT_EQ(p["systematic"], true);
  EXPECT_EQ(p["decoder"], "bp");
  EXPECT_EQ(p["update"], "scaled");
  EXPECT_EQ(p["scale"], 0.9);  // the float 0.9f reported as its shortest decimal
  EXPECT_EQ(p["iterations"], 25);
  EXPECT_EQ(p["early_stop"], true);
  // Mean iterations: a number within [1, 25], far fewer at 4 dB than at 0 dB with early stopping.
  const auto& low = bp["points"][0]["details"];
  const auto& high = bp["points"][1]["details"];
  ASSERT_TRUE(low["mean_iterations"].is_number()) << low;
  ASSERT_TRUE(high["mean_iterations"].is_number()) << high;
  const double m0 = low["mean_iterations"], m4 = high["mean_iterations"];
  EXPECT_GE(m4, 1.0);
  EXPECT_LE(m0, 25.0);
  EXPECT_LT(m4, m0);
  EXPECT_LT(m4, 10.0) << "at 4 dB most frames converge within a few iterations";

  // Without early stopping every frame runs the cap; SC has no iterations at all.
  const auto fixed =
      simulate("--N 64 --K 32 --decoder bp --iters 7 --ebn0 2 --max-frames 50 --max-fe 0");
  EXPECT_EQ(fixed["points"][0]["details"]["mean_iterations"], 7.0);
  EXPECT_EQ(fixed["parameters"]["update"], "lr");
  EXPECT_TRUE(fixed["parameters"]["scale"].is_null());
  const auto sc = simulate("--N 64 --K 32 --ebn0 2 --max-frames 50 --max-fe 0");
  EXPECT_EQ(sc["parameters"]["decoder"], "sc");
  EXPECT_EQ(sc["parameters"]["update"], "sp");
  EXPECT_TRUE(sc["parameters"]["iterations"].is_null());
  EXPECT_TRUE(sc["parameters"]["early_stop"].is_null());
  EXPECT_EQ(sc["parameters"]["systematic"], false);
  EXPECT_TRUE(sc["parameters"]["design_ebn0_db"].is_null());
  EXPECT_FALSE(sc["points"][0]["details"].contains("mean_iterations"));
  // The table's details line shows the mean too.
  const auto r = run_cli(
      "simulate polar --N 64 --K 32 --decoder bp --early-stop --ebn0 3 "
      "--max-frames 40 --max-fe 0");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "mean_iterations=")) << r.output;
  EXPECT_TRUE(contains(r.output, "# decoder = bp")) << r.output;
}

TEST_F(PolarCli, EncodeThenDecodeNoiseFreeReturnsTheBits) {
  const std::size_t N = 64, K = 40, frames = 9;
  const std::string words = random_words(frames, K, 11);
  std::ofstream(path("info.txt")) << words;
  for (const bool systematic : {false, true}) {
    const std::string code =
        std::string("--N 64 --K 40 --construct bhatt:1") + (systematic ? " --systematic" : "");
    auto r = run_cli("encode polar " + code + " -i " + path("info.txt") + " -o " + path("x.txt"));
    ASSERT_EQ(r.status, 0) << r.output;
    // The codewords are the library's.
    const polar_code lib(N, K, construction_spec::parse("bhatt:1"),
                         systematic ? encoding::systematic : encoding::non_systematic);
    const auto info = read_bit_frames(path("info.txt"), bit_format::text);
    const auto x = read_bit_frames(path("x.txt"), bit_format::text);
    ASSERT_EQ(x.frames(), frames);
    for (std::size_t f = 0; f < frames; ++f) {
      std::vector<std::uint8_t> want(N);
      encode(lib, info.frame(f), want);
      ASSERT_TRUE(std::equal(want.begin(), want.end(), x.frame(f).begin())) << f;
    }
    std::ofstream(path("llr.txt")) << noise_free_llrs(read_all(path("x.txt")));
    for (const std::string decoder : {"--decoder sc", "--decoder sc --impl reference", bp_args,
                                      "--decoder bp --bp-update minsum --impl reference"}) {
      r = run_cli("decode polar " + code + " " + decoder + " -i " + path("llr.txt") + " -o " +
                  path("out.txt"));
      ASSERT_EQ(r.status, 0) << decoder << "\n" << r.output;
      EXPECT_EQ(read_all(path("out.txt")), words) << decoder << " systematic " << systematic;
    }
  }
  // Packed bits (raw, MSB first) and framed files out, raw float32 LLRs in.
  const auto info = read_bit_frames(path("info.txt"), bit_format::text);
  for (const std::string format : {"packed", "framed"}) {
    SCOPED_TRACE(format);
    const bit_format f = parse_name<bit_format>(format, "format");
    auto r = run_cli("encode polar --N 64 --K 40 -i " + path("info.txt") + " --output-format " +
                     format + " -o " + path("x.bin"));
    ASSERT_EQ(r.status, 0) << r.output;
    if (f == bit_format::packed) {
      EXPECT_EQ(read_all(path("x.bin")).size(), frames * 64 / 8);  // no header, no padding
    }
    const auto x = read_bit_frames(path("x.bin"), f, 64);
    ASSERT_EQ(x.frames(), frames);
    std::vector<float> llr;
    for (const std::uint8_t b : x.data()) llr.push_back(b ? -3.5f : 3.5f);
    std::ofstream(path("llr.f32"), std::ios::binary)
        .write(reinterpret_cast<const char*>(llr.data()),
               static_cast<std::streamsize>(llr.size() * sizeof(float)));
    r = run_cli("decode polar --N 64 --K 40 --decoder bp -i " + path("llr.f32") +
                " --input-format f32 --output-format " + format + " -o " + path("out.bin"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(read_bit_frames(path("out.bin"), f, 40).data(), info.data());
    // The same codewords as hard decisions, in the same file: the min-sum decoders need no --p.
    for (const std::string decoder :
         {"--decoder sc --sc-update minsum", "--decoder bp --bp-update minsum --iters 30"}) {
      r = run_cli("decode polar --N 64 --K 40 " + decoder + " --input-kind hard --input-format " +
                  format + " -i " + path("x.bin") + " -o " + path("hard.txt"));
      ASSERT_EQ(r.status, 0) << decoder << "\n" << r.output;
      EXPECT_EQ(read_all(path("hard.txt")), words) << decoder;
    }
  }
  // Hard input to the exact rules needs the channel's crossover for the LLRs' magnitude.
  auto expect_usage = [](const std::string& args, const std::string& named) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, named)) << args << "\n" << r.output;
  };
  expect_usage("decode polar --N 64 --K 40 --decoder sc --input-kind hard -i " + path("x.txt") +
                   " -o " + path("hard.txt"),
               "--p");
  auto r = run_cli("decode polar --N 64 --K 40 --decoder sc --input-kind hard --p 0.01 -i " +
                   path("x.bin") + " -o " + path("hard.txt"));  // framed, found by auto
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(path("hard.txt")), words);
  expect_usage("decode polar --N 64 --K 40 --input-kind hard --input-format f32 -i " +
                   path("x.txt") + " -o " + path("hard.txt"),
               "is for LLRs");
  expect_usage("decode polar --N 64 --K 40 --input-format packed -i " + path("x.txt") + " -o " +
                   path("hard.txt"),
               "is for hard bits");
  expect_usage("decode polar --N 64 --K 40 --p 0.1 -i " + path("x.txt") + " -o " + path("hard.txt"),
               "--p applies to hard input");
}

TEST_F(PolarCli, EncodeChannelDecodeThroughPipes) {
  std::ofstream(path("info.txt")) << random_words(20, 16, 3);
  const std::string code = "--N 32 --K 16";
  const auto r = run_shell("GPUFEC encode polar " + code + " -i " + path("info.txt") +
                           " -o - | GPUFEC channel awgn --esn0 20 --seed 4 -i - -o - | GPUFEC "
                           "decode polar " +
                           code + " --decoder bp --early-stop -i - -o " + path("out.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(path("out.txt")), read_all(path("info.txt")));
  EXPECT_TRUE(contains(r.output, "mean BP iterations")) << r.output;
}

TEST_F(PolarCli, SoftOutputsAreTheLibrarys) {
  // Noisy LLRs at 1 dB; the binary's info-llr (text) and codeword-llr (f32) are the plan's.
  const std::size_t N = 64, K = 32, frames = 6;
  const polar_code code(N, K);
  std::vector<float> llr(frames * N);
  philox_stream noise(9, rng_channel, 0);
  for (float& v : llr) v = static_cast<float>(2.0 * (noise.next_uniform() - 0.3) * 3);
  std::ofstream(path("llr.f32"), std::ios::binary)
      .write(reinterpret_cast<const char*>(llr.data()),
             static_cast<std::streamsize>(llr.size() * sizeof(float)));
  decoder_options o;
  o.decoder = decoder_kind::bp;
  o.update = update_rule::min_sum;
  o.iterations = 12;
  o.output = output_kind::codeword_llrs;
  decoder_plan plan(code, o, backend::cpu, frames);
  std::vector<float> want(frames * N);
  plan.decode_soft(batch_view<float>::uniform(llr.data(), frames, N),
                   batch_span<float>::uniform(want.data(), frames, N));
  auto r = run_cli("decode polar --N 64 --K 32 --decoder bp --bp-update minsum --iters 12 -i " +
                   path("llr.f32") +
                   " --input-format f32 --output-kind codeword-llr "
                   "--output-format f32 -o " +
                   path("soft.f32"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string bytes = read_all(path("soft.f32"));
  ASSERT_EQ(bytes.size(), want.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(bytes.data(), want.data(), bytes.size()), 0);

  o.output = output_kind::info_llrs;
  decoder_plan info_plan(code, o, backend::cpu, frames);
  std::vector<float> info(frames * K);
  info_plan.decode_soft(batch_view<float>::uniform(llr.data(), frames, N),
                        batch_span<float>::uniform(info.data(), frames, K));
  r = run_cli("decode polar --N 64 --K 32 --decoder bp --bp-update minsum --iters 12 -i " +
              path("llr.f32") + " --input-format f32 --output-kind info-llr -o " +
              path("soft.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream lines(read_all(path("soft.txt")));
  std::string line;
  std::size_t f = 0;
  for (; std::getline(lines, line); ++f) {
    std::istringstream values(line);
    std::size_t k = 0;
    for (double v; values >> v; ++k) EXPECT_EQ(static_cast<float>(v), info[f * K + k]);
    EXPECT_EQ(k, K) << "line " << f;
  }
  EXPECT_EQ(f, frames);
}

TEST_F(PolarCli, InfoWritesTheFrozenSetThatConstructFileReadsBack) {
  auto r = run_cli("info polar --N 1024 --K 512 --construct 5g -o " + path("frozen.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string text = read_all(path("frozen.txt"));
  // Standard output holds the same bytes.
  r = run_cli("info polar --N 1024 --K 512");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.output, text);
  // The indices are the library's 5G set; spot checks from TS 38.212 Table 5.3.1.2-1: the 16
  // least reliable Q_0..Q_15 are frozen, Q_511 = 190 is frozen, Q_512 = 364 and the most reliable
  // Q_1016..Q_1023 (991, 1020, 1007, 1015, 1019, 1021, 1022, 1023) are not.
  // The file names the code it is for (N and K lines), then the frozen indices.
  EXPECT_NE(text.find("\nN 1024\nK 512\n"), std::string::npos) << text;
  std::vector<std::uint32_t> indices;
  std::istringstream in(text.substr(text.find("\nfrozen\n") + 8));
  for (std::string word; in >> word;)
    indices.push_back(static_cast<std::uint32_t>(std::stoul(word)));
  EXPECT_EQ(indices, polar_code(1024, 512).frozen_positions());
  const std::vector<std::uint8_t> mask = polar_code(1024, 512).frozen_mask();
  for (int q : {0, 1, 2, 4, 8, 16, 32, 3, 5, 64, 9, 6, 17, 10, 18, 128, 190})
    EXPECT_NE(std::find(indices.begin(), indices.end(), q), indices.end()) << q;
  for (int q : {364, 991, 1020, 1007, 1015, 1019, 1021, 1022, 1023})
    EXPECT_EQ(std::find(indices.begin(), indices.end(), q), indices.end()) << q;

  // Read back by --construct FILE: the same code, hence the same counts and fingerprint.
  const std::string run = " --N 1024 --K 512 --ebn0 2.5 --max-frames 150 --max-fe 0 --seed 3";
  const auto a = simulate("--construct 5g" + run);
  const auto b = simulate("--construct " + path("frozen.txt") + run);
  EXPECT_EQ(a["points"][0]["frame_errors"], b["points"][0]["frame_errors"]);
  EXPECT_EQ(a["points"][0]["bit_errors"], b["points"][0]["bit_errors"]);
  EXPECT_EQ(a["parameters"]["frozen_set_fnv1a64"], b["parameters"]["frozen_set_fnv1a64"]);
  EXPECT_EQ(b["parameters"]["construction"], "file");
  EXPECT_EQ(b["parameters"]["frozen_file"], path("frozen.txt"));
  // A GA set for another N differs in its fingerprint.
  const auto c = simulate("--construct ga:2.5" + run);
  EXPECT_NE(a["parameters"]["frozen_set_fnv1a64"], c["parameters"]["frozen_set_fnv1a64"]);
}

TEST_F(PolarCli, BadLlrFilesExitOneNamingThePlaceAndLeaveNoOutput) {
  const std::string decode = "decode polar --N 8 --K 4 -o " + path("out.txt") + " -i ";
  auto expect_error = [&](const std::string& args, const std::vector<std::string>& named) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.output;
    for (const auto& n : named) EXPECT_TRUE(contains(r.output, n)) << args << "\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(path("out.txt"))) << args;
  };
  std::ofstream(path("short.txt")) << "1 2 3 4 5 6 7 8\n1 2 3 4\n";
  expect_error(decode + path("short.txt"), {"short.txt", "12 LLRs are not whole frames of N = 8",
                                            "1 whole frame and 4 LLRs left over"});
  std::ofstream(path("nan.txt")) << "1 2 3 4 5 6 7 8\n1 2 nan 4 5 6 7 8\n";
  expect_error(decode + path("nan.txt"), {"nan.txt:2", "not finite"});
  std::ofstream(path("word.txt")) << "1 2 3 4 5 6 7 x8\n";
  expect_error(decode + path("word.txt"), {"word.txt:1", "'x8' is not a number"});
  const float values[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::ofstream(path("trunc.f32"), std::ios::binary)
      .write(reinterpret_cast<const char*>(values), 33);
  expect_error(decode + path("trunc.f32") + " --input-format f32", {"trunc.f32", "truncated"});
  float inf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  inf[5] = 1.0f / 0.0f;
  std::ofstream(path("inf.f32"), std::ios::binary).write(reinterpret_cast<const char*>(inf), 32);
  expect_error(decode + path("inf.f32") + " --input-format f32", {"inf.f32", "sample 5"});
  std::ofstream(path("empty.txt")).flush();
  expect_error(decode + path("empty.txt"), {"empty.txt", "empty"});
  std::ofstream(path("comments.txt")) << "# nothing\n";
  expect_error(decode + path("comments.txt"), {"comments.txt", "no samples"});
  expect_error(decode + path("missing.txt"), {"missing.txt"});
  // A frozen-set file that is not one: a directory, a binary file, repeated indices.
  std::ofstream(path("ok8.txt")) << "1 2 3 4 5 6 7 8\n";
  expect_error(decode + path("ok8.txt") + " --construct " + path(""), {"is a directory"});
  std::ofstream(path("bin.txt"), std::ios::binary) << std::string("\0\1", 2);
  expect_error(decode + path("ok8.txt") + " --construct " + path("bin.txt"),
               {"bin.txt", "not a text file", "a frozen-set file is text"});
  std::ofstream(path("dup.txt")) << "frozen\n0 1 1 2\n";
  std::ofstream(path("ok.txt")) << "1 2 3 4 5 6 7 8\n";
  expect_error(decode + path("ok.txt") + " --construct " + path("dup.txt"),
               {"dup.txt", "repeats index 1"});
  // Information bits of the wrong length, or not bits.
  std::ofstream(path("bits.txt")) << "0101\n011\n";
  auto r = run_cli("encode polar --N 8 --K 4 -i " + path("bits.txt") + " -o " + path("out.txt"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(
      contains(r.output, "bits.txt:2: line holds 3 bits, not a whole number of frames of 4"))
      << r.output;
  std::ofstream(path("bits.txt")) << "0101\n0121\n";
  r = run_cli("encode polar --N 8 --K 4 -i " + path("bits.txt") + " -o " + path("out.txt"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "bits.txt:2")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("out.txt")));
}

TEST_F(PolarCli, BadOptionsExitTwoNamingTheOption) {
  auto expect_usage = [](const std::string& args, const std::string& named) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, named)) << args << "\n" << r.output;
  };
  const std::string sim = "simulate polar --ebn0 2 --max-frames 10 ";
  expect_usage(sim + "--N 1000", "--N");
  expect_usage(sim + "--N 1", "power of two");
  expect_usage(sim + "--N 256 --K 300", "--K 300");
  expect_usage(sim + "--K 0", "--K");
  expect_usage(sim + "--N 2048", "--construct 5g is defined for N <= 1024");
  expect_usage(sim + "--construct ga:abc", "--construct");
  expect_usage(sim + "--construct ga:nan", "finite");
  expect_usage(sim + "--construct bhatt:200", "[-100, 100]");
  expect_usage(sim + "--decoder bp --bp-update scaled:1.5", "(0, 1]");
  expect_usage(sim + "--decoder bp --bp-update maxsum", "--bp-update");
  expect_usage(sim + "--decoder bp --iters 0", "--iters");
  expect_usage(sim + "--iters 5", "--iters applies to --decoder bp");
  expect_usage(sim + "--early-stop", "--early-stop applies to --decoder bp");
  expect_usage(sim + "--decoder bp --sc-update minsum", "--sc-update applies to --decoder sc");
  expect_usage(sim + "--decoder viterbi", "--decoder");
  expect_usage("simulate polar --N 64", "--ebn0");
  expect_usage("simulate polar --N 64 --ebn0 1,400 --max-frames 10", "--ebn0 400");
  const std::string dec = "decode polar --N 8 --K 4 -i x.txt ";
  expect_usage(dec, "--output");  // decode writes something, always
  expect_usage(dec + "-o y --output-kind codeword-llr", "codeword LLR");
  expect_usage(dec + "-o y --output-format f32", "--output-format f32");
  expect_usage(dec + "-o y --output-kind info-llr --output-format packed", "packed");
  expect_usage(dec + "-o y --output-kind info-llr --systematic", "non-systematic");
  expect_usage("encode polar --N 8 --K 4 -i x.txt", "--output");
  expect_usage("bench polar --N 512 --K 600", "--K 600");
}

// An output that names an input is a bad command line (exit 2), refused before anything runs.
TEST_F(PolarCli, OutputsNeverOverwriteInputs) {
  std::ofstream(path("llr.txt")) << "1 2 3 4 5 6 7 8\n";
  auto r = run_cli("decode polar --N 8 --K 4 -i " + path("llr.txt") + " -o " + path("llr.txt"));
  EXPECT_EQ(r.status, 2) << r.output;  // a bad command line
  EXPECT_TRUE(contains(r.output, "same file")) << r.output;
  EXPECT_EQ(read_all(path("llr.txt")), "1 2 3 4 5 6 7 8\n");
  r = run_cli("info polar --N 8 --K 4 -o " + path("frozen.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string frozen = read_all(path("frozen.txt"));
  r = run_cli("info polar --N 8 --K 4 --construct " + path("frozen.txt") + " -o " +
              path("frozen.txt"));
  EXPECT_EQ(r.status, 2) << r.output;  // a bad command line
  r = run_cli("decode polar --N 8 --K 4 --construct " + path("frozen.txt") + " -i " +
              path("llr.txt") + " -o " + path("frozen.txt"));
  EXPECT_EQ(r.status, 2) << r.output;  // a bad command line
  EXPECT_EQ(read_all(path("frozen.txt")), frozen);
  std::ofstream(path("bits.txt")) << "0101\n";
  r = run_cli("encode polar --N 8 --K 4 -i " + path("bits.txt") + " -o " + path("bits.txt"));
  EXPECT_EQ(r.status, 2) << r.output;  // a bad command line
  EXPECT_EQ(read_all(path("bits.txt")), "0101\n");
}

// SC on CUDA (the default decoder) is refused, and so is any CUDA command without a device.
TEST_F(PolarCli, CudaBackendFailsWithExitOne) {
  std::ofstream(path("llr.txt")) << "1 2 3 4 5 6 7 8\n";
  std::vector<std::string> commands{
      "simulate polar --N 64 --ebn0 1 --max-frames 10 --backend cuda",
      "decode polar --N 8 --K 4 --backend cuda -o " + path("out.txt") + " -i " + path("llr.txt")};
  if (cuda_device_count() == 0) commands.push_back("bench polar --N 64 --backend cuda");
  for (const std::string& args : commands) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "CUDA")) << args << "\n" << r.output;
    EXPECT_FALSE(contains(r.output, "internal error")) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(path("out.txt")));
}

// --precision and --cuda-kernel are CUDA BP options: given to SC or to the CPU backend, or asking
// the register kernel for what it cannot run, they are a bad command line (exit 2), refused before
// anything runs (on any machine: the checks need no device).
TEST_F(PolarCli, CudaKernelOptionsOutsideTheirPlaceAreABadCommandLine) {
  for (const std::string& args :
       {std::string("simulate polar --N 64 --ebn0 1 --max-frames 10 --precision fp16"),
        std::string("simulate polar --N 64 --ebn0 1 --max-frames 10 --decoder bp --bp-update "
                    "minsum --cuda-kernel registers --backend cpu"),
        std::string("simulate polar --N 64 --ebn0 1 --max-frames 10 --decoder bp --bp-update sp "
                    "--precision fp16 --backend cuda"),
        std::string("simulate polar --N 4096 --construct ga:2 --ebn0 1 --max-frames 10 --decoder "
                    "bp --bp-update minsum --cuda-kernel registers --backend cuda"),
        std::string("simulate polar --N 64 --ebn0 1 --precision fp17")}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_FALSE(contains(r.output, "internal error")) << r.output;
  }
}

// The CPU rows (--backend cpu: on a machine with a GPU the CUDA rows would come between them).
TEST_F(PolarCli, BenchMeasuresReferenceAndFastPathsIntoJson) {
  const auto r = run_cli(
      "bench polar --N 64 --frames 64 --repeats 1 --bp-update minsum --iters "
      "4 --threads 1 --seed 2 --backend cpu --json " +
      path("bench.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(read_all(path("bench.json")));
  EXPECT_EQ(j["family"], "polar");
  EXPECT_EQ(j["parameters"]["seed"], 2);
  std::vector<std::string> names;
  for (const auto& row : j["rows"]) {
    names.push_back(row["decoder"]);
    EXPECT_GT(row["info_mbps"].get<double>(), 0.0) << row;
    EXPECT_EQ(row["threads"], 1) << row;
    EXPECT_EQ(row["N"], 64);
    EXPECT_EQ(row["K"], 32);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"SC reference (sp)", "SC fast (minsum)",
                                             "SC fast (sp)", "BP minsum 4", "BP minsum 4 early",
                                             "BP minsum 4 reference"}));
  EXPECT_TRUE(contains(r.output, "BP minsum 4 early")) << r.output;
  // A JSON path that cannot be written fails before any work.
  const auto bad = run_cli("bench polar --N 64 --json " + path("no/such/dir/b.json"));
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_FALSE(contains(bad.output, "SC reference")) << bad.output;
}

}  // namespace
}  // namespace gpufec::polar
