#include "cache/objects/quantity.h"

#include <gtest/gtest.h>

#include <limits>

#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

TEST(Quantity, MilliValuesOfTheFormsKubernetesWrites) {
  EXPECT_EQ(ParseQuantityMilli("95690m"), 95690);
  EXPECT_EQ(ParseQuantityMilli("2"), 2000);
  EXPECT_EQ(ParseQuantityMilli("0.5"), 500);
  EXPECT_EQ(ParseQuantityMilli("1e3"), 1'000'000);
  EXPECT_EQ(ParseQuantityMilli("1.5k"), 1'500'000);
  EXPECT_EQ(ParseQuantityMilli("0"), 0);
  EXPECT_EQ(ParseQuantityMilli("+3"), 3000);
  EXPECT_EQ(ParseQuantityMilli(".5"), 500);
  EXPECT_EQ(ParseQuantityMilli("250u"), 1);  // Rounded up, as MilliValue does.
  EXPECT_EQ(ParseQuantityMilli("1E-3"), 1);
}

TEST(Quantity, ValuesWithBinaryAndDecimalSuffixes) {
  EXPECT_EQ(ParseQuantityValue("128Gi"), 137438953472LL);
  EXPECT_EQ(ParseQuantityValue("1056375928Ki"), 1056375928LL * 1024);
  EXPECT_EQ(ParseQuantityValue("500M"), 500'000'000);
  EXPECT_EQ(ParseQuantityValue("1.5Gi"), 1610612736);
  EXPECT_EQ(ParseQuantityValue("100m"), 1);  // Value() rounds up.
  EXPECT_EQ(ParseQuantityValue("8"), 8);
  EXPECT_EQ(ParseQuantityValue("2E"), 2'000'000'000'000'000'000);
  EXPECT_EQ(ParseQuantityValue("1073741824000m"), 1073741824);
}

TEST(Quantity, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(ParseQuantityValue("16Ei"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(ParseQuantityMilli("1e999"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(ParseQuantityMilli("123456789012345678901234567890123456789"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(ParseQuantityMilli("-2"), -2000);
}

TEST(Quantity, MalformedTextNamesTheProblem) {
  for (const char* bad : {"", "abc", "1Zi", "1..2", "1e", "1e+", "1e1234", "m", "1 ", "--1", "1ki", "1.5.5"}) {
    try {
      ParseQuantityMilli(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find("invalid quantity \"" + std::string(bad) + "\""), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace gangplank::cache
