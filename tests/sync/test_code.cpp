// TVB codes and codebook files.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "gpufec/common/error.hpp"
#include "gpufec/sync/tvb_code.hpp"

using gpufec::sync::codebook;
using gpufec::sync::parse_codebooks;
using gpufec::sync::read_codebook_file;
using gpufec::sync::tvb_code;
using gpufec::sync::write_codebook_file;

namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const gpufec::error& e) {
    return e.what();
  }
  return "(no exception)";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

codebook book(int q, int n, const std::vector<std::string>& words) {
  codebook cb{q, n, {}};
  for (const auto& w : words)
    for (char c : w) cb.symbols.push_back(static_cast<std::uint8_t>(c - '0'));
  return cb;
}

}  // namespace

TEST(SyncCode, NaturalCodebook) {
  const auto cb = tvb_code::natural(5, 3);
  EXPECT_EQ(cb.q, 5);
  EXPECT_EQ(cb.n, 3);
  const std::vector<std::uint8_t> want = {0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0};
  EXPECT_EQ(cb.symbols, want);
  EXPECT_THROW(tvb_code::natural(9, 3), gpufec::invalid_argument);
}

TEST(SyncCode, TableCyclesCodebooksAndAddsMarker) {
  const auto a = book(2, 2, {"00", "11"});
  const auto b = book(2, 2, {"01", "10"});
  const std::vector<std::uint8_t> marker = {1, 0, 0, 0, 1, 1};
  const tvb_code code(2, 2, 3, {a, b}, marker);
  EXPECT_EQ(code.tau(), 6);
  EXPECT_EQ(code.codebook_count(), 2u);
  // Position 0 uses a ^ 10, position 1 b ^ 00, position 2 a ^ 11.
  const std::vector<std::uint8_t> want = {1, 0, 0, 1, /**/ 0, 1, 1, 0, /**/ 1, 1, 0, 0};
  EXPECT_EQ(code.table(), want);
  EXPECT_EQ(code.codeword(2, 1)[0], 0);
  std::vector<std::uint32_t> msg = {1, 0, 1};
  std::vector<std::uint8_t> frame(6);
  code.encode(msg, frame);
  const std::vector<std::uint8_t> fwant = {0, 1, 0, 1, 0, 0};
  EXPECT_EQ(frame, fwant);
}

TEST(SyncCode, ValidationMessages) {
  using V = std::vector<codebook>;
  EXPECT_TRUE(contains(error_of([] { tvb_code(40, 5, 3, V{tvb_code::natural(4, 5)}); }),
                       "q = 40 exceeds alphabet^n = 32 (n = 5)"));
  EXPECT_TRUE(contains(error_of([] { tvb_code(1, 5, 3, V{}); }), "q = 1"));
  EXPECT_TRUE(contains(error_of([] { tvb_code(2, 0, 3, V{}); }), "n = 0"));
  EXPECT_TRUE(contains(error_of([] { tvb_code(2, 33, 3, V{}); }), "n = 33"));
  EXPECT_TRUE(contains(error_of([] { tvb_code(2, 3, 0, V{tvb_code::natural(2, 3)}); }), "N = 0"));
  EXPECT_TRUE(contains(error_of([] { tvb_code(2, 3, 3, V{}); }), "no codebook"));
  // A non-injective codebook names the codebook and both codewords.
  auto dup = tvb_code::natural(8, 4);
  const std::vector<std::uint8_t> w3 = {0, 1, 1, 0}, w15 = {1, 1, 1, 1};
  std::copy(w15.begin(), w15.end(), dup.symbols.begin() + 6 * 4);
  std::copy(w3.begin(), w3.end(), dup.symbols.begin() + 3 * 4);
  std::copy(w3.begin(), w3.end(), dup.symbols.begin() + 7 * 4);
  const V three = {tvb_code::natural(8, 4), tvb_code::natural(8, 4), dup};
  EXPECT_EQ(error_of([&] { tvb_code(8, 4, 3, three); }),
            "TVB code: codebook 2: codewords 3 and 7 are equal (0110)");
  // Wrong shapes and symbols.
  EXPECT_TRUE(contains(error_of([] { tvb_code(4, 3, 3, V{tvb_code::natural(4, 4)}); }),
                       "codebook 0 has q = 4, n = 4"));
  auto bad = tvb_code::natural(4, 3);
  bad.symbols[5] = 2;
  EXPECT_TRUE(contains(error_of([&] { tvb_code(4, 3, 3, V{bad}); }), "symbol 2 = 2"));
  auto shortb = tvb_code::natural(4, 3);
  shortb.symbols.pop_back();
  EXPECT_TRUE(contains(error_of([&] { tvb_code(4, 3, 3, V{shortb}); }), "holds 11 symbols"));
  EXPECT_TRUE(contains(
      error_of([] { tvb_code(4, 3, 3, V{tvb_code::natural(4, 3)}, std::vector<std::uint8_t>(8)); }),
      "marker has 8 symbols"));
  EXPECT_TRUE(contains(error_of([] { tvb_code(4, 3, 2, V(3, tvb_code::natural(4, 3))); }),
                       "3 codebooks for only N = 2"));
}

TEST(SyncCode, EncodeValidates) {
  const tvb_code code(4, 3, 2, {tvb_code::natural(4, 3)});
  std::vector<std::uint8_t> frame(6);
  std::vector<std::uint32_t> msg = {1, 4};
  EXPECT_TRUE(contains(error_of([&] { code.encode(msg, frame); }),
                       "message symbol 1 = 4 is not below q = 4"));
  std::vector<std::uint32_t> three = {1, 2, 3};
  EXPECT_TRUE(contains(error_of([&] { code.encode(three, frame); }), "expected N = 2"));
  std::vector<std::uint8_t> small(5);
  msg[1] = 3;
  EXPECT_TRUE(contains(error_of([&] { code.encode(msg, small); }), "expected tau = 6"));
  code.encode(msg, frame);
  const std::vector<std::uint8_t> want = {0, 0, 1, 0, 1, 1};
  EXPECT_EQ(frame, want);
}

TEST(SyncCode, RandomCodesAreInjectiveDeterministicAndVaried) {
  for (auto [q, n] : std::vector<std::pair<int, int>>{
           {2, 1}, {8, 3}, {32, 5}, {32, 10}, {16, 32}, {1024, 10}, {1024, 11}, {1000, 32}}) {
    const auto a = tvb_code::random(q, n, 5, 123, true);
    const auto b = tvb_code::random(q, n, 5, 123, true);
    const auto c = tvb_code::random(q, n, 5, 124, true);
    EXPECT_EQ(a.table(), b.table());
    EXPECT_EQ(a.marker(), b.marker());
    EXPECT_EQ(a.codebook_count(), 5u);
    EXPECT_EQ(a.marker().size(), static_cast<std::size_t>(5 * n));
    if (q > 2 || n > 1) {
      EXPECT_NE(a.table(), c.table()) << q << " " << n;
    }
    // Every position's codebook is a permutation of distinct words (the constructor checks
    // injectivity, but count distinct words here too).
    for (const auto& cb : a.codebooks()) {
      std::set<std::vector<std::uint8_t>> words;
      for (int D = 0; D < q; ++D)
        words.insert(
            std::vector<std::uint8_t>(cb.symbols.begin() + D * n, cb.symbols.begin() + D * n + n));
      EXPECT_EQ(words.size(), static_cast<std::size_t>(q));
    }
    // Positions differ from each other (fresh codebook per position).
    if (q >= 8) {
      EXPECT_NE(a.codebooks()[0].symbols, a.codebooks()[1].symbols);
    }
  }
  // q = 2^n: each codebook is a uniformly random permutation of all words. Over many positions
  // the word in slot 0 is roughly uniform.
  const auto full = tvb_code::random(4, 2, 4000, 9);
  std::vector<int> hist(4, 0);
  for (const auto& cb : full.codebooks())
    ++hist[static_cast<std::size_t>(cb.symbols[0] * 2 + cb.symbols[1])];
  for (int h : hist) EXPECT_NEAR(h, 1000, 5 * std::sqrt(1000 * 0.75));
  // Bad parameters.
  EXPECT_THROW(tvb_code::random(40, 5, 3, 1), gpufec::invalid_argument);
  EXPECT_THROW(tvb_code::random(4, 33, 3, 1), gpufec::invalid_argument);
}

TEST(SyncCode, RandomCodesAreFast) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto a = tvb_code::random(1024, 32, 200, 5);
  const auto b = tvb_code::random(1024, 10, 200, 5);  // dense: partial Fisher-Yates
  const auto c = tvb_code::random(1024, 12, 200, 5);  // sparse: rejection
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // A guard against a pathological draw (minutes), not a benchmark: about 0.3 s alone, it took
  // just over 1 s beside 15 other tests on a 16-core machine; sanitizers slow it ~3x.
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(s, 30.0);
#else
  EXPECT_LT(s, 10.0);
#endif
  EXPECT_EQ(a.table().size() + b.table().size() + c.table().size(),
            static_cast<std::size_t>(200 * 1024 * (32 + 10 + 12)));
}

TEST(SyncCode, QuaternaryAlphabetMarkerAddsModulo) {
  const auto code = tvb_code::random(16, 3, 4, 77, true, 4);
  for (int i = 0; i < 4; ++i)
    for (int D = 0; D < 16; ++D)
      for (int b = 0; b < 3; ++b) {
        const auto s = code.codebooks()[static_cast<std::size_t>(i)]
                           .symbols[static_cast<std::size_t>(D * 3 + b)];
        const auto m = code.marker()[static_cast<std::size_t>(i * 3 + b)];
        EXPECT_EQ(code.codeword(i, D)[b], (s + m) % 4);
      }
}

// ---- Codebook files ----

TEST(SyncCodebookFile, ReadsSampleFiles) {
  const std::string dir = GPUFEC_TEST_DATA;
  const auto one = read_codebook_file(dir + "/codebook_q4_n3.txt");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].q, 4);
  EXPECT_EQ(one[0].n, 3);
  const std::vector<std::uint8_t> want = {0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0};
  EXPECT_EQ(one[0].symbols, want);
  const auto three = read_codebook_file(dir + "/codebook_q4_n3_cycle.txt");
  ASSERT_EQ(three.size(), 3u);
  const tvb_code code(4, 3, 7, three);
  EXPECT_EQ(code.codeword(4, 3)[2], 1);  // position 4 uses codebook 1: word 3 = 111
  EXPECT_TRUE(
      contains(error_of([&] { read_codebook_file(dir + "/codebook_bad_duplicate.txt"); }),
               "codebook_bad_duplicate.txt:7: codebook 0: codewords 1 and 3 are equal (011)"));
}

TEST(SyncCodebookFile, MalformedFilesNameFileAndLine) {
  struct c {
    const char* text;
    const char* message;
  };
  const std::vector<c> cases = {
      {"", "t.txt:0: empty codebook file"},
      {"# only a comment\n\n", "t.txt:2: empty codebook file"},
      {"codebook\n0\n", "t.txt:1: missing header"},
      {"q 2\ncodebook\n0\n1\n", "t.txt:2: missing header"},
      {"q 2\n", "t.txt:1: missing header"},
      {"q x\nn 1\n", "t.txt:1: invalid header: q = 'x'"},
      {"q 2\nn 0\n", "t.txt:2: invalid header: n = '0'"},
      {"q 2\nn 33\n", "t.txt:2: invalid header: n = '33'"},
      {"q 5\nn 2\ncodebook\n", "t.txt:3: invalid header: q = 5 exceeds 2^n = 4"},
      {"q 2 3\nn 1\n", "t.txt:1: trailing garbage after 'q 2': '3'"},
      {"q\nn 1\n", "t.txt:1: missing value for 'q'"},
      {"q 2\nq 2\n", "t.txt:2: duplicate header line 'q'"},
      {"q 2\nn 1\n", "t.txt:2: no 'codebook' section"},
      {"q 2\nn 1\n0\n", "t.txt:3: codeword before the first 'codebook' line"},
      {"q 2\nn 1\ncodebook x\n", "t.txt:3: trailing garbage after 'codebook': 'x'"},
      {"q 2\nn 2\ncodebook\n00\n1\n", "t.txt:5: codeword has 1 symbols, expected n = 2"},
      {"q 2\nn 2\ncodebook\n00\n1x\n", "t.txt:5: bad symbol 'x' in codeword"},
      {"q 2\nn 2\ncodebook\n00\n12\n", "t.txt:5: bad symbol '2' in codeword"},
      {"q 2\nn 2\ncodebook\n00\n",
       "t.txt:4: codebook 0 (from line 3) has 1 codewords, expected q = 2"},
      {"q 2\nn 2\ncodebook\n00\ncodebook\n00\n01\n",
       "t.txt:5: codebook 0 (from line 3) has 1 codewords, expected q = 2"},
      {"q 2\nn 2\ncodebook\n00\n01\n10\n",
       "t.txt:6: codebook 0 (from line 3) has more than q = 2 codewords"},
      {"q 2\nn 2\ncodebook\n00\n01\nq 2\n", "t.txt:6: header line 'q' after the first codebook"},
      {"q 2\nn 2\ncodebook\n00\n00\n", "t.txt:5: codebook 0: codewords 0 and 1 are equal (00)"},
  };
  for (const auto& k : cases) {
    const std::string e = error_of([&] { parse_codebooks(k.text, "t.txt"); });
    EXPECT_TRUE(contains(e, k.message)) << "text:\n" << k.text << "\ngot: " << e;
    EXPECT_THROW(parse_codebooks(k.text, "t.txt"), gpufec::format_error);
  }
  EXPECT_TRUE(contains(error_of([] { read_codebook_file("/nonexistent/dir/cb.txt"); }),
                       "/nonexistent/dir/cb.txt: cannot open codebook file"));
  EXPECT_THROW(read_codebook_file("/nonexistent/dir/cb.txt"), gpufec::format_error);
  // CRLF line ends and comments everywhere are fine.
  const auto ok =
      parse_codebooks("q 2 # size\r\n n 2\r\ncodebook # first\r\n0 1\r\n1 0 # w\r\n", "t");
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].symbols, (std::vector<std::uint8_t>{0, 1, 1, 0}));
}

TEST(SyncCodebookFile, RoundTrip) {
  const auto code = tvb_code::random(32, 10, 7, 2025);
  const auto path = (std::filesystem::temp_directory_path() /
                     ("gpufec_cb_" + std::to_string(::getpid()) + ".txt"))
                        .string();
  write_codebook_file(path, code.codebooks());
  const auto back = read_codebook_file(path);
  std::remove(path.c_str());
  ASSERT_EQ(back.size(), code.codebooks().size());
  for (std::size_t c = 0; c < back.size(); ++c) {
    EXPECT_EQ(back[c].q, 32);
    EXPECT_EQ(back[c].n, 10);
    EXPECT_EQ(back[c].symbols, code.codebooks()[c].symbols);
  }
  EXPECT_THROW(write_codebook_file(path, {}), gpufec::invalid_argument);
  EXPECT_THROW(write_codebook_file("/nonexistent/dir/x.txt", code.codebooks()), gpufec::error);
}
