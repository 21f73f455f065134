// Pruning of undeclared fields and of non-nullable nulls.
#include <gtest/gtest.h>

#include "apiserver-double/schema/apply_typing.h"
#include "apiserver-double/schema/pruning.h"
#include "tests/apiserver-double/schema/gpupool_schema.h"

namespace gangplank::apiserver_double::schema::testing {
namespace {

using nlohmann::json;

TEST(Pruning, DropsUndeclaredFieldsAndReportsTheirPathsSorted) {
  const auto s = compiled(gpupool_open_api());
  json p = pool({{"zeta", 1}, {"queues", {{{"name", "a"}, {"colour", "red"}}}}, {"nodeSelector", {{"any-label", "kept"}}}});
  p["metadata"]["junk"] = true;
  p["metadata"]["labels"] = {{"a", "b"}};
  p["extra"] = {{"deep", 1}};
  const auto dropped = PruneUnknownFields(p, s->root());
  EXPECT_EQ(dropped, (std::vector<std::string>{"extra", "metadata.junk", "spec.queues[0].colour", "spec.zeta"}));
  EXPECT_FALSE(p.contains("extra"));
  EXPECT_FALSE(p["spec"].contains("zeta"));
  EXPECT_FALSE(p["spec"]["queues"][0].contains("colour"));
  EXPECT_EQ(p["spec"]["nodeSelector"]["any-label"], "kept");  // additionalProperties keeps every key
  EXPECT_EQ(p["metadata"]["labels"]["a"], "b");
  EXPECT_EQ(p["apiVersion"], "gangplank.io/v1alpha1");
}

TEST(Pruning, PreserveUnknownFieldsKeepsTheSubtree) {
  const Schema s = Schema::Parse({{"type", "object"},
                                  {"properties", {{"free", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true},
                                                            {"properties", {{"typed", {{"type", "object"}, {"properties", json::object()}}}}}}}}}});
  json v = {{"free", {{"anything", {{"goes", 1}}}, {"typed", {{"dropped", 1}}}}}};
  EXPECT_EQ(PruneUnknownFields(v, s), std::vector<std::string>{"free.typed.dropped"});
  EXPECT_EQ(v["free"]["anything"]["goes"], 1);
}

TEST(Pruning, NonNullableNullsWithoutDefaultsGo) {
  const Schema s = Schema::Parse({{"type", "object"},
                                  {"properties", {{"a", {{"type", "string"}}},
                                                  {"b", {{"type", "string"}, {"nullable", true}}},
                                                  {"c", {{"type", "string"}, {"default", "x"}}}}}});
  json v = {{"a", nullptr}, {"b", nullptr}, {"c", nullptr}};
  PruneNonNullableNulls(v, s);
  EXPECT_FALSE(v.contains("a"));
  EXPECT_TRUE(v.contains("b"));
  EXPECT_TRUE(v.contains("c"));  // left for defaulting
}

TEST(ApplyTyping, UndeclaredFieldsInStructuredMergeDiffNotation) {
  const auto s = compiled(gpupool_open_api());
  json p = pool({{"zeta", 1}, {"queues", {{{"name", "a"}, {"colour", "red"}}}}, {"topologyLevels", {"zone"}}});
  p["metadata"]["junk"] = true;
  EXPECT_EQ(UndeclaredApplyFields(p, s->root()),
            (std::vector<std::string>{".metadata.junk", R"(.spec.queues[name="a"].colour)", ".spec.zeta"}));
  EXPECT_TRUE(UndeclaredApplyFields(pool({{"queues", {{{"name", "a"}}}}}), s->root()).empty());
}

}  // namespace
}  // namespace gangplank::apiserver_double::schema::testing
