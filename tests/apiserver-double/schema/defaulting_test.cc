// Defaulting from `default:` values.
#include <gtest/gtest.h>

#include "apiserver-double/schema/defaulting.h"
#include "tests/apiserver-double/schema/gpupool_schema.h"

namespace gangplank::apiserver_double::schema::testing {
namespace {

using nlohmann::json;

TEST(Defaulting, FillsAbsentFieldsInsidePresentObjectsAndListItems) {
  const auto s = compiled(gpupool_open_api());
  json p = pool({{"spot", json::object()}, {"queues", {{{"name", "a"}}, {{"name", "b"}, {"weight", 3}}}}});
  ApplyDefaults(p, s->root());
  EXPECT_EQ(p["spec"]["spot"]["reclaimPolicy"], "CheckpointThenEvict");
  EXPECT_EQ(p["spec"]["spot"]["checkpointGraceSeconds"], 90);
  EXPECT_EQ(p["spec"]["spot"]["avoidSpotOnRequeue"], true);
  EXPECT_EQ(p["spec"]["queues"][0]["weight"], 1);
  EXPECT_EQ(p["spec"]["queues"][0]["guaranteedGPUs"], 0);
  EXPECT_EQ(p["spec"]["queues"][1]["weight"], 3);  // a given value stays
  EXPECT_FALSE(p["spec"]["queues"][0].contains("limitGPUs"));
  EXPECT_FALSE(p["spec"].contains("preemption"));  // no default on the object itself
}

TEST(Defaulting, NonNullableNullTakesTheDefaultAndDefaultsNest) {
  const Schema s = Schema::Parse({{"type", "object"},
                                  {"properties", {{"a", {{"type", "string"}, {"default", "x"}}},
                                                  {"n", {{"type", "string"}, {"nullable", true}, {"default", "y"}}},
                                                  {"o", {{"type", "object"}, {"default", json::object()},
                                                         {"properties", {{"inner", {{"type", "integer"}, {"default", 5}}}}}}}}}});
  json v = {{"a", nullptr}, {"n", nullptr}};
  ApplyDefaults(v, s);
  EXPECT_EQ(v["a"], "x");
  EXPECT_TRUE(v["n"].is_null());
  EXPECT_EQ(v["o"]["inner"], 5);  // a defaulted object is itself defaulted
}

}  // namespace
}  // namespace gangplank::apiserver_double::schema::testing
