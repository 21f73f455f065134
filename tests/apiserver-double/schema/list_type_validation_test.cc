// x-kubernetes-list-type set/map duplicates.
#include <gtest/gtest.h>

#include "apiserver-double/schema/list_type_validation.h"
#include "tests/apiserver-double/schema/gpupool_schema.h"

namespace gangplank::apiserver_double::schema::testing {
namespace {

using nlohmann::json;

TEST(ListTypeValidation, MapListRejectsRepeatedKeys) {
  const auto s = compiled(gpupool_open_api());
  const auto errors = ValidateListTypes(s->root(), pool({{"queues", {{{"name", "a"}}, {{"name", "b"}}, {{"name", "a"}, {"weight", 2}}}}}));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(), R"(spec.queues[2]: Duplicate value: {"name":"a"})");
  EXPECT_EQ(errors[0].reason(), "FieldValueDuplicate");
  EXPECT_TRUE(ValidateListTypes(s->root(), pool({{"queues", {{{"name", "a"}}, {{"name", "b"}}}}})).empty());
  EXPECT_EQ(texts(ValidateListTypes(s->root(), pool({{"queues", {{{"name", "a"}}, "b"}}}))),
            std::vector<std::string>{R"(spec.queues[1]: Invalid value: "b": must be an object for an array of list-type map)"});
}

TEST(ListTypeValidation, SetRejectsRepeatedValuesAndAtomicListsAllowThem) {
  const Schema s = Schema::Parse({{"type", "object"},
                                  {"properties", {{"tags", {{"type", "array"}, {"x-kubernetes-list-type", "set"}, {"items", {{"type", "string"}}}}},
                                                  {"any", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}});
  EXPECT_EQ(texts(ValidateListTypes(s, {{"tags", {"x", "y", "x"}}})), std::vector<std::string>{R"(tags[2]: Duplicate value: "x")"});
  // Only the second appearance of a value is reported.
  EXPECT_EQ(texts(ValidateListTypes(s, {{"tags", {"x", "x", "x", "y", "y"}}})),
            (std::vector<std::string>{R"(tags[1]: Duplicate value: "x")", R"(tags[4]: Duplicate value: "y")"}));
  EXPECT_TRUE(ValidateListTypes(s, {{"any", {"x", "x"}}}).empty());
}

TEST(ListTypeValidation, NestedListsUseFieldPathNotation) {
  const Schema s = Schema::Parse(
      {{"type", "object"},
       {"properties", {{"m", {{"type", "object"}, {"additionalProperties", {{"type", "array"}, {"x-kubernetes-list-type", "set"}, {"items", {{"type", "integer"}}}}}}}}}});
  EXPECT_EQ(texts(ValidateListTypes(s, {{"m", {{"k.io/x", {1, 1}}}}})), std::vector<std::string>{"m[k.io/x][1]: Duplicate value: 1"});
}

}  // namespace
}  // namespace gangplank::apiserver_double::schema::testing
