// The description of a polar code (describe -> plan -> execute, docs/polar.md): length N = 2^m,
// K information bits, the frozen set (frozen bits are 0) and whether encoding is systematic.
//
// Conventions (stated once; docs/polar.md has the worked N = 8 example):
// - x = u G_N, G_N = F^(x)m, F = [[1,0],[1,1]], natural order: no bit-reversal permutation (as in
//   3GPP TS 38.212 5.3.1.2). Recursively x[0, N/2) = (u[0, N/2) ^ u[N/2, N)) G_(N/2) and
//   x[N/2, N) = u[N/2, N) G_(N/2). G_N is its own inverse over GF(2).
// - Non-systematic: u_A = the information bits in ascending index order, u_F = 0.
// - Systematic: x_A = the information bits, ascending order, with u_F = 0 (computed as x =
//   ((v G_N) with x_F cleared) G_N, v_A = info, v_F = 0, which is right when G_AA is its own
//   inverse; the code checks that when it is built, see `polar_code`).
// - A frozen-set file holds indices separated by white space or commas, '#' starts a comment; it
//   may open with the lines `N <length>` and `K <information bits>` (which then fix the code it is
//   for), and the first word after them may be `frozen` (the default) or `info` to say which set
//   the indices are.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpufec/common/enum_names.hpp"

namespace gpufec::polar {

// How the frozen set is chosen. nr5g: TS 38.212 Table 5.3.1.2-1 (N <= 1024); bhattacharyya and
// gaussian_approximation: at a design Eb/N0 (construction.hpp); file: indices read from a file.
enum class construction { nr5g, bhattacharyya, gaussian_approximation, file };
enum class encoding { non_systematic, systematic };
// Which set a file (or a list) of indices names.
enum class index_set { frozen, info };

struct construction_spec {
  construction method = construction::nr5g;
  double design_snr_db = 0.0;  // bhattacharyya, gaussian_approximation: design Eb/N0 in dB
  std::string path;            // file
  // "5g", "bhatt:0", "ga:2.5" or anything else as a file path (the CLI's --construct).
  static construction_spec parse(std::string_view text);
  std::string to_string() const;  // the same syntax
};

class polar_code {
 public:
  // Throws invalid_argument naming the field: N not a power of two in [2, 2^20], K outside
  // [1, N], nr5g with N > 1024, a design SNR that is not finite or outside [-100, 100] dB;
  // format_error for a frozen-set file that cannot be read, holds a word that is not an index,
  // an index outside [0, N), a duplicate, or not exactly N - K frozen (K info) indices; and
  // invalid_argument for systematic encoding over a set where it is not possible (above).
  polar_code(std::uint32_t N, std::uint32_t K, const construction_spec& spec = {},
             encoding enc = encoding::non_systematic);
  // A code from explicit indices (Sionna's `frozen_pos`), validated like a file's.
  static polar_code from_indices(std::uint32_t N, std::span<const std::uint32_t> indices,
                                 index_set which, encoding enc = encoding::non_systematic);

  std::uint32_t N() const { return N_; }
  std::uint32_t K() const { return K_; }
  std::uint32_t m() const { return m_; }  // log2 N
  double rate() const { return static_cast<double>(K_) / N_; }
  encoding coding() const { return encoding_; }
  bool systematic() const { return encoding_ == encoding::systematic; }
  const construction_spec& spec() const { return spec_; }

  // frozen_mask()[j] == 1 when u_j is frozen (to 0).
  const std::vector<std::uint8_t>& frozen_mask() const { return frozen_; }
  const std::vector<std::uint32_t>& frozen_positions() const { return frozen_positions_; }
  // Ascending; information bit k goes to u (or, systematic, x) at info_positions()[k].
  const std::vector<std::uint32_t>& info_positions() const { return info_positions_; }

  // One line: "polar N=1024 K=512 (rate 0.5) construction 5g, non-systematic".
  std::string describe() const;
  // The frozen set in the file format above (header comment, `frozen`, the indices 16 per line),
  // which the file construction reads back unchanged (`gpufec info polar`).
  void write_frozen_set(std::ostream& os) const;

 private:
  polar_code() = default;
  void set_frozen(std::vector<std::uint8_t> frozen_mask);

  std::uint32_t N_ = 0, K_ = 0, m_ = 0;
  construction_spec spec_;
  encoding encoding_ = encoding::non_systematic;
  std::vector<std::uint8_t> frozen_;
  std::vector<std::uint32_t> frozen_positions_, info_positions_;
};

// A frozen-set file as written (see above): its header values (0 where absent), which set its
// indices name, and the indices with the line of each (for messages).
struct frozen_set_file {
  std::uint32_t N = 0, K = 0;
  index_set which = index_set::frozen;
  std::vector<std::uint32_t> indices;
  std::vector<std::size_t> lines;
  // The information bits the file gives a code of this length: its K line, else its count (info
  // indices) or the length less its count (frozen indices; 0 when there are too many).
  std::uint32_t implied_K(std::uint32_t length) const;
};
// Parses a frozen-set file's text, `source` naming it in messages; throws format_error for a word
// that is neither a header, the set's name nor an index.
frozen_set_file parse_frozen_set_file(std::string_view text, std::string_view source);
frozen_set_file read_frozen_set_file(const std::string& path);
// The frozen mask a frozen-set file's text gives a code of length N with K information bits;
// throws invalid_argument when its N or K line names another code, format_error for the rest.
std::vector<std::uint8_t> parse_index_file(std::string_view text, std::uint32_t N, std::uint32_t K,
                                           std::string_view source);

}  // namespace gpufec::polar

template <>
struct gpufec::enum_names<gpufec::polar::construction> {
  static constexpr std::array entries{enum_entry{polar::construction::nr5g, "5g"},
                                      enum_entry{polar::construction::bhattacharyya, "bhatt"},
                                      enum_entry{polar::construction::gaussian_approximation, "ga"},
                                      enum_entry{polar::construction::file, "file"}};
};
template <>
struct gpufec::enum_names<gpufec::polar::encoding> {
  static constexpr std::array entries{enum_entry{polar::encoding::non_systematic, "non-systematic"},
                                      enum_entry{polar::encoding::systematic, "systematic"}};
};
template <>
struct gpufec::enum_names<gpufec::polar::index_set> {
  static constexpr std::array entries{enum_entry{polar::index_set::frozen, "frozen"},
                                      enum_entry{polar::index_set::info, "info"}};
};
