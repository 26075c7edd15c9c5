// One meaning of each bit format in every command (docs/formats.md): text is a frame per line,
// packed is raw bits 8 per byte with no header, framed is the GPFSYNC1 container. A packed input
// without a frame length, and a packed output of frames that differ in length, are refused.
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_util.hpp"
#include "gpufec/common/bit_file.hpp"

namespace gpufec {
namespace {

using testing::cli_result;
using testing::read_all;
using testing::run_cli;

class CliBitFormats : public testing::cli_test {};

// Every encoder writes the same three formats for the same frames: packed is exactly the text's
// bits, 8 per byte, and framed reads back as the text's frames.
TEST_F(CliBitFormats, EveryEncoderWritesTheSameThreeFormats) {
  std::ofstream(path("info8.txt")) << "01100101\n11110000\n00000001\n";
  std::ofstream(path("messages.txt")) << "0 1 2 3 4 5 6 7 0 1 2 3\n7 6 5 4 3 2 1 0 7 6 5 4\n";
  const std::vector<std::string> encoders = {
      "encode conv --frame-bits 8 --term zero -i " + path("info8.txt"),
      "encode polar --N 16 --K 8 -i " + path("info8.txt"),
      "encode sync --q 8 --n 5 --N 12 -i " + path("messages.txt")};
  for (const std::string& encode : encoders) {
    SCOPED_TRACE(encode);
    for (const char* format : {"text", "packed", "framed"}) {
      const cli_result r = run_cli(encode + " --output-format " + format + " -o " +
                                   path(std::string("o.") + format));
      ASSERT_EQ(r.status, 0) << r.output;
    }
    const auto text = read_bit_frames(path("o.text"), bit_format::text);
    const std::string packed = read_all(path("o.packed"));
    EXPECT_EQ(packed.size(), (text.data().size() + 7) / 8);
    EXPECT_FALSE(packed.starts_with(framed_magic));
    EXPECT_EQ(read_bit_frames(path("o.packed"), bit_format::packed, text.length(0)).data(),
              text.data());
    const auto framed = read_bit_frames(path("o.framed"), bit_format::automatic);
    EXPECT_EQ(framed.frames(), text.frames());
    EXPECT_EQ(framed.data(), text.data());
  }
}

// The channels read packed bits given a frame length, and refuse them without one; the BSID
// channel's frames differ in length, so it writes no packed file.
TEST_F(CliBitFormats, ChannelsNeedAFrameLengthForPackedBits) {
  std::ofstream(path("f.txt")) << "0110010111110000\n0000000100000011\n";
  cli_result r = run_cli("channel bsc --p 0.2 --seed 3 -i " + path("f.txt") + " -o " + path("t"));
  ASSERT_EQ(r.status, 0) << r.output;
  write_bit_frames(path("f.bin"), read_bit_frames(path("f.txt"), bit_format::text).view(),
                   bit_format::packed);
  r = run_cli("channel bsc --p 0.2 --seed 3 --input-format packed -i " + path("f.bin") + " -o " +
              path("p"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--frame-bits"), std::string::npos) << r.output;
  r = run_cli("channel bsc --p 0.2 --seed 3 --input-format packed --frame-bits 16 -i " +
              path("f.bin") + " -o " + path("p"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_all(path("p")), read_all(path("t")));  // the same frames meet the same draws
  r = run_cli("channel bsc --p 0.2 --frame-bits 15 -i " + path("f.txt") + " -o " + path("q"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("f.txt:1"), std::string::npos) << r.output;
  r = run_cli("channel bsid --pi 0.1 --pd 0.1 --output-format packed -i " + path("f.txt") + " -o " +
              path("b"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("differ in length"), std::string::npos) << r.output;
  r = run_cli("channel bsid --pi 0.1 --pd 0.1 --output-format framed -i " + path("f.txt") + " -o " +
              path("b"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_bit_frames(path("b"), bit_format::automatic).frames(), 2u);
}

// A packed file that starts with the framed magic is refused, never decoded as data.
TEST_F(CliBitFormats, APackedInputThatIsFramedIsRefused) {
  std::ofstream(path("f.txt")) << "0110010111110000\n";
  write_bit_frames(path("f.gpf"), read_bit_frames(path("f.txt"), bit_format::text).view(),
                   bit_format::framed);
  const cli_result r = run_cli("channel bsc --p 0.1 --input-format packed --frame-bits 16 -i " +
                               path("f.gpf") + " -o " + path("o"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("framed"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gpufec
