// sample_reader (gpufec/common/sample_file.hpp): reading in chunks gives the values of the whole
// file whatever the chunk size, across the reader's 64 KiB buffer boundaries (numbers, UTF-8
// comments and a byte order mark cut anywhere), for text, f32 and i8 files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpufec/common/error.hpp"
#include "gpufec/common/sample_file.hpp"

namespace gpufec {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("gpufec_sample_reader_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

template <class T>
std::vector<T> read_in_chunks(const std::string& path, sample_format format, std::size_t max) {
  sample_reader reader(path, format);
  std::vector<T> all, chunk;
  while (const std::size_t n = reader.read(chunk, max)) {
    EXPECT_LE(n, max);
    all.insert(all.end(), chunk.begin(), chunk.end());
  }
  EXPECT_EQ(reader.samples_read(), all.size());
  return all;
}

TEST(SampleReader, TextInChunksEqualsTheValues) {
  std::vector<float> want;
  std::string text = "\xEF\xBB\xBF# LLRs \xC3\xA9\xE2\x82\xAC\n";  // BOM, UTF-8 comment
  char buf[40];
  for (int i = 0; i < 30000; ++i) {
    const float v = static_cast<float>((i * 7919 % 2001) - 1000) / 37.0f;
    want.push_back(v);
    std::snprintf(buf, sizeof buf, "%.9g", v);
    text += buf;
    text += i % 11 == 10 ? "\t# \xE2\x82\xAC comment \xF0\x9F\x98\x80\r\n" : (i % 3 ? " " : ",");
  }
  const std::string path = temp_path("values.txt");
  std::ofstream(path, std::ios::binary) << text;
  ASSERT_GT(text.size(), 3u * 65536);  // several buffers
  for (const std::size_t max : {1, 7, 4096, 1 << 20})
    EXPECT_EQ(read_in_chunks<float>(path, sample_format::text, max), want) << max;
  EXPECT_EQ(read_samples(path, sample_format::automatic), want);
  std::filesystem::remove(path);
}

TEST(SampleReader, RawInChunksEqualsTheValues) {
  std::vector<float> f(70001);
  std::vector<std::int8_t> q(200003);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(i) * 0.25f - 9.0f;
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = static_cast<std::int8_t>(i * 37 % 256 - 128);
  const std::string fp = temp_path("values.f32"), qp = temp_path("values.i8");
  std::ofstream(fp, std::ios::binary)
      .write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size() * 4));
  std::ofstream(qp, std::ios::binary)
      .write(reinterpret_cast<const char*>(q.data()), static_cast<std::streamsize>(q.size()));
  for (const std::size_t max : {1, 3, 16385, 1 << 20}) {
    EXPECT_EQ(read_in_chunks<float>(fp, sample_format::f32, max), f) << max;
    EXPECT_EQ(read_in_chunks<std::int8_t>(qp, sample_format::i8, max), q) << max;
  }
  std::vector<float> as_float(q.begin(), q.end());
  EXPECT_EQ(read_samples(qp, sample_format::i8), as_float);
  sample_reader text(fp, sample_format::text);
  std::vector<std::int8_t> raw;
  EXPECT_THROW(text.read(raw, 10), invalid_argument);  // raw int8 only from an i8 file
  std::filesystem::remove(fp);
  std::filesystem::remove(qp);
}

TEST(SampleReader, LongTokensAndCutCharactersAreErrors) {
  const std::string path = temp_path("bad.txt");
  std::ofstream(path, std::ios::binary) << "1 2 " << std::string(100000, '7') << "\n";
  try {
    (void)read_samples(path, sample_format::text);
    FAIL();
  } catch (const format_error& e) {
    EXPECT_NE(std::string(e.what()).find(":1: '777"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is not a number"), std::string::npos) << e.what();
  }
  std::ofstream(path, std::ios::binary) << "1 2 # cut \xE2\x82";  // a character cut by the end
  EXPECT_THROW((void)read_samples(path, sample_format::text), format_error);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpufec
