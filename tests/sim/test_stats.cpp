#include <gtest/gtest.h>

#include "gpufec/common/error.hpp"
#include "gpufec/sim/stats.hpp"

namespace gpufec::sim {
namespace {

// Wilson references: the closed form evaluated independently in Python; Clopper-Pearson ones: beta
// quantiles (e.g. 0/10: 1 - 0.025^(1/10)), as tabulated by R binom.confint(method = "exact").
TEST(Wilson, KnownValues) {
  auto ci = wilson_interval(5, 10);
  EXPECT_NEAR(ci.lower, 0.2365931, 1e-6);
  EXPECT_NEAR(ci.upper, 0.7634069, 1e-6);
  ci = wilson_interval(0, 10);
  EXPECT_EQ(ci.lower, 0.0);
  EXPECT_NEAR(ci.upper, 0.2775328, 1e-6);
  ci = wilson_interval(10, 10);
  EXPECT_NEAR(ci.lower, 0.7224672, 1e-6);
  EXPECT_EQ(ci.upper, 1.0);
  ci = wilson_interval(1, 100);
  EXPECT_NEAR(ci.lower, 0.001767, 1e-6);
  EXPECT_NEAR(ci.upper, 0.0544862, 1e-6);
}

TEST(Wilson, EmptyAndInvalid) {
  const auto ci = wilson_interval(0, 0);
  EXPECT_EQ(ci.lower, 0.0);
  EXPECT_EQ(ci.upper, 1.0);
  EXPECT_THROW(wilson_interval(3, 2), invalid_argument);
}

TEST(Wilson, ContainsTheEstimateAndNarrowsWithTrials) {
  const auto narrow = wilson_interval(1000, 100000), wide = wilson_interval(10, 1000);
  EXPECT_LT(narrow.lower, 0.01);
  EXPECT_GT(narrow.upper, 0.01);
  EXPECT_LT(narrow.upper - narrow.lower, wide.upper - wide.lower);
}

TEST(ClopperPearson, KnownValues) {
  auto ci = clopper_pearson_interval(5, 10);
  EXPECT_NEAR(ci.lower, 0.1870860, 1e-6);
  EXPECT_NEAR(ci.upper, 0.8129140, 1e-6);
  ci = clopper_pearson_interval(0, 10);
  EXPECT_EQ(ci.lower, 0.0);
  EXPECT_NEAR(ci.upper, 0.3084971, 1e-6);
  ci = clopper_pearson_interval(1, 100);
  EXPECT_NEAR(ci.lower, 0.0002531460, 1e-8);
  EXPECT_NEAR(ci.upper, 0.0544593, 1e-6);
}

TEST(GaussianQ, KnownValues) {
  EXPECT_DOUBLE_EQ(gaussian_q(0.0), 0.5);
  EXPECT_NEAR(gaussian_q(1.0), 0.15865525393145707, 1e-15);
  EXPECT_NEAR(gaussian_q(3.0), 0.0013498980316301, 1e-15);
}

}  // namespace
}  // namespace gpufec::sim
