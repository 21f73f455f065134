// CEL evaluation: operators, conversions, error values.
#include <gtest/gtest.h>

#include "tests/cel/expression_helpers.h"

namespace gangplank::cel {
namespace {

using test_support::error_of;
using test_support::eval;
using test_support::holds;

TEST(CelEvaluator, ArithmeticAndComparisons) {
  EXPECT_EQ(eval("7 / 2").as<int64_t>(), 3);
  EXPECT_EQ(eval("-7 % 3").as<int64_t>(), -1);
  EXPECT_EQ(eval("3u * 2u").as<uint64_t>(), 6u);
  EXPECT_DOUBLE_EQ(eval("1.0 / 4.0").as<double>(), 0.25);
  EXPECT_TRUE(holds("1 < 1.5 && 2u > 1 && 'a' < 'b' && false < true"));
  EXPECT_TRUE(holds("[1, 2] + [3] == [1, 2, 3] && 'ab' + 'c' == 'abc'"));
  EXPECT_TRUE(holds("{'a': 1} == {'a': 1.0} && [1] != [2]"));
  EXPECT_EQ(error_of("9223372036854775807 + 1"), "integer overflow");
  EXPECT_EQ(error_of("1 / 0"), "division by zero");
  EXPECT_EQ(error_of("1 % 0"), "modulus by zero");
  EXPECT_EQ(error_of("0u - 1u"), "unsigned integer overflow");
  EXPECT_EQ(error_of("1 + 1.0"), "no such overload");
  EXPECT_EQ(error_of("'a' < 1"), "no such overload");
}

TEST(CelEvaluator, Conversions) {
  EXPECT_EQ(eval("int('42')").as<int64_t>(), 42);
  EXPECT_EQ(eval("int(2.9)").as<int64_t>(), 2);
  EXPECT_DOUBLE_EQ(eval("double(3)").as<double>(), 3.0);
  EXPECT_EQ(eval("string(12) + string(1.5) + string(true)").str(), "121.5true");
  EXPECT_EQ(eval("uint(5)").as<uint64_t>(), 5u);
  EXPECT_EQ(error_of("int('x')"), "cannot convert 'x' to int");
  EXPECT_EQ(error_of("uint(-1)"), "unsigned integer overflow");
}

}  // namespace
}  // namespace gangplank::cel
