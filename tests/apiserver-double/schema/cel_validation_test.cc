// Whole-object validation: schema, list types, then CEL rules (blocked by schema errors), transition
// rules, messageExpression, reasons, fieldPath and ratcheting.
#include <gtest/gtest.h>

#include "tests/apiserver-double/schema/gpupool_schema.h"

namespace gangplank::apiserver_double::schema::testing {
namespace {

using nlohmann::json;

const CustomResourceSchema& gpupool() {
  static const auto s = compiled(gpupool_open_api());
  return *s;
}

TEST(CelValidation, GpuPoolLimitRuleIsWordedAsUpstream) {
  const auto out = gpupool().Validate(pool({{"queues", {{{"name", "a"}, {"guaranteedGPUs", 4}, {"limitGPUs", 2}}}}}), nullptr);
  EXPECT_EQ(texts(out.errors),
            std::vector<std::string>{R"(spec.queues[0]: Invalid value: limitGPUs must not be below guaranteedGPUs)"});
  EXPECT_TRUE(gpupool().Validate(pool({{"queues", {{{"name", "a"}, {"guaranteedGPUs", 2}, {"limitGPUs", 2}}}}}), nullptr).errors.empty());
  EXPECT_TRUE(gpupool().Validate(pool({{"queues", {{{"name", "a"}, {"guaranteedGPUs", 2}}}}}), nullptr).errors.empty());
}

TEST(CelValidation, BlockingSchemaErrorsSkipTheRules) {
  const auto out = gpupool().Validate(
      pool({{"spot", {{"reclaimPolicy", "X"}}}, {"queues", {{{"name", "a"}, {"guaranteedGPUs", 4}, {"limitGPUs", 2}}}}}), nullptr);
  EXPECT_EQ(texts(out.errors),
            (std::vector<std::string>{R"(spec.spot.reclaimPolicy: Unsupported value: "X": supported values: "CheckpointThenEvict", "Evict")",
                                      R"(<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation)"}));
  // Without any rule in the schema there is nothing to skip, and no note about it.
  json plain = gpupool_open_api();
  plain["properties"]["spec"]["properties"]["queues"]["items"].erase("x-kubernetes-validations");
  EXPECT_EQ(texts(compiled(plain)->Validate(pool({{"spot", {{"reclaimPolicy", "X"}}}}), nullptr).errors),
            std::vector<std::string>{R"(spec.spot.reclaimPolicy: Unsupported value: "X": supported values: "CheckpointThenEvict", "Evict")"});
  // A plain Invalid (minimum) does not block them.
  const auto both = gpupool().Validate(
      pool({{"queues", {{{"name", "a"}, {"weight", -1}, {"guaranteedGPUs", 4}, {"limitGPUs", 2}}}}}), nullptr);
  EXPECT_EQ(both.errors.size(), 2u);
}

TEST(CelValidation, MetadataNameMustBeASubdomain) {
  json p = pool(json::object());
  p["metadata"]["name"] = "Bad_Name";
  const auto out = gpupool().Validate(p, nullptr);
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0].field, "metadata.name");
  EXPECT_NE(out.errors[0].detail.find("a lowercase RFC 1123 subdomain"), std::string::npos);
}

json rules_schema(const json& rules, const json& extra = json::object()) {
  json spec = {{"type", "object"}, {"x-kubernetes-validations", rules},
               {"properties", {{"min", {{"type", "integer"}}}, {"max", {{"type", "integer"}}}, {"mode", {{"type", "string"}}},
                               {"tags", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                               {"my-field", {{"type", "string"}}}}}};
  spec.update(extra);
  return {{"type", "object"}, {"properties", {{"spec", spec}}}};
}

json object(const json& spec) { return {{"apiVersion", "x.io/v1"}, {"kind", "X"}, {"metadata", {{"name", "o"}}}, {"spec", spec}}; }

TEST(CelValidation, MessagesReasonsAndFieldPaths) {
  const auto s = compiled(rules_schema({
      {{"rule", "self.min <= self.max"}},
      {{"rule", "self.mode != 'off'"}, {"message", "  mode may not be off  "}, {"reason", "FieldValueForbidden"}, {"fieldPath", ".mode"}},
      {{"rule", "self.tags.all(t, t.startsWith('x-'))"}, {"messageExpression", "'bad tags: ' + self.tags.filter(t, !t.startsWith('x-')).join(',')"}},
      {{"rule", "!has(self.min) || self.min >= 0"}, {"reason", "FieldValueRequired"}, {"message", "min is needed"}},
  }));
  const auto out = s->Validate(object({{"min", -5}, {"max", -9}, {"mode", "off"}, {"tags", {"x-a", "b", "c"}}}), nullptr);
  EXPECT_EQ(texts(out.errors), (std::vector<std::string>{
                                   R"(spec: Invalid value: failed rule: self.min <= self.max)",
                                   "spec.mode: Forbidden: mode may not be off",
                                   R"(spec: Invalid value: bad tags: b,c)",
                                   "spec: Required value: min is needed"}));
  EXPECT_EQ(out.errors[1].reason(), "FieldValueForbidden");
}

TEST(CelValidation, EvaluationErrorsAreValidationFailures) {
  const auto s = compiled(rules_schema({{{"rule", "self.min / self.max > 0"}}, {{"rule", "self.tags[3] == 'x'"}}}));
  const auto out = s->Validate(object({{"min", 1}, {"max", 0}, {"tags", {"a"}}}), nullptr);
  EXPECT_EQ(texts(out.errors), (std::vector<std::string>{
                                   R"(spec: Invalid value: "object": division by zero evaluating rule: self.min / self.max > 0)",
                                   R"(spec: Invalid value: "object": index '3' out of range in list size '1' evaluating rule: self.tags[3] == 'x')"}));
  const auto missing = s->Validate(object({{"max", 1}, {"tags", {"a", "b", "c", "x"}}}), nullptr);
  EXPECT_EQ(texts(missing.errors), std::vector<std::string>{R"(spec: Invalid value: "object": no such key: min evaluating rule: self.min / self.max > 0)"});
}

TEST(CelValidation, TransitionRulesRunOnlyOnUpdate) {
  const auto s = compiled(rules_schema({{{"rule", "self.mode == oldSelf.mode"}, {"message", "mode is immutable"}}}));
  EXPECT_TRUE(s->Validate(object({{"mode", "a"}}), nullptr).errors.empty());
  const json old = object({{"mode", "a"}});
  EXPECT_TRUE(s->Validate(object({{"mode", "a"}, {"min", 1}}), &old).errors.empty());
  EXPECT_EQ(texts(s->Validate(object({{"mode", "b"}}), &old).errors),
            std::vector<std::string>{R"(spec: Invalid value: mode is immutable)"});
}

TEST(CelValidation, RatchetedRuleFailuresAreWarnings) {
  const auto s = compiled(rules_schema({{{"rule", "self.min <= self.max"}}}));
  const json old = object({{"min", 5}, {"max", 1}});
  json next = old;
  next["metadata"]["labels"] = {{"a", "b"}};
  const auto out = s->Validate(next, &old);
  EXPECT_TRUE(out.errors.empty());
  EXPECT_EQ(out.warnings, std::vector<std::string>{R"(spec: Invalid value: failed rule: self.min <= self.max)"});
  next["spec"]["min"] = 6;
  EXPECT_EQ(s->Validate(next, &old).errors.size(), 1u);
}

TEST(CelValidation, EscapedPropertyNamesAndRootRules) {
  const auto s = compiled(rules_schema({{{"rule", "self.my__dash__field.size() < 3"}}}));
  EXPECT_EQ(s->Validate(object({{"my-field", "long"}}), nullptr).errors.size(), 1u);
  EXPECT_TRUE(s->Validate(object({{"my-field", "ok"}}), nullptr).errors.empty());

  json root = rules_schema(json::array());
  root["x-kubernetes-validations"] = {{{"rule", "self.metadata.name.startsWith('pool-')"}, {"message", "name must start with pool-"}}};
  const auto r = compiled(root);
  EXPECT_EQ(texts(r->Validate(object(json::object()), nullptr).errors),
            std::vector<std::string>{R"(<nil>: Invalid value: name must start with pool-)"});
}

}  // namespace
}  // namespace gangplank::apiserver_double::schema::testing
