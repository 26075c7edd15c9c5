// `gpufec simulate|encode|decode|bench conv` end to end through the real binary: reproducible
// counts, typed JSON parameters, encode -> decode round trips for every termination and a
// punctured rate, the channel in the pipeline, and stream decoding in chunks against the library.
// Bad inputs and options are in test_conv_cli_errors.cpp.
#include <cmath>
#include <nlohmann/json.hpp>

#include "conv/cli_test_util.hpp"
#include "conv/conv_test_util.hpp"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/bit_file.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/stream.hpp"

namespace gpufec::conv::testing {
namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST_F(ConvCliTest, SimulateGivesTheSameCountsWhateverThreadsAndBatch) {
  const std::string common =
      "simulate conv --K 7 --polys 171,133 --rate 3/4 --ebn0 3,4 --frame-bits 200 --max-fe 15 "
      "--seed 5 --backend cpu --llr int8";
  const auto a = run_cli(common + " --threads 1 --batch 7 --json " + path("a.json"));
  ASSERT_EQ(a.status, 0) << a.output;
  const auto b = run_cli(common + " --threads 2 --json " + path("b.json"));
  ASSERT_EQ(b.status, 0) << b.output;
  const auto c = run_cli(common + " --threads 2 --batch 64 --json " + path("c.json"));
  ASSERT_EQ(c.status, 0) << c.output;
  const auto ja = read_json(path("a.json")), jb = read_json(path("b.json")),
             jc = read_json(path("c.json"));
  ASSERT_EQ(ja["points"].size(), 2u);
  for (std::size_t p = 0; p < 2; ++p)
    for (const char* key : {"frames", "frame_errors", "bit_errors"}) {
      EXPECT_EQ(ja["points"][p][key], jb["points"][p][key]) << key;
      EXPECT_EQ(ja["points"][p][key], jc["points"][p][key]) << key;
    }
  EXPECT_EQ(ja["points"][0]["frame_errors"], 15);
}

TEST_F(ConvCliTest, SimulateJsonHoldsTypedParameters) {
  auto r = run_cli(
      "simulate conv --backend cpu --K 4 --polys 13,15 --rsc 13 --term tailbiting --frame-bits 100 "
      "--ebn0 2 "
      "--max-frames 20 --llr float --decoder reference --wrap-stages 30 --seed 1 --json " +
      path("p.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto p = read_json(path("p.json"))["parameters"];
  EXPECT_TRUE(p["K"].is_number_integer()) << p.dump();
  EXPECT_EQ(p["K"], 4);
  EXPECT_EQ(p["polynomials"], "13,15");
  EXPECT_EQ(p["recursive"], true);
  EXPECT_EQ(p["feedback"], "13");
  EXPECT_EQ(p["termination"], "tailbiting");
  EXPECT_EQ(p["frame_bits"], 100);
  EXPECT_EQ(p["coded_bits"], 200);
  EXPECT_TRUE(p["rate"].is_number()) << p.dump();
  EXPECT_DOUBLE_EQ(p["rate"].get<double>(), 0.5);
  EXPECT_EQ(p["decoder"], "reference");
  EXPECT_EQ(p["reference_metric"], "double");
  EXPECT_EQ(p["wrap_stages"], 30);
  EXPECT_EQ(p["llr"], "float");

  r = run_cli("simulate conv --backend cpu --rate 3/4 --ebn0 4 --max-frames 10 --llr int8 --json " +
              path("q.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto q = read_json(path("q.json"))["parameters"];
  EXPECT_EQ(q["K"], 7);
  EXPECT_EQ(q["recursive"], false);
  EXPECT_FALSE(q.contains("feedback"));
  EXPECT_EQ(q["puncture_pattern"], "101,110");
  EXPECT_EQ(q["puncture_rate"], "3/4");
  EXPECT_EQ(q["termination"], "zero");
  EXPECT_EQ(q["frame_bits"], 1000);
  EXPECT_EQ(q["coded_bits"], 1342);  // 1006 stages of 4 bits every 3
  EXPECT_EQ(q["llr"], "int8");
  EXPECT_NE(q["llr_rule"].get<std::string>().find("int8_llr_scale(sigma)"), std::string::npos);
  EXPECT_FALSE(q.contains("wrap_stages"));

  r = run_cli(
      "simulate conv --backend cpu --term tailbiting --frame-bits 300 --ebn0 4 --max-frames 10 "
      "--decoder tiled "
      "--tile 64,20,40,16 --json " +
      path("t.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto t = read_json(path("t.json"))["parameters"];
  EXPECT_EQ(t["decoder"], "tiled");
  EXPECT_EQ(t["tile_f"], 64);
  EXPECT_EQ(t["tile_v1"], 20);
  EXPECT_EQ(t["tile_v2"], 40);
  EXPECT_EQ(t["tile_f0"], 16);
  EXPECT_EQ(t["llr_scale"], "auto");
  EXPECT_FALSE(t.contains("wrap_stages"));
  EXPECT_NE(t["traceback"].get<std::string>().find("subframes"), std::string::npos);

  // --tile default: the default shape as it is (a CUDA plan would otherwise fit it to the device
  // and the batch; on the CPU it is the default anyway).
  r = run_cli(
      "simulate conv --backend cpu --frame-bits 3000 --ebn0 4 --max-frames 10 --decoder tiled "
      "--tile default --json " +
      path("d.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto d = read_json(path("d.json"))["parameters"];
  EXPECT_EQ(d["tile_f"], 1056);
  EXPECT_EQ(d["tile_v1"], 36);
  EXPECT_EQ(d["tile_v2"], 36);
  EXPECT_EQ(d["tile_f0"], 66);
  r = run_cli(
      "simulate conv --backend cpu --frame-bits 300 --ebn0 4 --max-frames 10 --decoder "
      "tiled --tile defaults");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("tile \"defaults\""), std::string::npos) << r.output;
}

// Noise-free LLRs (+-4 per coded bit) as text.
std::vector<float> clean_llrs_of(const std::string& coded_bits) {
  std::vector<float> llr;
  for (const char c : coded_bits) llr.push_back(c == '1' ? -4.0f : 4.0f);
  return llr;
}

TEST_F(ConvCliTest, EncodeThenDecodeNoiseFreeReturnsTheBits) {
  const std::size_t N = 48, frames = 5;
  std::vector<std::uint8_t> info;
  for (std::size_t f = 0; f < frames; ++f) {
    const auto bits = random_bits(11, f, N);
    info.insert(info.end(), bits.begin(), bits.end());
  }
  std::string text;
  for (std::size_t i = 0; i < info.size(); ++i) {
    text += info[i] ? '1' : '0';
    if (i % 20 == 19) text += '\n';
  }
  write_text(path("info.txt"), "# five frames of 48 bits\n" + text + "\n");
  const std::string want = bits_string(info);
  // The standard code punctured and not, and a recursive one (punctured recursive codes may be
  // ambiguous: two inputs, one codeword; tests/conv/conv_test_util.hpp).
  for (const char* code : {"--K 7 --polys 171,133 --rate 1/2", "--K 7 --polys 171,133 --rate 3/4",
                           "--K 4 --polys 13,15 --rsc"})
    for (const char* term : {"zero", "trunc", "tailbiting"}) {
      const std::string opts =
          std::string(code) + " --term " + term + " --frame-bits " + std::to_string(N);
      SCOPED_TRACE(opts);
      auto r =
          run_cli("encode conv " + opts + " -i " + path("info.txt") + " -o " + path("coded.txt"));
      ASSERT_EQ(r.status, 0) << r.output;
      // One line per frame, the encoder's coded bits.
      const std::string coded = read_all(path("coded.txt"));
      EXPECT_EQ(static_cast<std::size_t>(std::count(coded.begin(), coded.end(), '\n')), frames);
      const std::vector<float> llr = clean_llrs_of(bits_of_text(coded));
      write_llr_text(path("llr.txt"), llr);
      r = run_cli("decode conv --backend cpu " + opts + " -i " + path("llr.txt") + " -o " +
                  path("dec.txt"));
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_EQ(bits_of_text(read_all(path("dec.txt"))), want);
      // The other sign convention, raw int8, packed output.
      std::vector<std::int8_t> flipped;
      for (const float v : llr) flipped.push_back(static_cast<std::int8_t>(v > 0 ? -100 : 100));
      write_raw(path("llr.i8"), flipped);
      r = run_cli("decode conv --backend cpu " + opts +
                  " --input-format i8 --llr-sign positive-is-1 -i " + path("llr.i8") + " -o " +
                  path("dec.bin") + " --output-format packed");
      ASSERT_EQ(r.status, 0) << r.output;
      const std::string packed = read_all(path("dec.bin"));
      ASSERT_EQ(packed.size(), (N * frames + 7) / 8);
      std::string unpacked;
      for (std::size_t k = 0; k < N * frames; ++k)
        unpacked += (static_cast<unsigned char>(packed[k / 8]) >> (7 - k % 8)) & 1 ? '1' : '0';
      EXPECT_EQ(unpacked, want);
    }
}

// Hard decisions through a BSC decode as the library's decode_hard decides them, read from every
// bit format (packed with the last byte's padding: 5 frames of 140 coded bits); framed output
// gives one frame per decoded frame.
TEST_F(ConvCliTest, HardBitsInEveryFormatDecodeAsTheLibrary) {
  const std::size_t N = 64, frames = 5, n = 2 * (N + 6);
  std::string text;
  for (const std::uint8_t b : random_bits(5, 0, N * frames)) text += b ? '1' : '0';
  write_text(path("info.txt"), text + "\n");
  const std::string opts = " --K 7 --polys 171,133 --rate 1/2 --term zero --frame-bits 64";
  auto r = run_cli("encode conv" + opts + " -i " + path("info.txt") + " -o " + path("coded.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_cli("channel bsc --p 0.04 --seed 9 -i " + path("coded.txt") + " -o " + path("noisy.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto noisy = read_bit_frames(path("noisy.txt"), bit_format::text, n);
  ASSERT_EQ(noisy.frames(), frames);
  decoder_plan plan(conv_code(7, {0171, 0133}), puncture_pattern::none(2), N,
                    termination::zero_tail, {}, backend::cpu, frames);
  std::vector<std::uint8_t> want(frames * N);
  plan.decode_hard(batch_view<std::uint8_t>::uniform(noisy.data().data(), frames, n),
                   batch_span<std::uint8_t>::uniform(want.data(), frames, N));
  // The channel flipped bits, and the decoder undid most of them.
  EXPECT_NE(noisy.data(), read_bit_frames(path("coded.txt"), bit_format::text, n).data());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < text.size(); ++i) wrong += (text[i] == '1') != (want[i] == 1);
  EXPECT_LT(wrong, text.size() / 20);
  for (const bit_format format : {bit_format::text, bit_format::packed, bit_format::framed}) {
    SCOPED_TRACE(name_of(format));
    write_bit_frames(path("noisy.bin"), noisy.view(), format);
    r = run_cli("decode conv --backend cpu" + opts + " --input-kind hard --input-format " +
                std::string(name_of(format)) + " -i " + path("noisy.bin") + " -o " +
                path("dec.txt"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(bits_of_text(read_all(path("dec.txt"))), bits_string(want));
  }
  r = run_cli("decode conv --backend cpu" + opts + " --input-kind hard -i " + path("noisy.txt") +
              " --output-format framed -o " + path("dec.gpf"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto decided = read_bit_frames(path("dec.gpf"), bit_format::framed, N);
  EXPECT_EQ(decided.frames(), frames);
  EXPECT_EQ(decided.data(), want);
  // What does not fit together is a bad command line (exit 2), named.
  for (const auto& [args, named] : std::vector<std::pair<std::string, std::string>>{
           {" --input-kind hard --llr-sign positive-is-1", "--llr-sign"},
           {" --input-kind hard --input-format f32", "is for LLRs"},
           {" --input-format framed", "is for hard bits"}}) {
    r = run_cli("decode conv --backend cpu" + opts + args + " -i " + path("noisy.txt") + " -o " +
                path("x.txt"));
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output;
  }
  r = run_cli("decode conv --backend cpu --term stream --output-format framed -i " +
              path("noisy.txt") + " -o " + path("x.txt"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("a stream (--term stream) has none"), std::string::npos) << r.output;
}

TEST_F(ConvCliTest, ChannelAwgnInThePipelineDecodesExactlyAtHighSnr) {
  std::string text;
  for (const std::uint8_t b : random_bits(3, 0, 600)) text += b ? '1' : '0';
  write_text(path("info.txt"), text + "\n");
  const std::string opts = " --rate 2/3 --term zero --frame-bits 200";
  auto r = run_cli("encode conv" + opts + " -i " + path("info.txt") + " -o " + path("coded.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* format : {"text", "f32"}) {
    SCOPED_TRACE(format);
    r = run_cli("channel awgn --ebn0 9 --rate 0.66 --seed 4 --output-format " +
                std::string(format) + " -i " + path("coded.txt") + " -o " + path("llr"));
    ASSERT_EQ(r.status, 0) << r.output;
    r = run_cli("decode conv --backend cpu" + opts + " --input-format " + format + " -i " +
                path("llr") + " -o " + path("dec.txt"));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(bits_of_text(read_all(path("dec.txt"))), text);
  }
  // The same through standard input and output.
  r = run_cli("encode conv" + opts + " -i - -o - < " + path("info.txt") +
              " 2>/dev/null | " GPUFEC_CLI_PATH " channel awgn --ebn0 9 --rate 0.66 -i - -o - " +
              "2>/dev/null | " GPUFEC_CLI_PATH " decode conv --backend cpu" + opts + " -i - -o " +
              path("piped.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(bits_of_text(read_all(path("piped.txt"))), text);
}

// A truncated stream through BPSK/AWGN at 3 dB: the CLI decodes it in chunks much smaller than
// the stream (and not aligned to stages or periods) and must give the library's bits for the
// whole stream pushed at once.
TEST_F(ConvCliTest, StreamDecodeInChunksEqualsTheLibrarysWholeStream) {
  const conv_code code(7, {0171, 0133});
  for (const char* rate : {"1/2", "3/4"}) {
    SCOPED_TRACE(rate);
    const auto pattern = puncture_pattern::parse(rate, 2);
    const std::size_t N = 40000;
    const encoder enc(code, pattern, N, termination::truncated);
    std::vector<std::uint8_t> coded(enc.shape().coded_bits);
    enc.encode(random_bits(21, 0, N), coded);
    const double sigma = channel::sigma_from_ebn0(3.0, pattern.rate());
    const std::vector<float> llr = awgn_llrs(coded, sigma, 21, 0);
    std::vector<std::int8_t> q(llr.size());
    for (std::size_t i = 0; i < llr.size(); ++i)
      q[i] = channel::llr_to_int8(llr[i], channel::int8_llr_scale(sigma));
    write_raw(path("s.f32"), llr);
    write_raw(path("s.i8"), q);
    write_llr_text(path("s.txt"), llr, 37);

    std::vector<std::uint8_t> want_f, want_q;
    stream_decoder lib_f(code, pattern), lib_q(code, pattern);
    lib_f.push(std::span<const float>(llr), want_f);
    lib_f.finish(want_f);
    lib_q.push(std::span<const std::int8_t>(q), want_q);
    lib_q.finish(want_q);
    ASSERT_EQ(want_f.size(), N);

    const std::string opts = std::string(" --term stream --rate ") + rate + " --chunk 4099";
    for (const auto& [file, format, want] :
         {std::tuple{"s.f32", "f32", &want_f}, std::tuple{"s.i8", "i8", &want_q},
          std::tuple{"s.txt", "text", &want_f}}) {
      SCOPED_TRACE(format);
      const auto r = run_cli("decode conv" + opts + " --input-format " + format + " -i " +
                             path(file) + " -o " + path("out.txt"));
      ASSERT_EQ(r.status, 0) << r.output;
      const std::string out = read_all(path("out.txt"));
      EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1);  // a stream on one line
      EXPECT_EQ(bits_of_text(out), bits_string(*want));
    }
    // From standard input too (no size known), with lines of 1000 bits.
    const auto r = run_cli("decode conv" + opts + " --input-format f32 --per-line 1000 -i - -o " +
                           path("out.txt") + " < " + path("s.f32"));
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string out = read_all(path("out.txt"));
    EXPECT_EQ(static_cast<std::size_t>(std::count(out.begin(), out.end(), '\n')), N / 1000);
    EXPECT_EQ(bits_of_text(out), bits_string(want_f));
  }
}

// Frames mode reads whole frames a chunk at a time; a chunk smaller than a frame still reads one.
TEST_F(ConvCliTest, FramesDecodeInChunksEqualsThePlan) {
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::none(2);
  const std::size_t N = 300, frames = 9;
  const encoder enc(code, pattern, N, termination::zero_tail);
  const std::size_t n = enc.shape().coded_bits;
  const double sigma = channel::sigma_from_ebn0(2.0, 0.5);
  std::vector<float> llr;
  for (std::size_t f = 0; f < frames; ++f) {
    std::vector<std::uint8_t> coded(n);
    enc.encode(random_bits(8, f, N), coded);
    const auto l = awgn_llrs(coded, sigma, 8, f);
    llr.insert(llr.end(), l.begin(), l.end());
  }
  write_raw(path("f.f32"), llr);
  decoder_plan plan(code, pattern, N, termination::zero_tail, {}, backend::cpu, frames);
  std::vector<std::uint8_t> want(frames * N);
  plan.decode(batch_view<float>::uniform(llr.data(), frames, n),
              batch_span<std::uint8_t>::uniform(want.data(), frames, N));
  for (const char* chunk : {"100", "1300", "1000000"}) {
    const auto r =
        run_cli("decode conv --backend cpu --frame-bits 300 --input-format f32 --chunk " +
                std::string(chunk) + " -i " + path("f.f32") + " -o " + path("o.txt"));
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string out = read_all(path("o.txt"));
    EXPECT_EQ(static_cast<std::size_t>(std::count(out.begin(), out.end(), '\n')), frames);
    EXPECT_EQ(bits_of_text(out), bits_string(want)) << "chunk " << chunk;
  }
}

TEST_F(ConvCliTest, BenchWritesTheReferenceAndFastRows) {
  const auto r = run_cli(
      "bench conv --backend cpu --K 5 --rates 1/2 3/4 --frame-bits 256 --frames 4 "
      "--reference-frames 1 "
      "--repeats 1 --threads 1 --seed 0 --json " +
      path("bench.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Mb/s"), std::string::npos) << r.output;
  const auto j = read_json(path("bench.json"));
  EXPECT_EQ(j["family"], "conv");
  EXPECT_EQ(j["seed"], 0);
  std::size_t reference = 0, fast = 0;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["K"], 5);
    EXPECT_GT(row["mbps"].get<double>(), 0);
    reference += row["decoder"] == "reference";
    fast += row["decoder"] == "fast";
  }
  EXPECT_EQ(reference, 2u);  // one per rate, one thread
  EXPECT_EQ(fast, 4u);       // float and int8 per rate
}

TEST_F(ConvCliTest, HelpListsOptionsAndExamples) {
  for (const char* sub : {"simulate", "decode", "encode", "bench"}) {
    const auto r = run_cli(std::string(sub) + " conv --help");
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_NE(r.output.find("Examples"), std::string::npos) << sub;
    EXPECT_NE(r.output.find("--K"), std::string::npos) << sub;
  }
  EXPECT_NE(run_cli("decode conv --help").output.find("positive-is-1"), std::string::npos);
}

}  // namespace
}  // namespace gpufec::conv::testing
