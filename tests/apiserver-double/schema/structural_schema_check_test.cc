// CRD schemas must be structural (apiextensions.k8s.io/v1).
#include <gtest/gtest.h>

#include "apiserver-double/schema/structural_schema_check.h"
#include "tests/apiserver-double/schema/gpupool_schema.h"

namespace gangplank::apiserver_double::schema::testing {
namespace {

using nlohmann::json;

std::vector<std::string> problems(const json& schema) {
  FieldErrors errors;
  CheckStructural(schema, "spec.versions[0].schema.openAPIV3Schema", errors);
  return texts(errors);
}

TEST(StructuralSchemaCheck, TheProjectCrdIsStructural) { EXPECT_TRUE(problems(gpupool_open_api()).empty()); }

TEST(StructuralSchemaCheck, UntypedNodesAreNamed) {
  const json s = {{"type", "object"},
                  {"properties", {{"spec", {{"properties", {{"free", {{"x-kubernetes-preserve-unknown-fields", true}}},
                                                            {"port", {{"x-kubernetes-int-or-string", true}}},
                                                            {"list", {{"type", "array"}, {"items", json::object()}}}}}}}}}};
  EXPECT_EQ(problems(s), (std::vector<std::string>{
                             "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields",
                             "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[list].items.type: Required value: must not be empty for specified array items"}));
  EXPECT_EQ(problems(json::object()),
            std::vector<std::string>{"spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root"});
  EXPECT_EQ(problems({{"type", "string"}}),
            std::vector<std::string>{R"(spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root)"});
}

TEST(StructuralSchemaCheck, PropertiesAndAdditionalPropertiesExcludeEachOther) {
  const json s = {{"type", "object"}, {"properties", {{"a", {{"type", "string"}}}}}, {"additionalProperties", {{"type", "string"}}}};
  EXPECT_EQ(problems(s), std::vector<std::string>{
                             "spec.versions[0].schema.openAPIV3Schema.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"});
}

}  // namespace
}  // namespace gangplank::apiserver_double::schema::testing
