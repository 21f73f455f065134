// Compiled programs: compile once and evaluate many times, values built from C++, the length guard,
// the nesting limits, the step cap, and the checks made at compile time.
#include <gtest/gtest.h>

#include <thread>

#include "cel/json_value.h"
#include "cel/program.h"

namespace gangplank::cel {
namespace {

std::string CompileErrorOf(const std::string& source, const CompileOptions& options = {}) {
  try {
    Program::Compile(source, options);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "<compiled>";
}

TEST(CelProgram, CompiledOnceEvaluatedManyTimes) {
  const Program program = Program::Compile("node.gpus >= want && node.zone in zones", {{"node", "want", "zones"}});
  const Program copy = program;  // shares the tree
  EXPECT_EQ(&copy.expr(), &program.expr());
  Activation a;
  a.Bind("zones", List{"eu-1", "eu-2"}).Bind("want", 4);
  for (int gpus = 0; gpus < 8; ++gpus) {
    a.Bind("node", Map{{"gpus", gpus}, {"zone", "eu-2"}});
    EXPECT_EQ(copy.EvaluateBool(a), gpus >= 4) << gpus;
  }
  std::vector<std::thread> threads;
  std::vector<int> matched(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Activation mine;
      mine.Bind("zones", List{"eu-1"}).Bind("want", t).Bind("node", Map{{"gpus", 2}, {"zone", "eu-1"}});
      for (int i = 0; i < 100; ++i) matched[static_cast<std::size_t>(t)] += program.EvaluateBool(mine);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(matched, (std::vector<int>{100, 100, 100, 0}));
}

TEST(CelProgram, ValuesFromCxx) {
  Map m{{"a", 1}, {"b", "x"}};
  m.Set("a", 2).Set(Value(int64_t{7}), true);
  EXPECT_EQ(m.entries.size(), 3u);
  Activation a("m", m);
  EXPECT_TRUE(Program::Compile("m.a == 2 && m[7] && m.b == 'x' && size(m) == 3").EvaluateBool(a));
  Map with_default{{"known", 1}};
  with_default.absent = Map{};
  a.Bind("d", with_default);
  EXPECT_TRUE(Program::Compile("size(d.unknown) == 0 && has(d.unknown) && !('unknown' in d) && d.known == 1").EvaluateBool(a));
  a.Bind("j", FromJson(nlohmann::json::parse(R"({"n": 1, "big": 18446744073709551615, "f": 0.5, "l": [true, null]})")));
  EXPECT_TRUE(Program::Compile("j.n == 1 && j.big == 18446744073709551615u && j.f == 0.5 && j.l[0] && j.l[1] == null").EvaluateBool(a));
}

TEST(CelProgram, TheLengthGuard) {
  std::string longest = "true";
  while (longest.size() + 8 <= kMaxExpressionBytes) longest += " && true";
  longest += std::string(kMaxExpressionBytes - longest.size(), ' ');
  ASSERT_EQ(longest.size(), kMaxExpressionBytes);
  EXPECT_EQ(CompileErrorOf(longest), "<compiled>");
  EXPECT_EQ(CompileErrorOf(longest + " "), "expression too long: 10241 bytes, more than the limit of 10240");
}

TEST(CelProgram, NestingLimits) {
  EXPECT_NE(CompileErrorOf(std::string(300, '(') + "1" + std::string(300, ')')).find("expression recursion limit exceeded: 250"), std::string::npos);
  EXPECT_NE(CompileErrorOf(std::string(300, '!') + "true").find("expression recursion limit exceeded: 250"), std::string::npos);
  std::string chain = "1";
  for (int i = 0; i < 1200; ++i) chain += "+1";
  EXPECT_NE(CompileErrorOf(chain).find("expression recursion limit exceeded: 1000"), std::string::npos);
  std::string shorter = "1";
  for (int i = 0; i < 900; ++i) shorter += "+1";
  EXPECT_EQ(Program::Compile(shorter).Evaluate(Activation{}).as<int64_t>(), 901);
}

TEST(CelProgram, TheStepCap) {
  CompileOptions options;
  options.max_steps = 100;
  const Program loop = Program::Compile("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, x * y > 0))", options);
  try {
    loop.Evaluate(Activation{});
    FAIL() << "no error";
  } catch (const EvalError& e) {
    EXPECT_STREQ(e.what(), "operation cancelled: actual cost limit exceeded");
  }
  // The cap is not absorbed by || like other errors are.
  const Program absorbed = Program::Compile("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, x > 0)) || true", options);
  EXPECT_THROW(absorbed.Evaluate(Activation{}), EvalError);
  // Strings that double at every binding cost what they weigh.
  std::string doubling = "s0";
  for (int i = 1; i <= 30; ++i) doubling = "cel.bind(s" + std::to_string(i - 1) + ", s" + std::to_string(i) + " + s" + std::to_string(i) + ", " + doubling + ")";
  doubling = "cel.bind(s30, 'abcdefghij', " + doubling + ").size() > 0";
  EXPECT_THROW(Program::Compile(doubling).Evaluate(Activation{}), EvalError);
  EXPECT_TRUE(Program::Compile("[1, 2, 3].all(x, x > 0)", options).EvaluateBool(Activation{}));
}

TEST(CelProgram, CompileTimeChecks) {
  EXPECT_EQ(CompileErrorOf("x + 1", {{"y"}}),
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x + 1\n | ^");
  EXPECT_EQ(CompileErrorOf("[1].all(x, x > 0) && cel.bind(z, 2, z > 1)", {{"y"}}), "<compiled>");  // comprehension and bound names
  EXPECT_NE(CompileErrorOf("size(y) + nope(y)", {{"y"}}).find("undeclared reference to 'nope'"), std::string::npos);
  EXPECT_NE(CompileErrorOf("y.frobnicate()", {{"y"}}).find("undeclared reference to 'frobnicate'"), std::string::npos);
  EXPECT_NE(CompileErrorOf("y.matches('(')", {{"y"}}).find("invalid regular expression: ("), std::string::npos);
  EXPECT_EQ(CompileErrorOf("1 +"), "compilation failed: ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting "
                                   "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 +\n | ...^");
  EXPECT_NE(CompileErrorOf("cel.bind(1, 2, 3)").find("cel.bind() variable names must be simple identifiers"), std::string::npos);
  // A variable left unbound at run time, when the names are not declared.
  EXPECT_THROW(Program::Compile("ghost == 1").Evaluate(Activation{}), EvalError);
}

}  // namespace
}  // namespace gangplank::cel
