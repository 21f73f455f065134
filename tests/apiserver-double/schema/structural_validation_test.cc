// OpenAPI schema validation with kube-apiserver's wording, on the project's GPUPool CRD and on small
// schemas for the keywords GPUPool does not use.
#include <gtest/gtest.h>

#include "apiserver-double/schema/structural_validation.h"
#include "tests/apiserver-double/schema/gpupool_schema.h"

namespace gangplank::apiserver_double::schema::testing {
namespace {

using nlohmann::json;

FieldErrors check(const json& object, const json* old = nullptr) {
  static const auto s = compiled(gpupool_open_api());
  return ValidateStructure(s->root(), object, old);
}

FieldErrors check_schema(const json& open_api, const json& value) {
  return ValidateStructure(Schema::Parse(open_api), value, nullptr);
}

TEST(StructuralValidation, ValidPoolHasNoErrors) {
  EXPECT_TRUE(check(pool({{"queues", {{{"name", "a"}, {"weight", 2}, {"guaranteedGPUs", 1}}}}})).empty());
}

TEST(StructuralValidation, MinimumIsWordedAsKubeOpenAPI) {
  const auto errors = check(pool({{"queues", {{{"name", "a"}, {"weight", -1}}}}}));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(),
            "spec.queues[0].weight: Invalid value: -1: spec.queues[0].weight in body should be greater than or equal to 0");
  EXPECT_EQ(errors[0].reason(), "FieldValueInvalid");
  // A float keeps its float spelling.
  EXPECT_EQ(check(pool({{"queues", {{{"name", "a"}, {"weight", -0.5}}}}}))[0].body(),
            "Invalid value: -0.5: spec.queues[0].weight in body should be greater than or equal to 0");
}

TEST(StructuralValidation, EnumIsNotSupported) {
  const auto errors = check(pool({{"spot", {{"reclaimPolicy", "X"}}}}));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(), R"(spec.spot.reclaimPolicy: Unsupported value: "X": supported values: "CheckpointThenEvict", "Evict")");
  EXPECT_EQ(errors[0].reason(), "FieldValueNotSupported");
}

TEST(StructuralValidation, RequiredFieldsAtRootAndInListItems) {
  json no_spec = pool(json::object());
  no_spec.erase("spec");
  EXPECT_EQ(texts(check(no_spec)), std::vector<std::string>{"spec: Required value"});
  EXPECT_EQ(texts(check(pool({{"queues", {{{"weight", 1}}}}}))), std::vector<std::string>{"spec.queues[0].name: Required value"});
}

TEST(StructuralValidation, TypesAsKubeOpenAPIInfersThem) {
  EXPECT_EQ(texts(check(pool({{"queues", {{{"name", "a"}, {"weight", "heavy"}}}}}))),
            std::vector<std::string>{R"(spec.queues[0].weight: Invalid value: "string": spec.queues[0].weight in body must be of type number: "string")"});
  EXPECT_EQ(check(pool({{"queues", {{{"name", "a"}, {"weight", "heavy"}}}}}))[0].reason(), "FieldValueTypeInvalid");
  // number accepts integers; integer accepts an integral float but not 1.5 (format int32 is dropped by
  // apiextensions 1.35, so the type is what it is checked against).
  EXPECT_TRUE(check(pool({{"queues", {{{"name", "a"}, {"weight", 1}, {"guaranteedGPUs", 2.0}}}}})).empty());
  EXPECT_EQ(texts(check(pool({{"queues", {{{"name", "a"}, {"guaranteedGPUs", 1.5}}}}}))),
            std::vector<std::string>{R"(spec.queues[0].guaranteedGPUs: Invalid value: "number": spec.queues[0].guaranteedGPUs in body must be of type integer: "number")"});
  EXPECT_EQ(texts(check(pool({{"spot", {{"avoidSpotOnRequeue", "yes"}}}}))),
            std::vector<std::string>{R"(spec.spot.avoidSpotOnRequeue: Invalid value: "string": spec.spot.avoidSpotOnRequeue in body must be of type boolean: "string")"});
  EXPECT_EQ(texts(check(pool({{"queues", "a"}}))),
            std::vector<std::string>{R"(spec.queues: Invalid value: "string": spec.queues in body must be of type array: "string")"});
}

TEST(StructuralValidation, LengthsAndItemCounts) {
  EXPECT_EQ(texts(check(pool({{"queues", {{{"name", std::string(64, 'q')}}}}}))),
            std::vector<std::string>{"spec.queues[0].name: Too long: may not be more than 63 bytes"});
  EXPECT_EQ(texts(check(pool({{"topologyLevels", json::array({"a", "b", "c", "d", "e", "f", "g", "h", "i"})}}))),
            std::vector<std::string>{"spec.topologyLevels: Too many: 9: must have at most 8 items"});
  EXPECT_EQ(texts(check(pool({{"topologyLevels", {""}}}))),
            std::vector<std::string>{R"(spec.topologyLevels[0]: Invalid value: "": spec.topologyLevels[0] in body should be at least 1 chars long)"});
  // Lengths count characters, not bytes.
  EXPECT_TRUE(check(pool({{"queues", {{{"name", std::string(30, 'q') + "\xc3\xbc"}}}}})).empty());
}

TEST(StructuralValidation, DateTimeFormat) {
  json p = pool(json::object());
  p["status"] = {{"conditions", {{{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "yesterday"}}}}};
  EXPECT_EQ(texts(check(p)), std::vector<std::string>{R"(status.conditions[0].lastTransitionTime: Invalid value: "yesterday": status.conditions[0].lastTransitionTime in body must be of type date-time: "yesterday")"});
  p["status"]["conditions"][0]["lastTransitionTime"] = "2026-01-02T03:04:05Z";
  EXPECT_TRUE(check(p).empty());
}

TEST(StructuralValidation, AdditionalPropertiesValuesAreValidated) {
  EXPECT_EQ(texts(check(pool({{"nodeSelector", {{"gpu", 1}}}}))),
            std::vector<std::string>{R"(spec.nodeSelector.gpu: Invalid value: "integer": spec.nodeSelector.gpu in body must be of type string: "integer")"});
}

TEST(StructuralValidation, RatchetingSkipsUnchangedValues) {
  const json old = pool({{"queues", {{{"name", "a"}, {"weight", -1}}}}});
  json next = old;
  next["spec"]["preemption"] = {{"maxGangsPerHour", 3}};
  EXPECT_TRUE(check(next, &old).empty());  // the invalid weight did not change
  next["spec"]["queues"][0]["weight"] = -2;
  EXPECT_EQ(check(next, &old).size(), 1u);  // it changed, so it counts
  EXPECT_EQ(check(next, nullptr).size(), 1u);
}

TEST(StructuralValidation, PatternMultipleOfAndExclusiveBounds) {
  const json s = {{"type", "object"}, {"properties", {{"id", {{"type", "string"}, {"pattern", "^[a-z]+$"}}},
                                                      {"n", {{"type", "integer"}, {"multipleOf", 5}, {"exclusiveMaximum", true}, {"maximum", 100}}},
                                                      {"x", {{"type", "number"}, {"exclusiveMinimum", true}, {"minimum", 0.5}}}}}};
  EXPECT_EQ(texts(check_schema(s, {{"id", "A1"}})), std::vector<std::string>{R"(id: Invalid value: "A1": id in body should match '^[a-z]+$')"});
  EXPECT_EQ(texts(check_schema(s, {{"n", 7}})), std::vector<std::string>{"n: Invalid value: 7: n in body should be a multiple of 5"});
  EXPECT_EQ(texts(check_schema(s, {{"n", 100}})), std::vector<std::string>{"n: Invalid value: 100: n in body should be less than 100"});
  EXPECT_EQ(texts(check_schema(s, {{"x", 0.5}})), std::vector<std::string>{"x: Invalid value: 0.5: x in body should be greater than 0.5"});
  EXPECT_TRUE(check_schema(s, {{"id", "ok"}, {"n", 95}, {"x", 0.75}}).empty());
}

TEST(StructuralValidation, PropertyCountsNullableAndIntOrString) {
  const json s = {{"type", "object"}, {"properties", {{"m", {{"type", "object"}, {"minProperties", 2}, {"maxProperties", 3}, {"additionalProperties", {{"type", "string"}}}}},
                                                      {"maybe", {{"type", "string"}, {"nullable", true}}},
                                                      {"never", {{"type", "string"}}},
                                                      {"port", {{"x-kubernetes-int-or-string", true}}}}}};
  EXPECT_EQ(texts(check_schema(s, {{"m", {{"a", "1"}}}})), std::vector<std::string>{"m: Invalid value: 1: m in body should have at least 2 properties"});
  EXPECT_EQ(texts(check_schema(s, {{"m", {{"a", "1"}, {"b", "1"}, {"c", "1"}, {"d", "1"}}}})),
            std::vector<std::string>{"m: Too many: 4: must have at most 3 items"});
  EXPECT_TRUE(check_schema(s, {{"maybe", nullptr}, {"port", 80}}).empty());
  EXPECT_TRUE(check_schema(s, {{"port", "http"}}).empty());
  EXPECT_EQ(texts(check_schema(s, {{"never", nullptr}})), std::vector<std::string>{R"(never: Invalid value: "null": never in body must be of type string: "null")"});
  EXPECT_EQ(texts(check_schema(s, {{"port", true}})),
            std::vector<std::string>{R"(port: Invalid value: "boolean": port in body must be of type integer,string: "boolean")"});
}

TEST(StructuralValidation, EnumOfNumbersListsThemAsJson) {
  const json s = {{"type", "object"}, {"properties", {{"gpus", {{"type", "integer"}, {"enum", {1, 2, 4, 8}}}}}}};
  EXPECT_TRUE(check_schema(s, {{"gpus", 4}}).empty());
  EXPECT_EQ(texts(check_schema(s, {{"gpus", 3}})), std::vector<std::string>{R"(gpus: Unsupported value: 3: supported values: "1", "2", "4", "8")"});
}

TEST(StructuralValidation, Junctors) {
  const json s = {{"type", "object"},
                  {"properties", {{"a", {{"type", "integer"}, {"anyOf", {{{"minimum", 10}}, {{"maximum", 0}}}}}},
                                  {"o", {{"type", "integer"}, {"oneOf", {{{"minimum", 0}}, {{"minimum", 5}}}}}},
                                  {"l", {{"type", "integer"}, {"allOf", {{{"minimum", 0}}, {{"maximum", 10}}}}}},
                                  {"n", {{"type", "string"}, {"not", {{"enum", {"forbidden"}}}}}}}}};
  EXPECT_TRUE(check_schema(s, {{"a", 11}, {"o", 1}, {"l", 5}, {"n", "ok"}}).empty());
  auto any = texts(check_schema(s, {{"a", 5}}));
  ASSERT_FALSE(any.empty());
  EXPECT_EQ(any[0], R"(<nil>: Invalid value: "": "a" must validate at least one schema (anyOf))");
  EXPECT_EQ(texts(check_schema(s, {{"o", 7}}))[0], R"(<nil>: Invalid value: "": "o" must validate one and only one schema (oneOf). Found 2 valid alternatives)");
  auto all = texts(check_schema(s, {{"l", 11}}));
  EXPECT_EQ(all, (std::vector<std::string>{"l: Invalid value: 11: l in body should be less than or equal to 10",
                                           R"(<nil>: Invalid value: "": "l" must validate all the schemas (allOf))"}));
  EXPECT_EQ(texts(check_schema(s, {{"n", "forbidden"}})), std::vector<std::string>{R"(<nil>: Invalid value: "": "n" must not validate the schema (not))"});
}

}  // namespace
}  // namespace gangplank::apiserver_double::schema::testing
