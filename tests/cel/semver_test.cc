// Semantic versions: blang/semver's parsing and ordering, Kubernetes' normalizing parse, the CEL library.
#include <gtest/gtest.h>

#include "cel/semver.h"
#include "tests/cel/expression_helpers.h"

namespace gangplank::cel {
namespace {

std::string ParseError(const std::string& v, bool normalize = false) {
  std::string error;
  EXPECT_FALSE(Semver::TryParse(v, normalize, &error).has_value()) << v;
  return error;
}

int Order(const std::string& a, const std::string& b) { return Semver::Parse(a).Compare(Semver::Parse(b)); }

using test_support::error_of;
using test_support::eval;

TEST(Semver, ParsesStrictly) {
  const Semver v = Semver::Parse("12.4.0-rc.1+build.5");
  EXPECT_EQ(v.major(), 12u);
  EXPECT_EQ(v.minor(), 4u);
  EXPECT_EQ(v.patch(), 0u);
  EXPECT_EQ(v.ToString(), "12.4.0-rc.1+build.5");
  EXPECT_EQ(ParseError(""), "Version string empty");
  EXPECT_EQ(ParseError("1.2"), "No Major.Minor.Patch elements found");
  EXPECT_EQ(ParseError("v1.2.3"), "Invalid character(s) found in major number \"v1\"");
  EXPECT_EQ(ParseError("01.2.3"), "Major number must not contain leading zeroes \"01\"");
  EXPECT_EQ(ParseError("1.2.x"), "Invalid character(s) found in patch number \"x\"");
  EXPECT_EQ(ParseError("1..3"), "strconv.ParseUint: parsing \"\": invalid syntax");
  EXPECT_EQ(ParseError("1.2.3-01"), "Numeric PreRelease version must not contain leading zeroes \"01\"");
  EXPECT_EQ(ParseError("1.2.3+"), "Build meta data is empty");
}

TEST(Semver, NormalizingParse) {
  EXPECT_EQ(Semver::Parse("v1", true).ToString(), "1.0.0");
  EXPECT_EQ(Semver::Parse("v1.02", true).ToString(), "1.2.0");
  EXPECT_EQ(Semver::Parse("1.2.03", true).ToString(), "1.2.3");
  EXPECT_EQ(ParseError("1.2-rc", true), "short version cannot contain PreRelease/Build meta data");
}

TEST(Semver, OrdersAsSemverSays) {
  EXPECT_EQ(Order("1.0.0", "2.0.0"), -1);
  EXPECT_EQ(Order("1.10.0", "1.9.0"), 1);
  EXPECT_EQ(Order("1.0.0-alpha", "1.0.0"), -1);
  EXPECT_EQ(Order("1.0.0-alpha.1", "1.0.0-alpha.beta"), -1);  // numbers rank below text
  EXPECT_EQ(Order("1.0.0-beta.11", "1.0.0-beta.2"), 1);
  EXPECT_EQ(Order("1.0.0-rc.1", "1.0.0-rc.1.1"), -1);
  EXPECT_EQ(Order("1.0.0+a", "1.0.0+b"), 0);  // build metadata does not count
}

TEST(Semver, TheCelLibrary) {
  EXPECT_TRUE(eval("semver('1.2.3').isGreaterThan(semver('1.2.2'))").as<bool>());
  EXPECT_TRUE(eval("semver('1.2.3').isLessThan(semver('1.10.0'))").as<bool>());
  EXPECT_EQ(eval("semver('2.0.0').compareTo(semver('2.0.0+x'))").as<int64_t>(), 0);
  EXPECT_TRUE(eval("semver('1.2.3') == semver('1.2.3') && semver('1.2.3') != semver('1.2.4')").as<bool>());
  EXPECT_EQ(eval("semver('7.8.9').major() * 100 + semver('7.8.9').minor() * 10 + semver('7.8.9').patch()").as<int64_t>(), 789);
  EXPECT_TRUE(eval("semver('v8.0', true) == semver('8.0.0') && isSemver('1.0.0') && !isSemver('v1.0.0') && isSemver('v1', true)").as<bool>());
  EXPECT_EQ(error_of("semver('1.0')"), "No Major.Minor.Patch elements found");
  EXPECT_EQ(error_of("semver('1.0.0') < semver('2.0.0')"), "no such overload");
  EXPECT_EQ(error_of("semver('1.0.0') == '1.0.0'"), "no such overload");
  EXPECT_EQ(error_of("semver('1.0.0').isGreaterThan(quantity('1'))"), "no such overload");
  EXPECT_EQ(error_of("semver(1)"), "no such overload");
}

}  // namespace
}  // namespace gangplank::cel
