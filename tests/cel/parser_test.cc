// CEL parsing: precedence, macros and syntax errors.
#include <gtest/gtest.h>

#include "cel/evaluator.h"
#include "cel/parser.h"

namespace gangplank::cel {
namespace {

Value run(const std::string& source) { return Evaluate(*Parse(source), Activation{}); }

TEST(CelParser, OperatorPrecedence) {
  EXPECT_TRUE(run("1 + 2 * 3 == 7").as<bool>());
  EXPECT_TRUE(run("(1 + 2) * 3 == 9").as<bool>());
  EXPECT_TRUE(run("10 - 4 - 3 == 3").as<bool>());  // left-associative
  EXPECT_TRUE(run("true || false && false").as<bool>());
  EXPECT_TRUE(run("!false && -(-2) == 2").as<bool>());
  EXPECT_EQ(run("1 < 2 ? 'a' : 'b'").str(), "a");
  EXPECT_EQ(run("false ? 1 : true ? 2 : 3").as<int64_t>(), 2);
  EXPECT_TRUE(run("2 in [1, 2] && 'k' in {'k': 1}").as<bool>());
}

TEST(CelParser, ShapesOfTheTree) {
  auto e = Parse("self.a.b");
  EXPECT_EQ(e->kind, Expr::Kind::kSelect);
  EXPECT_EQ(e->name, "b");
  EXPECT_EQ(e->target->name, "a");
  e = Parse("has(self.a)");
  EXPECT_TRUE(e->test_only);
  e = Parse("self.x.all(i, i > 0)");
  EXPECT_EQ(e->kind, Expr::Kind::kComprehension);
  EXPECT_EQ(e->iter_var, "i");
  e = Parse("self.s.startsWith('a')");
  EXPECT_EQ(e->kind, Expr::Kind::kCall);
  EXPECT_EQ(e->name, "startsWith");
  ASSERT_TRUE(e->target);
  EXPECT_EQ(Parse("-9223372036854775808")->literal.as<int64_t>(), INT64_MIN);  // negative literals fold
}

TEST(CelParser, SyntaxErrorsCarryTheirPosition) {
  try {
    Parse("self.a >");
    FAIL();
  } catch (const SyntaxError& e) {
    EXPECT_EQ(e.pos(), 8u);
    EXPECT_EQ(std::string(e.what()).rfind("Syntax error: mismatched input '<EOF>' expecting", 0), 0u);
  }
  try {
    Parse("(1 + 2");
    FAIL();
  } catch (const SyntaxError& e) {
    EXPECT_STREQ(e.what(), "Syntax error: mismatched input '<EOF>' expecting ')'");
  }
  EXPECT_THROW(Parse("1 2"), SyntaxError);
  EXPECT_THROW(Parse("has(self)"), SyntaxError);
  EXPECT_THROW(Parse("self.l.all(1, true)"), SyntaxError);
  EXPECT_THROW(Parse("self."), SyntaxError);
  EXPECT_THROW(Parse("99999999999999999999"), SyntaxError);
}

}  // namespace
}  // namespace gangplank::cel
