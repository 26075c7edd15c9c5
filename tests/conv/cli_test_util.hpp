// Helpers for the conv command-line tests: run the real binary, a temporary folder per test, and
// files of bits and LLRs in the formats `encode conv` and `decode conv` read and write.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpufec::conv::testing {

struct cli_result {
  int status = -1;
  std::string output;  // stdout and stderr together
};

inline cli_result run_cli(const std::string& args) {
  const std::string command = std::string(GPUFEC_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {};
  cli_result r;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    r.output.append(buffer, n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// '0'/'1' characters of a text file, line ends and spaces dropped.
inline std::string bits_of_text(const std::string& text) {
  std::string out;
  for (const char c : text)
    if (c == '0' || c == '1') out += c;
  return out;
}

inline std::string bits_string(const std::vector<std::uint8_t>& bits) {
  std::string out;
  for (const std::uint8_t b : bits) out += b ? '1' : '0';
  return out;
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// LLRs as text, %.9g (reads back as the same float), `per_line` to a line.
inline void write_llr_text(const std::string& path, const std::vector<float>& llr,
                           std::size_t per_line = 64) {
  std::string text;
  char buf[32];
  for (std::size_t i = 0; i < llr.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.9g", llr[i]);
    text += buf;
    text += (i + 1) % per_line == 0 ? '\n' : ' ';
  }
  write_text(path, text + "\n");
}

template <class T>
void write_raw(const std::string& path, const std::vector<T>& values) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()),
             static_cast<std::streamsize>(values.size() * sizeof(T)));
}

// A fresh folder per test, removed after it.
class ConvCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gpufec_conv_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // The names in the folder, for "nothing was left behind".
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::filesystem::path dir_;
};

}  // namespace gpufec::conv::testing
