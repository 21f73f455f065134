#include "operator/writer/disruption_budgets.h"

#include <gtest/gtest.h>

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

cache::PodInfo Pod(std::map<std::string, std::string> labels) {
  cache::PodInfo p;
  p.labels = std::move(labels);
  return p;
}

TEST(DisruptionBudgets, SelectorsMatchLikePolicyV1) {
  EXPECT_TRUE(SelectorMatches(Json::object(), {{"a", "1"}}));  // Empty: every pod.
  EXPECT_FALSE(SelectorMatches(Json(), {{"a", "1"}}));         // Null: none.
  EXPECT_TRUE(SelectorMatches(Json::parse(R"({"matchLabels":{"a":"1"}})"), {{"a", "1"}, {"b", "2"}}));
  EXPECT_FALSE(SelectorMatches(Json::parse(R"({"matchLabels":{"a":"2"}})"), {{"a", "1"}}));
  const Json expr = Json::parse(R"({"matchExpressions":[{"key":"tier","operator":"In","values":["gpu","cpu"]},
                                                         {"key":"skip","operator":"DoesNotExist"}]})");
  EXPECT_TRUE(SelectorMatches(expr, {{"tier", "gpu"}}));
  EXPECT_FALSE(SelectorMatches(expr, {{"tier", "gpu"}, {"skip", ""}}));
  EXPECT_FALSE(SelectorMatches(expr, {{"tier", "io"}}));
  EXPECT_TRUE(SelectorMatches(Json::parse(R"({"matchExpressions":[{"key":"x","operator":"NotIn","values":["1"]}]})"), {}));
  EXPECT_FALSE(SelectorMatches(Json::parse(R"({"matchExpressions":[{"key":"x","operator":"Bogus"}]})"), {{"x", "1"}}));
}

// A budget allowing one disruption must keep an eight-pod gang whole rather than let one member go.
TEST(DisruptionBudgets, WholeGangMustFitTheBudget) {
  const std::vector<cache::PodInfo> gang(8, Pod({{"job", "train"}}));
  const Json one = Json::parse(R"({"metadata":{"name":"train-pdb"},"spec":{"selector":{"matchLabels":{"job":"train"}}},
                                   "status":{"disruptionsAllowed":1}})");
  EXPECT_EQ(BudgetsForbid({one}, gang), "PodDisruptionBudget train-pdb allows 1 disruption and the gang has 8 pods it covers");
  const Json eight = Json::parse(R"({"metadata":{"name":"ok"},"spec":{"selector":{"matchLabels":{"job":"train"}}},
                                     "status":{"disruptionsAllowed":8}})");
  EXPECT_EQ(BudgetsForbid({eight}, gang), "");
  const Json other = Json::parse(R"({"metadata":{"name":"other"},"spec":{"selector":{"matchLabels":{"job":"x"}}},
                                     "status":{"disruptionsAllowed":0}})");
  EXPECT_EQ(BudgetsForbid({other}, gang), "");
}

}  // namespace
}  // namespace gangplank::op
