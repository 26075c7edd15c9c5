// puncture_pattern: validation, the DVB-S built-ins, text parsing, puncturing and depuncturing.
#include "gpufec/conv/puncture.hpp"

#include <array>
#include <numeric>

#include "gpufec/common/error.hpp"

namespace gpufec::conv {
namespace {

// DVB-S, ETSI EN 300 421 Table 2 (rows X = stream 0 = 171, Y = stream 1 = 133).
struct builtin {
  std::string_view rate, x, y;
};
constexpr std::array kDvbS{
    builtin{"2/3", "10", "11"},
    builtin{"3/4", "101", "110"},
    builtin{"5/6", "10101", "11010"},
    builtin{"7/8", "1000101", "1111010"},
};

std::vector<std::uint8_t> row_from_text(std::string_view text, std::string_view whole) {
  std::vector<std::uint8_t> row;
  for (char c : text) {
    require(c == '0' || c == '1', "puncture pattern '", whole, "' has '", c,
            "' (rows are strings of 0 and 1 separated by commas, such as 101,110)");
    row.push_back(static_cast<std::uint8_t>(c - '0'));
  }
  require(!row.empty(), "puncture pattern '", whole, "' has an empty row");
  return row;
}

std::string builtin_names() {
  std::string s = "1/beta";
  for (const auto& b : kDvbS) s += cat(", ", b.rate);
  return s;
}

}  // namespace

puncture_pattern::puncture_pattern(std::vector<std::vector<std::uint8_t>> rows)
    : rows_(std::move(rows)) {
  require(!rows_.empty(), "a puncture pattern needs one row per output stream (got none)");
  const std::size_t P = rows_[0].size();
  require(P >= 1, "puncture pattern row 1 is empty");
  for (std::size_t b = 0; b < rows_.size(); ++b) {
    require(rows_[b].size() == P, "puncture pattern row ", b + 1, " has ", rows_[b].size(),
            " columns but row 1 has ", P, " (all rows share the period)");
    for (std::uint8_t v : rows_[b])
      require(v <= 1, "puncture pattern row ", b + 1, " holds ", int{v}, " (only 0 and 1)");
  }
  sent_in_first_.assign(P + 1, 0);
  for (std::size_t p = 0; p < P; ++p) {
    int sent = 0;
    for (const auto& row : rows_) sent += row[p];
    require(sent > 0, "column ", p + 1, " of puncture pattern ", to_string(),
            " is all zeros: stage ", p, " of every period would send nothing");
    sent_in_first_[p + 1] = sent_in_first_[p] + sent;
  }
  sent_per_period_ = sent_in_first_[P];
}

puncture_pattern puncture_pattern::none(int beta) {
  require(beta >= 1, "puncture pattern: beta = ", beta, " must be at least 1");
  return puncture_pattern(std::vector<std::vector<std::uint8_t>>(beta, {1}));
}

puncture_pattern puncture_pattern::standard(std::string_view rate, int beta) {
  if (rate == cat("1/", beta)) return none(beta);
  for (const auto& b : kDvbS) {
    if (rate != b.rate) continue;
    require(beta == 2, "the built-in ", rate, " pattern (DVB-S) punctures a rate 1/2 code, but ",
            "this code has beta = ", beta, " streams: give the pattern rows instead");
    return puncture_pattern({row_from_text(b.x, b.x), row_from_text(b.y, b.y)});
  }
  throw invalid_argument(cat("unknown puncturing rate '", rate, "' (built-ins: ", builtin_names(),
                             "; or give one row of 0/1 per stream, such as 101,110)"));
}

puncture_pattern puncture_pattern::parse(std::string_view text, int beta) {
  require(!text.empty(), "the puncture pattern is empty (expected a rate such as 3/4 or rows ",
          "such as 101,110)");
  if (text.find('/') != std::string_view::npos) return standard(text, beta);
  std::vector<std::vector<std::uint8_t>> rows;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    rows.push_back(row_from_text(
        text.substr(start, comma == std::string_view::npos ? comma : comma - start), text));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  require(static_cast<int>(rows.size()) == beta, "puncture pattern '", text, "' has ", rows.size(),
          " rows but the code has beta = ", beta, " output streams (one row per stream)");
  return puncture_pattern(std::move(rows));
}

std::size_t puncture_pattern::sent_before(std::size_t stage) const {
  const auto P = static_cast<std::size_t>(period());
  return (stage / P) * static_cast<std::size_t>(sent_per_period_) + sent_in_first_[stage % P];
}

std::string puncture_pattern::rate_string() const {
  const int g = std::gcd(period(), sent_per_period_);
  return cat(period() / g, "/", sent_per_period_ / g);
}

std::string puncture_pattern::to_string() const {
  std::string s;
  for (std::size_t b = 0; b < rows_.size(); ++b) {
    if (b) s += ',';
    for (std::uint8_t v : rows_[b]) s += static_cast<char>('0' + v);
  }
  return s;
}

namespace {

template <class T>
void check_sizes(const puncture_pattern& p, std::size_t sent, std::size_t full, const char* what) {
  const auto beta = static_cast<std::size_t>(p.beta());
  require(full % beta == 0, what, ": ", full, " full-rate values are not a whole number of stages",
          " of beta = ", beta);
  const std::size_t stages = full / beta;
  require(sent == p.sent_before(stages), what, ": ", stages, " stages under pattern ",
          p.to_string(), " send ", p.sent_before(stages), " values, not ", sent);
}

template <class T>
void depuncture_into(const puncture_pattern& p, std::span<const T> sent, std::span<T> full) {
  check_sizes<T>(p, sent.size(), full.size(), "depuncture");
  const auto beta = static_cast<std::size_t>(p.beta());
  std::size_t k = 0;
  for (std::size_t i = 0; i < full.size(); ++i)
    full[i] = p.sends(static_cast<int>(i % beta), i / beta) ? sent[k++] : T{0};
}

}  // namespace

void puncture_pattern::puncture(std::span<const std::uint8_t> full,
                                std::span<std::uint8_t> sent) const {
  check_sizes<std::uint8_t>(*this, sent.size(), full.size(), "puncture");
  const auto b = static_cast<std::size_t>(beta());
  std::size_t k = 0;
  for (std::size_t i = 0; i < full.size(); ++i)
    if (sends(static_cast<int>(i % b), i / b)) sent[k++] = full[i];
}

void puncture_pattern::depuncture(std::span<const float> sent, std::span<float> full) const {
  depuncture_into(*this, sent, full);
}
void puncture_pattern::depuncture(std::span<const std::int8_t> sent,
                                  std::span<std::int8_t> full) const {
  depuncture_into(*this, sent, full);
}

}  // namespace gpufec::conv
