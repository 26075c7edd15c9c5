// Sweep parsing and per-point seeds.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpufec/common/error.hpp"
#include "gpufec/sim/simulator.hpp"

namespace gpufec::sim {

namespace {

constexpr std::size_t max_points = 100000;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

double parse_number(std::string_view text, std::string_view item) {
  const std::string s(trim(text));
  std::size_t used = 0;
  double v = 0.0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  require(!s.empty() && used == s.size() && std::isfinite(v), "'", s,
          "' is not a finite number (in sweep item '", item, "')");
  return v;
}

// Decimal places a number's text carries: digits after the point, less the exponent ("0.25" 2,
// "1e-3" 3, "2.5e-2" 3, "40" 0).
int decimals_of(std::string_view text) {
  text = trim(text);
  const std::size_t e = text.find_first_of("eE");
  const std::string_view mantissa = text.substr(0, e);
  const std::size_t dot = mantissa.find('.');
  int places = dot == std::string_view::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
  if (e != std::string_view::npos) places -= std::atoi(std::string(text.substr(e + 1)).c_str());
  return std::max(places, 0);
}

}  // namespace

std::vector<double> parse_sweep(std::string_view text) {
  require(!trim(text).empty(), "empty sweep: expected numbers or ranges like 0:8:1 or 1e-3,1e-2");
  std::vector<double> points;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = trim(text.substr(start, comma - start));
    require(!item.empty(), "empty item in sweep '", text, "'");
    const std::size_t c1 = item.find(':');
    if (c1 == std::string_view::npos) {
      points.push_back(parse_number(item, item));
    } else {
      const std::size_t c2 = item.find(':', c1 + 1);
      require(c2 == std::string_view::npos || item.find(':', c2 + 1) == std::string_view::npos,
              "sweep range '", item, "' has too many ':' (expected first:last:step)");
      const double first = parse_number(item.substr(0, c1), item);
      const double last = parse_number(
          item.substr(c1 + 1, c2 == std::string_view::npos ? std::string_view::npos : c2 - c1 - 1),
          item);
      const double step =
          c2 == std::string_view::npos ? 1.0 : parse_number(item.substr(c2 + 1), item);
      require(step != 0.0, "sweep range '", item, "' has a zero step");
      require((last - first) * step >= 0.0, "sweep range '", item,
              "' never reaches its last value with step ", step);
      // Points first + i * step (no accumulated rounding), last included up to a rounding slack.
      const double span = (last - first) / step;
      require(span < static_cast<double>(max_points), "sweep range '", item, "' has more than ",
              max_points, " points");
      const auto count = static_cast<std::size_t>(std::floor(span + 1e-9)) + 1;
      // Each point rounded to the decimal places its range is written with (0.3:0:-0.1 ends at 0,
      // not at -5.55e-17), when those are few enough for a double to hold.
      const int places = std::max(
          {decimals_of(item.substr(0, c1)),
           decimals_of(item.substr(
               c1 + 1, c2 == std::string_view::npos ? std::string_view::npos : c2 - c1 - 1)),
           c2 == std::string_view::npos ? 0 : decimals_of(item.substr(c2 + 1))});
      const double scale = std::pow(10.0, places);
      for (std::size_t i = 0; i < count; ++i) {
        double x = first + static_cast<double>(i) * step;
        if (places <= 15) x = std::round(x * scale) / scale;
        points.push_back(x + 0.0);  // -0 prints as 0
      }
    }
    require(points.size() <= max_points, "sweep '", text, "' has more than ", max_points,
            " points");
    start = comma + 1;
  }
  return points;
}

std::uint64_t point_seed(std::uint64_t seed, double point) {
  // splitmix64 finalizer over the seed and the value's bits, so nearby seeds and values give
  // unrelated keys. -0 and 0 are one point.
  std::uint64_t index = 0;
  const double value = point == 0.0 ? 0.0 : point;
  std::memcpy(&index, &value, sizeof index);
  auto mix = [](std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  return mix(mix(seed) ^ (index * 0xD6E8FEB86659FD93ULL));
}

}  // namespace gpufec::sim
