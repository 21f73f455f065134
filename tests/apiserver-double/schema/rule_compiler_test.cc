// Rules are compiled with the CRD: failures name the rule's place in the CRD and print it as Go does.
#include <gtest/gtest.h>

#include "apiserver-double/schema/rule_compiler.h"
#include "tests/apiserver-double/schema/gpupool_schema.h"

namespace gangplank::apiserver_double::schema::testing {
namespace {

using nlohmann::json;

FieldErrors compile_errors(const json& open_api) {
  Schema s = Schema::Parse(open_api);
  FieldErrors errors;
  CompileRules(s, "spec.versions[0].schema.openAPIV3Schema", errors);
  return errors;
}

json with_rule(const json& rule) {
  return {{"type", "object"},
          {"properties", {{"spec", {{"type", "object"}, {"x-kubernetes-validations", {rule}},
                                    {"properties", {{"min", {{"type", "integer"}}}, {"max", {{"type", "integer"}}}}}}}}}};
}

TEST(RuleCompiler, TheProjectCrdCompiles) { EXPECT_TRUE(compile_errors(gpupool_open_api()).empty()); }

TEST(RuleCompiler, SyntaxErrorNamesTheRuleAndPointsAtTheToken) {
  const auto errors = compile_errors(with_rule({{"rule", "self.min <="}}));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule");
  EXPECT_EQ(errors[0].body(),
            "Invalid value: apiextensions.ValidationRule{Rule:\"self.min <=\", Message:\"\", MessageExpression:\"\", "
            "Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: "
            "compilation failed: ERROR: <input>:1:12: Syntax error: mismatched input '<EOF>' expecting "
            "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
            " | self.min <=\n | ...........^");
}

TEST(RuleCompiler, UndeclaredNamesAndUndefinedFields) {
  auto errors = compile_errors(with_rule({{"rule", "self.mni <= self.max"}}));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].detail.find("ERROR: <input>:1:5: undefined field 'mni'\n | self.mni <= self.max\n | ....^"), std::string::npos)
      << errors[0].detail;
  errors = compile_errors(with_rule({{"rule", "other.min > 0 && self.min.frobnicate()"}}));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].detail.find("undeclared reference to 'other' (in container '')"), std::string::npos) << errors[0].detail;
  EXPECT_NE(errors[0].detail.find("undeclared reference to 'frobnicate' (in container '')"), std::string::npos) << errors[0].detail;
}

TEST(RuleCompiler, MessageExpressionAndFieldPathAreCheckedToo) {
  auto errors = compile_errors(with_rule({{"rule", "self.min <= self.max"}, {"messageExpression", "'min ' + "}}));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression");
  errors = compile_errors(with_rule({{"rule", "self.min <= self.max"}, {"fieldPath", ".nope"}}));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(),
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath: "
            "Invalid value: \".nope\": fieldPath must be a valid path: does not refer to a valid field");
  EXPECT_TRUE(compile_errors(with_rule({{"rule", "self.min <= self.max"}, {"fieldPath", ".max"}})).empty());
}

TEST(RuleCompiler, ItemRulesAreFoundUnderItems) {
  json s = gpupool_open_api();
  s["properties"]["spec"]["properties"]["queues"]["items"]["x-kubernetes-validations"][0]["rule"] = "self.limit >= 0";
  const auto errors = compile_errors(s);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field,
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[queues].items.x-kubernetes-validations[0].rule");
}

}  // namespace
}  // namespace gangplank::apiserver_double::schema::testing
