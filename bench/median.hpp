// The median the benchmark harnesses report (the mean of the middle two for an even count).
#pragma once

#include <algorithm>
#include <vector>

namespace gpufec::bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace gpufec::bench
