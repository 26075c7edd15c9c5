// Error messages quote numbers the way the user typed them, and still exactly.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gpufec/common/error.hpp"

namespace gpufec {
namespace {

TEST(ErrorMessages, NumbersInTheirShortestExactForm) {
  EXPECT_EQ(cat("p = ", 0.6, ", sum ", 0.6 + 0.6), "p = 0.6, sum 1.2");
  EXPECT_EQ(cat(0.1 + 0.2), "0.30000000000000004");  // not 0.3: the digits read back exactly
  EXPECT_EQ(cat(1e-10, " ", 2.5f, " ", 42, " ", 7u), "1e-10 2.5 42 7");
  const double third = 1.0 / 3.0;
  EXPECT_EQ(std::strtod(cat(third).c_str(), nullptr), third);
}

TEST(ErrorMessages, RequireThrowsTheNamedTypeWithTheMessage) {
  try {
    require<invalid_argument>(false, "--n ", 40, " is above ", 32);
    FAIL() << "require did not throw";
  } catch (const invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--n 40 is above 32");
  }
  EXPECT_NO_THROW(require(true, "never"));
}

}  // namespace
}  // namespace gpufec
