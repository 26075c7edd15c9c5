// Puncturing: a period-P matrix of 0/1 with one row per output stream; column (t mod P) says which
// of stage t's beta coded bits are sent (1) or deleted (0). The pattern starts at stage 0 of every
// frame (and of a stream) and runs over tail stages too. Sent bits keep the stage-major order:
// stage t's kept streams in stream order, then stage t + 1's.
//
// Built-in patterns (rate 1/2 mother codes) are those of DVB-S (ETSI EN 300 421, Table 2; DVB-T's
// EN 300 744 uses the same), rows X = stream 0 (171), Y = stream 1 (133):
//   1/2: X 1,       Y 1          2/3: X 10,      Y 11        3/4: X 101, Y 110
//   5/6: X 10101,   Y 11010      7/8: X 1000101, Y 1111010
// 802.11a/g/n's 2/3, 3/4 and 5/6 delete the same coded bits but send stream 133 first; docs/conv.md
// gives the pattern text for that order.
//
// Depuncturing puts a neutral LLR (0: no information either way) at every deleted position.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpufec::conv {

class puncture_pattern {
 public:
  // rows[b][p] in {0, 1}: one row per output stream, all of one length P >= 1. Throws
  // invalid_argument for no rows, rows of different lengths, values other than 0/1 or a column of
  // zeros (a stage that sends nothing).
  explicit puncture_pattern(std::vector<std::vector<std::uint8_t>> rows);
  // No puncturing: rate 1/beta.
  static puncture_pattern none(int beta);
  // A built-in by rate: "1/beta" (none) for any beta, "2/3", "3/4", "5/6", "7/8" (DVB-S) for beta
  // = 2.
  static puncture_pattern standard(std::string_view rate, int beta);
  // Text: a built-in rate ("3/4") or rows separated by commas ("101,110"). Throws invalid_argument
  // naming the text when it is neither, or when its row count differs from beta.
  static puncture_pattern parse(std::string_view text, int beta);

  int beta() const { return static_cast<int>(rows_.size()); }
  int period() const { return static_cast<int>(rows_[0].size()); }
  bool sends(int stream, std::size_t stage) const { return rows_[stream][stage % period()] != 0; }
  // Coded bits sent per period, and before stage `stage` (from stage 0).
  int sent_per_period() const { return sent_per_period_; }
  std::size_t sent_before(std::size_t stage) const;
  bool punctures() const { return sent_per_period_ != beta() * period(); }
  // The code rate under this pattern: period / sent_per_period (1/beta without puncturing).
  double rate() const { return static_cast<double>(period()) / sent_per_period_; }
  // "3/4" (reduced fraction).
  std::string rate_string() const;
  // "101,110".
  std::string to_string() const;
  const std::vector<std::vector<std::uint8_t>>& rows() const { return rows_; }

  // Deletes the unsent bits of `stages` stages of beta coded bits each (stage-major).
  void puncture(std::span<const std::uint8_t> full, std::span<std::uint8_t> sent) const;
  // Inserts 0 at the deleted positions: `sent` holds sent_before(stages) values, `full` receives
  // beta * stages.
  void depuncture(std::span<const float> sent, std::span<float> full) const;
  void depuncture(std::span<const std::int8_t> sent, std::span<std::int8_t> full) const;

  friend bool operator==(const puncture_pattern& a, const puncture_pattern& b) {
    return a.rows_ == b.rows_;
  }

 private:
  std::vector<std::vector<std::uint8_t>> rows_;
  int sent_per_period_ = 0;
  std::vector<int> sent_in_first_;  // [p]: sent in stages 0..p-1 of a period, p = 0..P
};

}  // namespace gpufec::conv
