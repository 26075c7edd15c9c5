// The conv commands on bad input and bad options, through the real binary: a clear message naming
// the problem and the place, exit status 1 for bad data (2 for a bad command line), and no output
// file left behind.
#include <cmath>
#include <limits>

#include "conv/cli_test_util.hpp"
#include "gpufec/common/device.hpp"

namespace gpufec::conv::testing {
namespace {

class ConvCliErrors : public ConvCliTest {
 protected:
  // Runs `args` (decode and encode: with -o out.txt appended): it must fail with `status`, its
  // message holding `named` on one line, and leave the folder as it was (no output, no temporary
  // file).
  void fails(const std::string& args, int status, const std::string& named) {
    const auto before = files();
    const bool writes = args.rfind("decode", 0) == 0 || args.rfind("encode", 0) == 0;
    const cli_result r = run_cli(args + (writes ? " -o " + path("out.txt") : std::string()));
    EXPECT_EQ(r.status, status) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(named), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(r.output.rfind("gpufec: error: ", 0), 0u) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
    EXPECT_EQ(files(), before) << args;
  }
};

TEST_F(ConvCliErrors, BadLlrFilesNameTheProblemAndThePlace) {
  const std::string frames = "decode conv --frame-bits 10 --term trunc";  // 20 LLRs per frame
  write_text(path("nan.txt"), "1 2 3\n4 nan 6\n");
  fails(frames + " -i " + path("nan.txt"), 1, "nan.txt:2: sample 4 is not finite ('nan')");
  write_text(path("garbage.txt"), "1.5 -2\n0.25 x7\n");
  fails(frames + " -i " + path("garbage.txt"), 1, "garbage.txt:2: 'x7' is not a number");
  write_text(path("binary.txt"), std::string("1.0 \0\1\2", 7));
  fails(frames + " -i " + path("binary.txt"), 1, "not a text file (byte 4 is a NUL byte)");
  std::vector<float> inf(20, 1.0f);
  inf[13] = std::numeric_limits<float>::infinity();
  write_raw(path("inf.f32"), inf);
  fails(frames + " --input-format f32 -i " + path("inf.f32"), 1,
        "sample 13 (byte offset 52) is not finite");
  write_text(path("trunc.f32"), std::string(81, '\0'));
  fails(frames + " --input-format f32 -i " + path("trunc.f32"), 1,
        "truncated f32 file (81 bytes is not a multiple of 4)");
  // Through a pipe the size is not known: found at the end.
  fails(frames + " --input-format f32 -i - < " + path("trunc.f32"), 1,
        "truncated f32 file (81 bytes");
  write_text(path("empty.f32"), "");
  fails(frames + " --input-format f32 -i " + path("empty.f32"), 1, "empty file (no samples)");
  fails(frames + " -i - < " + path("empty.f32"), 1, "empty file (no samples)");
  write_text(path("comments.txt"), "# nothing but a comment\n");
  fails(frames + " -i " + path("comments.txt"), 1, "no samples in the file");
  fails(frames + " -i " + path("missing.txt"), 1, "missing.txt");
  // 45 LLRs: two frames of 20 and 5 more.
  write_raw(path("45.f32"), std::vector<float>(45, 1.0f));
  fails(frames + " --input-format f32 -i " + path("45.f32"), 1,
        "45 LLRs is not a whole number of frames of 20 LLRs");
  fails(frames + " --input-format f32 -i - < " + path("45.f32"), 1,
        "the input ends 5 LLRs into frame 2");
  std::string text;
  for (int i = 0; i < 45; ++i) text += "0.5\n";
  write_text(path("45.txt"), text);
  fails(frames + " --chunk 7 -i " + path("45.txt"), 1, "the input ends 5 LLRs into frame 2");
  // A 3/4 stream sends 2, 1, 1 values per stage: 5 values end inside stage 3.
  write_raw(path("5.f32"), std::vector<float>(5, 1.0f));
  fails("decode conv --term stream --rate 3/4 --input-format f32 -i " + path("5.f32"), 1,
        "the stream ends inside a stage");
  // A NaN deep in a stream, past several chunks.
  std::vector<float> stream(50000, 2.0f);
  stream[44444] = std::nanf("");
  write_raw(path("nan.f32"), stream);
  fails("decode conv --term stream --chunk 1000 --input-format f32 -i " + path("nan.f32"), 1,
        "sample 44444 (byte offset 177776) is not finite");
}

TEST_F(ConvCliErrors, OutputsNeverClobberInputs) {
  write_text(path("llr.txt"), "1 1 1 1\n");
  const auto r =
      run_cli("decode conv --term stream -i " + path("llr.txt") + " -o " + path("llr.txt"));
  EXPECT_EQ(r.status, 2) << r.output;  // a bad command line, refused before anything runs
  EXPECT_NE(r.output.find("name the same file"), std::string::npos) << r.output;
  EXPECT_EQ(read_all(path("llr.txt")), "1 1 1 1\n");
  write_text(path("bits.txt"), "0101\n");
  const auto e = run_cli("encode conv -i " + path("bits.txt") + " -o " + path("bits.txt"));
  EXPECT_EQ(e.status, 2) << e.output;
  EXPECT_EQ(read_all(path("bits.txt")), "0101\n");
}

TEST_F(ConvCliErrors, BadOptionsExitWithStatus2NamingTheOption) {
  write_text(path("llr.txt"), "1 1 1 1\n");
  const std::string in = " -i " + path("llr.txt");
  const std::string d = "decode conv --frame-bits 10" + in;
  fails(d + " --K 10", 2, "--K");
  fails(d + " --polys 1777,133", 2, "--polys 1777,133");
  fails(d + " --polys 171,13x", 2, "--polys");
  fails(d + " --polys 171", 2, "--polys");
  fails(d + " --rate 3/5", 2, "--rate 3/5");
  fails(d + " --rate 101,000", 2, "--rate 101,000");
  fails(d + " --rate 101", 2, "--rate 101");
  fails(d + " --K 4 --polys 13,15 --rsc 15", 2, "--rsc 15");
  fails(d + " --term bogus", 2, "--term");
  fails(d + " --input-format f64", 2, "--input-format");
  fails(d + " --llr-sign negative", 2, "--llr-sign");
  fails(d + " --output-format hex", 2, "--output-format");
  fails(d + " --decoder magic", 2, "--decoder");
  fails(d + " --traceback 40", 2, "--traceback");
  fails(d + " --wrap-stages 40", 2, "--wrap-stages");
  fails(d + " --chunk 0", 2, "--chunk");
  fails(d + " --cuda-kernel fastest", 2, "--cuda-kernel");
  fails(d + " --backend cpu --cuda-kernel shared", 2, "--cuda-kernel shared applies to the CUDA");
  fails("decode conv --term stream --cuda-kernel registers" + in, 2, "--cuda-kernel registers");
  fails(d + " --output-format packed --per-line 8", 2, "--per-line");
  fails("decode conv --frame-bits 3" + in, 2, "frame_bits = 3");  // shorter than the K-1 tail
  fails("decode conv --term stream --frame-bits 10" + in, 2, "--frame-bits");
  fails("decode conv --term zero" + in, 2, "--frame-bits");
  fails("decode conv --term stream --metric float" + in, 2, "--metric");
  fails("decode conv --term stream --wrap-stages 4" + in, 2, "--wrap-stages");
  fails("decode conv --frame-bits 10", 2, "--input");
  // No output: an error, not a decode that writes nowhere.
  const auto r = run_cli("decode conv --frame-bits 10" + in);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--output"), std::string::npos) << r.output;
  fails("simulate conv --ebn0 nan", 2, "--ebn0");
  fails("simulate conv --ebn0 1 --llr double", 2, "--llr");
  fails("simulate conv --ebn0 1 --term stream", 2, "--term");
  fails("simulate conv --ebn0 1 --frame-bits 0", 2, "--frame-bits");
  fails("simulate conv --ebn0 1 --frame-bits 4 --term tailbiting", 2, "frame_bits = 4");
  fails("encode conv --frame-bits 5 --K 9 --polys 561,753 -i " + path("llr.txt"), 2,
        "frame_bits = 5");
  fails("simulate conv --ebn0 1 --decoder tiled --tile 0,1,1", 2, "--tile: f = 0");
  fails("simulate conv --ebn0 1 --decoder tiled --tile 64,20", 2, "--tile \"64,20\": expected");
  fails("simulate conv --ebn0 1 --decoder tiled --tile 64,20,40,65", 2, "f0 = 65 exceeds f = 64");
  fails("simulate conv --ebn0 1 --tile 64,20,40", 2, "--tile applies to --decoder tiled");
  fails("simulate conv --ebn0 1 --term tailbiting --decoder tiled --wrap-stages 9", 2,
        "--wrap-stages: the tiled decoder");
  fails("decode conv --term stream --decoder tiled --traceback 30" + in, 2,
        "--traceback applies to the traceback-ring stream decoder");
  fails("decode conv --term stream --tile 64,20,40" + in, 2, "--tile applies to --decoder tiled");
  fails("bench conv --K 2", 2, "--K");
  fails("bench conv --rates 3/5", 2, "--rates");
}

TEST_F(ConvCliErrors, EncodeRejectsBadBits) {
  write_text(path("bits.txt"), "0101\n01x1\n");
  fails("encode conv -i " + path("bits.txt"), 1, "bits.txt:2: unexpected character 'x'");
  write_text(path("seven.txt"), "0101010\n");
  fails("encode conv --frame-bits 3 --term trunc -i " + path("seven.txt"), 1,
        "7 bits is not a whole number of frames of --frame-bits 3");
  write_text(path("none.txt"), "# no bits\n");
  fails("encode conv -i " + path("none.txt"), 1, "no bits");
}

// --backend cuda: without a GPU, cuda is a clear error (exit 1, no file left) and auto runs on
// the CPU; --decoder reference or fast with --backend cuda is a bad command line where a GPU
// exists (exit 2), for frames and streams alike.
TEST_F(ConvCliErrors, BackendCudaFailsClearlyAndAutoFallsBack) {
  write_text(path("llr.txt"), "1 1 1 1\n");
  const bool gpu = cuda_device_count() > 0;
  fails(
      "decode conv --term stream --backend cuda --decoder reference -i " + path("llr.txt"),
      gpu ? 2 : 1,
      gpu ? "--decoder reference: decoder reference runs on the CPU only" : "backend 'cuda' needs");
  fails("simulate conv --ebn0 1 --max-frames 10 --backend cuda --decoder fast", gpu ? 2 : 1,
        gpu ? "--decoder fast: decoder fast runs on the CPU only" : "backend 'cuda' needs");
  if (gpu) GTEST_SKIP() << "a CUDA device exists: tests/conv/cuda/test_conv_cuda_cli.cpp";
  const auto before = files();
  for (const std::string& args :
       {"simulate conv --ebn0 1 --max-frames 10 --backend cuda --json " + path("s.json"),
        "decode conv --frame-bits 2 --term trunc --backend cuda -i " + path("llr.txt") + " -o " +
            path("d.txt"),
        "decode conv --term stream --backend cuda -i " + path("llr.txt") + " -o " + path("d.txt"),
        "bench conv --backend cuda --K 5 --rates 1/2 --json " + path("b.json")}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("backend 'cuda' needs"), std::string::npos) << r.output;
  }
  EXPECT_EQ(files(), before);
  // auto: the CPU, for simulate and decode alike.
  auto r = run_cli("simulate conv --ebn0 3 --max-frames 10 --frame-bits 100 --json " +
                   path("auto.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string report = read_all(path("auto.json"));
  EXPECT_NE(report.find("\"backend\": \"cpu\""), std::string::npos) << report;
  EXPECT_EQ(report.find("\"device\""), std::string::npos) << report;
  r = run_cli("decode conv --frame-bits 2 --term trunc --decoder tiled -i " + path("llr.txt") +
              " -o " + path("d.txt"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(path("d.txt")), "00\n");
  EXPECT_NE(r.output.find("threads)"), std::string::npos) << r.output;  // a CPU plan's summary
}

}  // namespace
}  // namespace gpufec::conv::testing
