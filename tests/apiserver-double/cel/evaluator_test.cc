// CRD rules on gangplank::cel: values from JSON under a schema, self/oldSelf, functions and macros over them.
#include <gtest/gtest.h>

#include "apiserver-double/cel/schema_values.h"
#include "apiserver-double/cel/self_activation.h"
#include "apiserver-double/schema/schema.h"
#include "cel/parser.h"

namespace gangplank::apiserver_double::cel {
namespace {

using gangplank::cel::Parse;
using nlohmann::json;

const schema::Schema& spec_schema() {
  static const schema::Schema s = schema::Schema::Parse(
      {{"type", "object"},
       {"properties", {{"gpus", {{"type", "integer"}}}, {"weight", {{"type", "number"}}}, {"name", {{"type", "string"}}},
                       {"my-key", {{"type", "string"}}}, {"in", {{"type", "boolean"}}},
                       {"queues", {{"type", "array"}, {"items", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}, {"gpus", {{"type", "integer"}}}}}}}}},
                       {"labels", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}}});
  return s;
}

Value eval(const std::string& source, const json& self = json::object()) {
  return Evaluate(*Parse(source), Activation{from_json(self, &spec_schema()), std::nullopt});
}

bool holds(const std::string& source, const json& self = json::object()) {
  const Value v = eval(source, self);
  EXPECT_TRUE(v.is<bool>()) << source;
  return v.is<bool>() && v.as<bool>();
}

std::string error_of(const std::string& source, const json& self = json::object()) {
  try {
    eval(source, self);
  } catch (const EvalError& e) {
    return e.what();
  }
  return "<no error>";
}

const json kSpec = {{"gpus", 8}, {"weight", 1}, {"name", "Team-A"}, {"my-key", "v"}, {"in", true},
                    {"queues", {{{"name", "a"}, {"gpus", 2}}, {{"name", "b"}, {"gpus", 6}}}},
                    {"labels", {{"zone", "eu"}, {"tier", "gold"}}}, {"undeclared", 1}};

TEST(CelEvaluator, SchemaTypesTheValues) {
  EXPECT_TRUE(eval("self.gpus", kSpec).is<int64_t>());
  EXPECT_TRUE(eval("self.weight", kSpec).is<double>());  // number is double even when written as 1
  EXPECT_TRUE(holds("self.weight == 1 && self.weight + 0.5 == 1.5", kSpec));
  EXPECT_TRUE(holds("!has(self.undeclared)", kSpec));  // unknown fields are invisible
  EXPECT_TRUE(holds("self.my__dash__key == 'v' && self.__in__", kSpec));
  EXPECT_TRUE(holds("self.labels['zone'] == 'eu' && self.labels.tier == 'gold' && 'zone' in self.labels", kSpec));
}

TEST(CelEvaluator, FieldsIndexesAndMissingValues) {
  EXPECT_EQ(eval("self.queues[1].name", kSpec).str(), "b");
  EXPECT_EQ(error_of("self.queues[2]", kSpec), "index '2' out of range in list size '2'");
  EXPECT_EQ(error_of("self.labels['nope']", kSpec), "no such key: nope");
  EXPECT_EQ(error_of("self.gpus", json::object()), "no such key: gpus");
  EXPECT_TRUE(holds("has(self.gpus) && !has(self.weight)", {{"gpus", 1}}));
}

TEST(CelEvaluator, StringFunctions) {
  EXPECT_TRUE(holds("self.name.startsWith('Team') && self.name.endsWith('-A') && self.name.contains('m-')", kSpec));
  EXPECT_TRUE(holds("self.name.lowerAscii() == 'team-a' && self.name.upperAscii() == 'TEAM-A'", kSpec));
  EXPECT_TRUE(holds("self.name.matches('^T[a-z]+-[A-Z]$') && !self.name.matches('^x') && matches(self.name, 'A$')", kSpec));
  EXPECT_TRUE(holds("size(self.name) == 6 && self.name.size() == 6 && size('\\u00fc') == 1", kSpec));
  EXPECT_TRUE(holds("' x '.trim() == 'x' && 'a,b'.split(',') == ['a', 'b'] && ['a', 'b'].join('-') == 'a-b'"));
  EXPECT_EQ(error_of("'x'.matches('(')"), "invalid regular expression: (");
}

TEST(CelEvaluator, Macros) {
  EXPECT_TRUE(holds("self.queues.all(q, q.gpus > 0)", kSpec));
  EXPECT_TRUE(holds("self.queues.exists(q, q.name == 'b') && !self.queues.exists(q, q.name == 'c')", kSpec));
  EXPECT_TRUE(holds("self.queues.exists_one(q, q.gpus > 1) == false", kSpec));
  EXPECT_TRUE(holds("self.queues.map(q, q.gpus) == [2, 6]", kSpec));
  EXPECT_TRUE(holds("self.queues.map(q, q.gpus > 2, q.name) == ['b']", kSpec));
  EXPECT_TRUE(holds("self.queues.filter(q, q.gpus < 5).size() == 1", kSpec));
  EXPECT_TRUE(holds("self.labels.all(k, k.size() == 4)", kSpec));
  EXPECT_TRUE(holds("[1, 2, 3].map(x, x * 2).filter(y, y > 2) == [4, 6]"));
  EXPECT_TRUE(holds("[3, 1].min() == 1 && [3, 1].max() == 3 && [1, 2].isSorted()"));
}

TEST(CelEvaluator, LogicalOperatorsAbsorbErrors) {
  EXPECT_TRUE(holds("!has(self.gpus) || self.gpus > 0", json::object()));
  EXPECT_TRUE(holds("self.gpus > 0 || true", json::object()));   // error on the left, true on the right
  EXPECT_FALSE(holds("self.gpus > 0 && false", json::object()));
  EXPECT_EQ(error_of("self.gpus > 0 && true", json::object()), "no such key: gpus");
  EXPECT_TRUE(holds("[0, 1].exists(x, 1 / x == 1)"));  // one decisive element wins over an error
  EXPECT_EQ(error_of("[0, 1].all(x, 1 / x == 1)"), "division by zero");
}

TEST(CelEvaluator, OldSelfIsBoundOnlyWhenGiven) {
  const auto rule = Parse("self.gpus >= oldSelf.gpus");
  const Activation update{from_json({{"gpus", 4}}, &spec_schema()), from_json({{"gpus", 2}}, &spec_schema())};
  EXPECT_TRUE(Evaluate(*rule, update).as<bool>());
  const Activation create{from_json({{"gpus", 4}}, &spec_schema()), std::nullopt};
  EXPECT_THROW(Evaluate(*rule, create), EvalError);
}

TEST(CelEvaluator, UnescapesPropertyNames) {
  EXPECT_EQ(UnescapeProperty("a__dash__b__dot__c__slash__d"), "a-b.c/d");
  EXPECT_EQ(UnescapeProperty("x__underscores__y"), "x__y");
  EXPECT_EQ(UnescapeProperty("__namespace__"), "namespace");
  EXPECT_EQ(UnescapeProperty("plain"), "plain");
}

}  // namespace
}  // namespace gangplank::apiserver_double::cel
