// Bit files (gpufec/common/bit_file.hpp): every format round-trips ragged and uniform frames, the
// frame length splits text lines and packed bytes and is checked against framed frames, auto never
// guesses packed, malformed files name the place, and the chunked reader and the streaming writer
// agree with the whole-file functions across the reader's 64 KiB buffer boundaries.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_util.hpp"
#include "gpufec/common/bit_file.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"

namespace gpufec {
namespace {

using gpufec::testing::read_all;

class BitFile : public gpufec::testing::cli_test {
 protected:
  std::string file(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
};

// Frames of the given lengths, their bits a fixed pseudo-random pattern.
batch<std::uint8_t> frames_of(const std::vector<std::size_t>& lengths) {
  batch<std::uint8_t> frames;
  std::uint32_t x = 12345;
  for (const std::size_t n : lengths)
    for (std::uint8_t& b : frames.append(n)) {
      x = x * 1664525u + 1013904223u;
      b = static_cast<std::uint8_t>(x >> 31);
    }
  return frames;
}

std::vector<std::size_t> lengths_of(const batch<std::uint8_t>& frames) {
  std::vector<std::size_t> out;
  for (std::size_t f = 0; f < frames.frames(); ++f) out.push_back(frames.length(f));
  return out;
}

// The message of the format_error `read` throws ("" when it throws none).
template <class F>
std::string error_of(F read) {
  try {
    read();
  } catch (const format_error& e) {
    return e.what();
  }
  return "";
}

std::string le64(std::uint64_t v) {
  std::string s;
  for (int b = 0; b < 8; ++b) s += static_cast<char>((v >> (8 * b)) & 0xff);
  return s;
}

std::vector<std::uint8_t> read_in_chunks(const std::string& path, bit_format format,
                                         std::size_t max) {
  bit_reader reader(path, format);
  std::vector<std::uint8_t> all, chunk;
  while (const std::size_t n = reader.read(chunk, max)) {
    EXPECT_EQ(n, chunk.size());
    EXPECT_LE(n, max);
    all.insert(all.end(), chunk.begin(), chunk.end());
  }
  EXPECT_EQ(reader.read(chunk, max), 0u);  // the end stays the end
  EXPECT_EQ(reader.bits_read(), all.size());
  EXPECT_EQ(static_cast<std::int64_t>(reader.bytes_read()), reader.size());
  EXPECT_NE(reader.format(), bit_format::automatic);
  return all;
}

TEST_F(BitFile, FormatNames) {
  EXPECT_EQ(name_of(bit_format::automatic), "auto");
  EXPECT_EQ(parse_name<bit_format>("framed", "--input-format"), bit_format::framed);
  EXPECT_EQ(allowed_names<bit_format>(), "auto, text, packed or framed");
}

TEST_F(BitFile, TextAndFramedRoundTripRaggedAndUniformFrames) {
  for (const auto& lengths : {std::vector<std::size_t>{1, 7, 8, 9, 17, 64, 3},
                              std::vector<std::size_t>{24, 24, 24, 24, 24}}) {
    const batch<std::uint8_t> frames = frames_of(lengths);
    for (const bit_format format : {bit_format::text, bit_format::framed}) {
      const std::string p = path(std::string("frames.") + std::string(name_of(format)));
      write_bit_frames(p, frames.view(), format);
      EXPECT_EQ(read_all(p), bit_frames_bytes(frames.view(), format));
      for (const bit_format as : {format, bit_format::automatic}) {
        const batch<std::uint8_t> back = read_bit_frames(p, as);
        EXPECT_EQ(lengths_of(back), lengths) << name_of(format);
        EXPECT_EQ(back.data(), frames.data()) << name_of(format);
        EXPECT_EQ(read_bit_stream(p, as), frames.data());
      }
    }
  }
  // A uniform file read with its frame length; text lines of 24 bits give 3 frames of 8 each.
  const batch<std::uint8_t> frames = frames_of({24, 24, 24});
  write_bit_frames(path("u.txt"), frames.view(), bit_format::text);
  write_bit_frames(path("u.bin"), frames.view(), bit_format::framed);
  EXPECT_EQ(lengths_of(read_bit_frames(path("u.bin"), bit_format::framed, 24)),
            (std::vector<std::size_t>{24, 24, 24}));
  const batch<std::uint8_t> split = read_bit_frames(path("u.txt"), bit_format::text, 8);
  EXPECT_EQ(split.frames(), 9u);
  EXPECT_EQ(split.data(), frames.data());
}

TEST_F(BitFile, WrittenTextAndFramedLayout) {
  const batch<std::uint8_t> frames = frames_of({3, 0, 9});
  std::string text;
  for (std::size_t f = 0; f < 3; ++f) {
    for (const std::uint8_t b : frames.frame(f)) text += b ? '1' : '0';
    text += '\n';
  }
  EXPECT_EQ(bit_frames_bytes(frames.view(), bit_format::text), text);
  EXPECT_EQ(bit_frames_bytes(frames.view(), bit_format::automatic), text);
  const std::string framed = bit_frames_bytes(frames.view(), bit_format::framed);
  ASSERT_EQ(framed.size(), 8u + (8 + 1) + 8 + (8 + 2));
  EXPECT_EQ(framed.substr(0, 8), "GPFSYNC1");
  EXPECT_EQ(framed.substr(8, 8), le64(3));
  EXPECT_EQ(framed.substr(17, 8), le64(0));
  EXPECT_EQ(framed.substr(25, 8), le64(9));
  EXPECT_EQ(static_cast<unsigned char>(framed[34]) & 0x7f, 0);  // the last byte's padding
  // A padded view writes each frame's own length, not its stride.
  const std::vector<std::uint8_t> data{1, 0, 1, 9, 9, 0, 1, 9, 9, 9};
  const std::vector<std::size_t> lengths{3, 2};
  const auto padded = batch_view<std::uint8_t>::padded(data.data(), lengths.data(), 2, 5);
  EXPECT_EQ(bit_frames_bytes(padded, bit_format::text), "101\n01\n");
  EXPECT_EQ(bit_frames_bytes(padded, bit_format::packed), std::string(1, '\xa8'));
}

TEST_F(BitFile, PackedRoundTripsWithTheFrameLength) {
  for (const std::size_t F : {13, 16, 24, 3}) {
    const batch<std::uint8_t> frames = frames_of(std::vector<std::size_t>(5, F));
    const std::string p = path("f.bin");
    write_bit_frames(p, frames.view(), bit_format::packed);
    EXPECT_EQ(read_all(p).size(), (5 * F + 7) / 8);
    const batch<std::uint8_t> back = read_bit_frames(p, bit_format::packed, F);
    EXPECT_EQ(lengths_of(back), std::vector<std::size_t>(5, F)) << F;
    EXPECT_EQ(back.data(), frames.data()) << F;
    // Without a frame length: one frame of every bit, the padding included.
    std::vector<std::uint8_t> all = frames.data();
    all.resize(read_all(p).size() * 8, 0);
    const batch<std::uint8_t> one = read_bit_frames(p, bit_format::packed);
    EXPECT_EQ(one.frames(), 1u);
    EXPECT_EQ(one.data(), all);
    EXPECT_EQ(read_bit_stream(p, bit_format::packed), all);
  }
  // Ragged frames pack back to back.
  const batch<std::uint8_t> ragged = frames_of({1, 7, 9, 3});
  EXPECT_EQ(bit_frames_bytes(ragged.view(), bit_format::packed).size(), 3u);
  std::vector<std::uint8_t> bits = read_bit_stream(
      file("r.bin", bit_frames_bytes(ragged.view(), bit_format::packed)), bit_format::packed);
  bits.resize(20);
  EXPECT_EQ(bits, ragged.data());
}

TEST_F(BitFile, PackedPaddingIsFewerThanEightZeroBits) {
  const std::string p = file("p.bin", "\xff\xf8");  // 13 ones, 3 zeros
  EXPECT_EQ(read_bit_frames(p, bit_format::packed, 13).frames(), 1u);
  EXPECT_EQ(read_bit_frames(p, bit_format::packed, 5).frames(), 3u);  // 1 zero over
  EXPECT_EQ(read_bit_frames(p, bit_format::packed, 4).frames(), 4u);  // none over
  std::string msg = error_of([&] { read_bit_frames(p, bit_format::packed, 12); });
  EXPECT_NE(msg.find("p.bin"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a whole number of frames of 12 bits"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 frame and 4 bits over that are not all zero"), std::string::npos) << msg;
  msg = error_of([&] { read_bit_frames(p, bit_format::packed, 7); });  // 2 zero bits over: fine
  EXPECT_EQ(msg, "");
  msg = error_of([&] { read_bit_frames(p, bit_format::packed, 8); });  // 0 over
  EXPECT_EQ(msg, "");
  const std::string q = file("q.bin", std::string(3, '\0'));
  msg = error_of([&] { read_bit_frames(q, bit_format::packed, 16); });  // 8 zero bits over
  EXPECT_NE(msg.find("1 frame and 8 bits over"), std::string::npos) << msg;
  msg = error_of([&] { read_bit_frames(q, bit_format::packed, 32); });  // not one frame
  EXPECT_NE(msg.find("0 frames and 24 bits over"), std::string::npos) << msg;
}

TEST_F(BitFile, TextLinesHoldWholeFrames) {
  const std::string p = file("t.txt", "0101 0101\n# two frames on one line:\n0000000011111111\n");
  const batch<std::uint8_t> frames = read_bit_frames(p, bit_format::text, 8);
  EXPECT_EQ(frames.frames(), 3u);
  EXPECT_EQ(frames.data(), (std::vector<std::uint8_t>{0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0,
                                                      0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(lengths_of(read_bit_frames(p, bit_format::text)), (std::vector<std::size_t>{8, 16}));
  const std::string q = file("q.txt", "01010101\n\n010101011\n");
  const std::string msg = error_of([&] { read_bit_frames(q, bit_format::text, 8); });
  EXPECT_NE(msg.find("q.txt:3: line holds 9 bits"), std::string::npos) << msg;
  EXPECT_NE(msg.find("frames of 8 bits"), std::string::npos) << msg;
}

TEST_F(BitFile, FramedFramesHoldTheFrameLength) {
  const batch<std::uint8_t> frames = frames_of({8, 8, 7});
  const std::string p = file("f.bin", bit_frames_bytes(frames.view(), bit_format::framed));
  const std::string msg = error_of([&] { read_bit_frames(p, bit_format::framed, 8); });
  EXPECT_NE(msg.find("frame 2 at byte 26 holds 7 bits"), std::string::npos) << msg;
  EXPECT_NE(msg.find("frames of 8 bits"), std::string::npos) << msg;
}

TEST_F(BitFile, MalformedFramedFilesNameTheFrameAndByte) {
  const std::string one = le64(3) + "\xe0";  // frame 0: 3 bits, 9 bytes
  auto error = [&](const std::string& bytes) {
    const std::string p = file("bad.bin", bytes);
    const std::string whole = error_of([&] { read_bit_frames(p, bit_format::framed); });
    // The chunked reader reports the same problem, the file named in quotes.
    const std::string chunked = error_of([&] { read_in_chunks(p, bit_format::framed, 5); });
    EXPECT_NE(chunked.find(whole.substr(whole.find(": ") + 2)), std::string::npos) << chunked;
    EXPECT_NE(chunked.find("'" + p + "'"), std::string::npos) << chunked;
    return whole;
  };
  EXPECT_EQ(error("GPFSYNC1" + one + "\x01\x02"),
            path("bad.bin") + ": frame 1 at byte 17: truncated length field");
  EXPECT_EQ(error("GPFSYNC1" + one + le64(100) + "abc"),
            path("bad.bin") + ": frame 1 at byte 25 is truncated: 100 bits need 13 bytes, 3 left");
  EXPECT_EQ(error("GPFSYNC1" + le64(0)), path("bad.bin") + ": frame 0 declares 0 bits");
  EXPECT_EQ(error("GPFSYNC1" + one + le64(std::uint64_t{1} << 40) + "x"),
            path("bad.bin") + ": frame 1 declares 1099511627776 bits");
  EXPECT_NE(error("GPFSYNX1" + one).find("missing GPFSYNC1 magic"), std::string::npos);
  EXPECT_NE(error("GPF").find("missing GPFSYNC1 magic"), std::string::npos);
  EXPECT_NE(error("GPFSYNC1").find("holds no frames"), std::string::npos);
}

TEST_F(BitFile, AutoPicksFramedByTheMagicElseText) {
  const batch<std::uint8_t> frames = frames_of({5, 11});
  const std::string framed = file("f", bit_frames_bytes(frames.view(), bit_format::framed));
  const std::string text = file("t", bit_frames_bytes(frames.view(), bit_format::text));
  EXPECT_EQ(lengths_of(read_bit_frames(framed, bit_format::automatic)),
            (std::vector<std::size_t>{5, 11}));
  EXPECT_EQ(lengths_of(read_bit_frames(text, bit_format::automatic)),
            (std::vector<std::size_t>{5, 11}));
  EXPECT_EQ(bit_reader(framed, bit_format::automatic).format(), bit_format::framed);
  EXPECT_EQ(bit_reader(text, bit_format::automatic).format(), bit_format::text);
  // Packed bits are never guessed: auto reads them as text, which they are not.
  const std::string packed = file("p", "\x81\x00\x42");
  const std::string msg = error_of([&] { read_bit_frames(packed, bit_format::automatic); });
  EXPECT_NE(msg.find("not a text file"), std::string::npos) << msg;
}

TEST_F(BitFile, PackedInputStartingWithTheMagicIsRefused) {
  const batch<std::uint8_t> frames = frames_of({16});
  const std::string p = file("f.bin", bit_frames_bytes(frames.view(), bit_format::framed));
  for (const std::string& msg : {error_of([&] { read_bit_frames(p, bit_format::packed, 8); }),
                                 error_of([&] { read_bit_stream(p, bit_format::packed); }),
                                 error_of([&] { bit_reader(p, bit_format::packed); })}) {
    EXPECT_NE(msg.find("f.bin"), std::string::npos) << msg;
    EXPECT_NE(msg.find("it is a framed file"), std::string::npos) << msg;
    EXPECT_NE(msg.find("framed or auto"), std::string::npos) << msg;
  }
}

TEST_F(BitFile, BinaryReadAsTextSaysWhatToGive) {
  const std::string p = file("b.bin", std::string("01\x00\x01", 4));
  for (const std::string& msg : {error_of([&] { read_bit_frames(p, bit_format::text); }),
                                 error_of([&] { read_in_chunks(p, bit_format::text, 3); })}) {
    EXPECT_NE(msg.find("not a text file (byte 2 is a NUL byte)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("give --input-format packed or framed"), std::string::npos) << msg;
  }
}

TEST_F(BitFile, EmptyAndCommentOnlyFilesAreErrors) {
  const std::string empty = file("empty", ""), comments = file("c.txt", "# nothing\n\n  \n# x\n");
  for (const bit_format format :
       {bit_format::automatic, bit_format::text, bit_format::packed, bit_format::framed}) {
    for (const std::string& msg : {error_of([&] { read_bit_frames(empty, format); }),
                                   error_of([&] { read_bit_frames(empty, format, 8); }),
                                   error_of([&] { read_bit_stream(empty, format); }),
                                   error_of([&] { read_in_chunks(empty, format, 8); })}) {
      EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
      EXPECT_NE(msg.find("empty file (no bits)"), std::string::npos) << msg;
    }
  }
  for (const std::string& msg :
       {error_of([&] { read_bit_frames(comments, bit_format::text); }),
        error_of([&] { read_bit_stream(comments, bit_format::text); }),
        error_of([&] { read_in_chunks(comments, bit_format::text, 1); })}) {
    EXPECT_NE(msg.find("c.txt"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no bits"), std::string::npos) << msg;
  }
}

TEST_F(BitFile, TextAcceptsByteOrderMarkAndCrlfAndNamesBadCharacters) {
  const std::string p = file("w.txt",
                             "\xEF\xBB\xBF"
                             "0110\r\n# c \xE2\x82\xAC\r\n\r\n1 1\t0\r\n");
  const batch<std::uint8_t> frames = read_bit_frames(p, bit_format::text);
  EXPECT_EQ(lengths_of(frames), (std::vector<std::size_t>{4, 3}));
  EXPECT_EQ(frames.data(), (std::vector<std::uint8_t>{0, 1, 1, 0, 1, 1, 0}));
  EXPECT_EQ(read_in_chunks(p, bit_format::automatic, 2), frames.data());
  const std::string q = file("bits.txt", "01\n# x\n01x1\n");
  std::string msg = error_of([&] { read_bit_frames(q, bit_format::text); });
  EXPECT_EQ(msg, path("bits.txt") + ":3: unexpected character 'x' (bits are 0 and 1)");
  msg = error_of([&] { read_in_chunks(q, bit_format::text, 1); });
  EXPECT_EQ(msg, "'" + path("bits.txt") + "':3: unexpected character 'x' (bits are 0 and 1)");
  msg = error_of([&] { read_bit_stream(file("u.txt", "0\xC3\xA9"), bit_format::text); });
  EXPECT_NE(msg.find(":1: unexpected character '\xC3\xA9'"), std::string::npos) << msg;
}

TEST_F(BitFile, ReaderYieldsTheStreamInChunksOfAnySize) {
  // Text over several 64 KiB buffers, a comment with 4-byte characters across the first boundary.
  std::string text = "\xEF\xBB\xBF# bits \xC3\xA9\n";
  std::uint32_t x = 7;
  auto bit = [&] {
    x = x * 1664525u + 1013904223u;
    return (x >> 31) ? '1' : '0';
  };
  while (text.size() < 65530) text += (text.size() % 61 == 0) ? '\n' : bit();
  text += "  # \xF0\x9F\x98\x80\xF0\x9F\x98\x80\xF0\x9F\x98\x80\n";  // spans byte 65536
  for (int line = 0; text.size() < 3 * 65536 + 100; ++line) {
    for (int k = 0; k < 37; ++k) text += bit();
    text += line % 5 == 0 ? " # \xE2\x82\xAC\xF0\x9F\x98\x80 comment\r\n" : "\n";
  }
  // Framed frames: a length field across the first boundary (bytes 65532..65539).
  const batch<std::uint8_t> framed = frames_of({65516 * 8 - 3, 9, 1, 70000, 8, 123457});
  // Packed: a length that is no multiple of 8.
  const batch<std::uint8_t> packed = frames_of({600001});
  const std::vector<std::pair<std::string, bit_format>> files{
      {file("s.txt", text), bit_format::text},
      {file("s.txt", text), bit_format::automatic},
      {file("s.bin", bit_frames_bytes(framed.view(), bit_format::framed)), bit_format::framed},
      {file("s.bin", bit_frames_bytes(framed.view(), bit_format::framed)), bit_format::automatic},
      {file("s.pk", bit_frames_bytes(packed.view(), bit_format::packed)), bit_format::packed}};
  for (const auto& [p, format] : files) {
    const std::vector<std::uint8_t> want = read_bit_stream(p, format);
    ASSERT_GT(want.size(), 100000u);
    for (const std::size_t max : {1, 3, 8, 4096})
      EXPECT_EQ(read_in_chunks(p, format, max), want) << p << " " << max;
  }
  EXPECT_EQ(read_bit_stream(path("s.bin"), bit_format::framed), framed.data());
  // A bad character far into the file is reported at its line.
  text += "0 1 2\n";
  const std::string bad = file("bad.txt", text);
  const std::string msg = error_of([&] { read_in_chunks(bad, bit_format::text, 4096); });
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  EXPECT_NE(msg.find("':" + std::to_string(lines) + ": unexpected character '2'"),
            std::string::npos)
      << msg;
}

TEST_F(BitFile, WriterEqualsTheFramesWrittenWhole) {
  const batch<std::uint8_t> frames = frames_of({8, 8, 8, 6});
  const std::vector<std::uint8_t>& bits = frames.data();
  auto written = [&](bit_format format, std::size_t per_line, std::size_t n) {
    output_file out(path("w"));
    bit_writer writer(out, format, per_line);
    const std::size_t pieces[] = {1, 2, 9, 5, 1};
    std::size_t at = 0;
    for (std::size_t k = 0; at < n; ++k) {
      const std::size_t m = std::min(pieces[k % 5], n - at);
      writer.write(std::span<const std::uint8_t>(bits).subspan(at, m));
      at += m;
    }
    writer.finish();
    EXPECT_EQ(writer.count(), n);
    out.commit();
    return read_all(path("w"));
  };
  EXPECT_EQ(written(bit_format::text, 8, 30), bit_frames_bytes(frames.view(), bit_format::text));
  EXPECT_EQ(written(bit_format::packed, 0, 30),
            bit_frames_bytes(frames.view(), bit_format::packed));
  batch<std::uint8_t> whole;  // one line
  whole.push_back(bits);
  EXPECT_EQ(written(bit_format::text, 0, 30), bit_frames_bytes(whole.view(), bit_format::text));
  const auto lines = batch_view<std::uint8_t>::uniform(bits.data(), 3, 8);
  EXPECT_EQ(written(bit_format::text, 8, 24), bit_frames_bytes(lines, bit_format::text));
  EXPECT_EQ(written(bit_format::packed, 0, 24), bit_frames_bytes(lines, bit_format::packed));
  output_file out(path("f"));
  EXPECT_THROW(bit_writer(out, bit_format::framed), invalid_argument);
}

}  // namespace
}  // namespace gpufec
