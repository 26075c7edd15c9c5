// Time-varying block (TVB) codes (Briffa, Schaathun, Wesemeyer; seed paper sec. II-A): message
// symbols D_i in F_q, i = 0..N-1, each encoded by its own injective constituent encoding
// C_i : F_q -> alphabet^n, and the codewords juxtaposed into a frame of tau = nN channel symbols.
// An optional marker (a Davey-MacKay watermark: a fixed pseudo-random sequence of tau symbols) is
// added (XOR for binary) onto the frame; the decoder knows it, so it simply becomes part of C_i.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpufec::sync {

// One constituent encoding: q codewords of n symbols, codeword D at symbols[D*n, D*n + n).
struct codebook {
  int q = 0;
  int n = 0;
  std::vector<std::uint8_t> symbols;
};

class tvb_code {
 public:
  // Position i uses codebooks[i % codebooks.size()]: one codebook is a fixed code, N codebooks one
  // per position, anything between cycles. `marker` is empty or tau = n*N symbols added onto the
  // frame. Throws invalid_argument naming the problem (q < 2, n < 1 or > 32, q > alphabet^n,
  // N < 1, codebook of the wrong shape, a symbol outside the alphabet, a non-injective codebook
  // (naming the codebook and the two equal codewords), a marker of the wrong length).
  tvb_code(int q, int n, int N, std::vector<codebook> codebooks,
           std::vector<std::uint8_t> marker = {}, int alphabet = 2);

  // A fresh injective codebook per position, drawn from `seed` (uniformly among q-subsets of the
  // alphabet^n words, in random order); with `random_marker` also a random marker from the seed.
  static tvb_code random(int q, int n, int N, std::uint64_t seed, bool random_marker = false,
                         int alphabet = 2);
  // The first q words of n symbols in natural binary order (D itself, MSB first): the simplest
  // fixed code, useful in tests.
  static codebook natural(int q, int n);

  int q() const { return q_; }
  int n() const { return n_; }
  int N() const { return N_; }
  int alphabet() const { return alphabet_; }
  std::int64_t tau() const { return static_cast<std::int64_t>(n_) * N_; }
  std::size_t codebook_count() const { return codebooks_.size(); }
  const std::vector<codebook>& codebooks() const { return codebooks_; }
  const std::vector<std::uint8_t>& marker() const { return marker_; }

  // The codeword C_i(D) as transmitted (marker included): n symbols. The flat table is N*q*n
  // symbols, position-major then symbol then codeword symbol.
  const std::uint8_t* codeword(int i, int D) const {
    return table_.data() + (static_cast<std::size_t>(i) * q_ + D) * n_;
  }
  const std::vector<std::uint8_t>& table() const { return table_; }

  // Encodes N message symbols (each < q; throws otherwise) into tau channel symbols.
  void encode(std::span<const std::uint32_t> message, std::span<std::uint8_t> frame) const;

 private:
  int q_, n_, N_, alphabet_;
  std::vector<codebook> codebooks_;
  std::vector<std::uint8_t> marker_;
  std::vector<std::uint8_t> table_;
};

// Codebook files (docs/formats.md): text, '#' comments, a header `q Q`, `n N` and optionally
// `N P` (the code's positions), then one or more `codebook` sections of exactly q lines of n
// symbols each ('0'/'1', spaces ignored), then optionally a `marker` section (its '0'/'1' symbols
// on any number of lines, a multiple of n). Throws format_error naming the file, the line and the
// problem for anything malformed or inconsistent (more codebooks than N, a marker of another N).
struct code_file {
  std::vector<codebook> codebooks;
  std::vector<std::uint8_t> marker;  // empty: no marker section
  std::uint64_t fingerprint = 0;     // FNV-1a 64 of the file's bytes (for reports)
  int header_positions = 0;          // the `N` header line's value (0: none)
  // Positions the file fixes: its `N` header, else marker symbols / n, else the codebooks when
  // more than one (one per position), else 0 (one codebook: any N).
  int positions() const {
    if (header_positions) return header_positions;
    if (!marker.empty()) return static_cast<int>(marker.size() / codebooks.front().n);
    return codebooks.size() > 1 ? static_cast<int>(codebooks.size()) : 0;
  }
  // What fixes positions(), for messages: "its N header", "its marker", "its 12 codebooks".
  std::string positions_source() const;
};
code_file read_code_file(const std::string& path);
code_file parse_code_file(const std::string& text, const std::string& source_name);
// `positions` > 0 writes the `N` header (the code's N, so that the file fixes it).
void write_code_file(const std::string& path, const std::vector<codebook>& codebooks,
                     const std::vector<std::uint8_t>& marker, int positions);
std::vector<codebook> read_codebook_file(const std::string& path);
std::vector<codebook> parse_codebooks(const std::string& text, const std::string& source_name);
void write_codebook_file(const std::string& path, const std::vector<codebook>& codebooks);

}  // namespace gpufec::sync
