// Helpers for the conv command-line tests: files of bits and LLRs in the formats `encode conv` and
// `decode conv` read and write, over the shared runner and scratch folder (tests/cli/cli_util.hpp).
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli_util.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpufec::conv::testing {

using gpufec::testing::cli_result;
using gpufec::testing::read_all;
using gpufec::testing::run_cli;

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

// A fresh folder per test, removed after it (tests/cli/cli_util.hpp).
class ConvCliTest : public gpufec::testing::cli_test {};

}  // namespace gpufec::conv::testing
