// Kubernetes quantities: apimachinery's parsing (suffixes, rounding to 1n, the binary cap), exact
// comparison and arithmetic, and the CEL quantity library on top.
#include <gtest/gtest.h>

#include "cel/quantity.h"
#include "tests/cel/expression_helpers.h"

namespace gangplank::cel {
namespace {

std::string Text(const std::string& q) { return Quantity::Parse(q).ToString(); }

std::string ParseError(const std::string& q) {
  std::string error;
  EXPECT_FALSE(Quantity::TryParse(q, &error).has_value()) << q;
  return error;
}

using test_support::error_of;
using test_support::eval;

TEST(Quantity, ParsesEverySuffixForm) {
  EXPECT_EQ(Text("40Gi"), "42949672960");
  EXPECT_EQ(Text("1.5Gi"), "1610612736");
  EXPECT_EQ(Text("0.5Ki"), "512");
  EXPECT_EQ(Text("100m"), "0.1");
  EXPECT_EQ(Text("2k"), "2000");
  EXPECT_EQ(Text("3M"), "3000000");
  EXPECT_EQ(Text("1E"), "1000000000000000000");
  EXPECT_EQ(Text("12e3"), "12000");
  EXPECT_EQ(Text("1.5E-2"), "0.015");
  EXPECT_EQ(Text("-7u"), "-0.000007");
  EXPECT_EQ(Text("+004"), "4");
  EXPECT_EQ(Text("0"), "0");
  EXPECT_EQ(Text("-0.0"), "0");
  EXPECT_EQ(Text(".5"), "0.5");
}

TEST(Quantity, RoundsBelowANanoUpAndCapsBinaryValues) {
  EXPECT_EQ(Text("0.5n"), "0.000000001");
  EXPECT_EQ(Text("1.1n"), "0.000000002");
  EXPECT_EQ(Text("-1e-20"), "-0.000000001");  // away from zero
  EXPECT_EQ(Text("16Ei"), "9223372036854775807");
  EXPECT_EQ(Text("1e29"), "100000000000000000000000000000");  // decimal values are not capped
  EXPECT_EQ(Text("1e40"), "1e40");
}

TEST(Quantity, RefusesWhatApimachineryRefuses) {
  const std::string format = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  EXPECT_EQ(ParseError(""), format);
  EXPECT_EQ(ParseError("1.2.3"), format);
  EXPECT_EQ(ParseError("abc"), format);
  EXPECT_EQ(ParseError("1 Gi"), format);
  EXPECT_EQ(ParseError("1Ki3"), "unable to parse quantity's suffix");
  EXPECT_EQ(ParseError("1K"), "unable to parse quantity's suffix");
  EXPECT_EQ(ParseError("1e"), "unable to parse quantity's suffix");
}

TEST(Quantity, ComparesAndAddsExactly) {
  EXPECT_EQ(Quantity::Parse("1Ki").Compare(Quantity::Parse("1024")), 0);
  EXPECT_EQ(Quantity::Parse("1G").Compare(Quantity::Parse("1Gi")), -1);
  EXPECT_EQ(Quantity::Parse("-1").Compare(Quantity::Parse("-2")), 1);
  EXPECT_EQ(Quantity::Parse("1e3").Compare(Quantity::Parse("1k")), 0);
  EXPECT_EQ(Quantity::Parse("1e30").Compare(Quantity::Parse("999999999999999999999999999999")), 1);
  EXPECT_EQ(Quantity::Parse("100m").Add(Quantity::Parse("0.9")).ToString(), "1");
  EXPECT_EQ(Quantity::Parse("1").Sub(Quantity::Parse("2.5")).ToString(), "-1.5");
  EXPECT_EQ(Quantity::Parse("9223372036854775807").Add(Quantity(1)).ToString(), "9223372036854775808");
  EXPECT_EQ(Quantity::Parse("50k").AsInt64(), 50000);
  EXPECT_EQ(Quantity::Parse("50000000G").AsInt64(), 50000000000000000);
  EXPECT_FALSE(Quantity::Parse("9999999999999999999999999999999999999G").AsInt64().has_value());
  EXPECT_FALSE(Quantity::Parse("1500m").AsInt64().has_value());
  EXPECT_DOUBLE_EQ(Quantity::Parse("1500m").AsApproximateDouble(), 1.5);
}

TEST(Quantity, TheCelLibrary) {
  EXPECT_TRUE(eval("quantity('40Gi').isGreaterThan(quantity('40G'))").as<bool>());
  EXPECT_TRUE(eval("quantity('1').isLessThan(quantity('1001m'))").as<bool>());
  EXPECT_EQ(eval("quantity('2Gi').compareTo(quantity('2048Mi'))").as<int64_t>(), 0);
  EXPECT_TRUE(eval("quantity('1k') == quantity('1000') && quantity('1k') != quantity('1001')").as<bool>());
  EXPECT_EQ(eval("quantity('50k').asInteger()").as<int64_t>(), 50000);
  EXPECT_TRUE(eval("quantity('50k').isInteger() && !quantity('1m').isInteger()").as<bool>());
  EXPECT_DOUBLE_EQ(eval("quantity('1.5').asApproximateFloat()").as<double>(), 1.5);
  EXPECT_EQ(eval("quantity('-3').sign()").as<int64_t>(), -1);
  EXPECT_EQ(eval("sign(quantity('0'))").as<int64_t>(), 0);
  EXPECT_TRUE(eval("quantity('1Gi').add(quantity('1Gi')) == quantity('2Gi')").as<bool>());
  EXPECT_TRUE(eval("quantity('1k').add(24).sub(quantity('1Ki')) == quantity('0')").as<bool>());
  EXPECT_TRUE(eval("quantity('10').sub(3).asInteger() == 7").as<bool>());
  EXPECT_TRUE(eval("isQuantity('1Mi') && !isQuantity('1MB')").as<bool>());
  EXPECT_EQ(error_of("quantity('9999999999999999999999999999999999999G').asInteger()"), "cannot convert value to integer");
  EXPECT_EQ(error_of("quantity('1K')"), "unable to parse quantity's suffix");
  EXPECT_EQ(error_of("quantity('1MB')").rfind("quantities must match the regular expression", 0), 0u);
  EXPECT_EQ(error_of("quantity('1') < quantity('2')"), "no such overload");
  EXPECT_EQ(error_of("quantity('1').isGreaterThan(1)"), "no such overload");
  EXPECT_EQ(error_of("quantity('1') == 1"), "no such overload");
  EXPECT_FALSE(eval("1 == quantity('1')").as<bool>());  // the left operand decides, as in cel-go
  EXPECT_EQ(eval("quantity('1')").TypeName(), "kubernetes.Quantity");
}

}  // namespace
}  // namespace gangplank::cel
