#include "extender/service/preemption_grants.h"

#include <gtest/gtest.h>

namespace gangplank::extender {
namespace {

using std::chrono::seconds;
using Clock = PreemptionGrants::Clock;

TEST(PreemptionGrants, KeepsTheLatestAnswerPerPreemptorUntilItExpires) {
  PreemptionGrants grants(seconds(60), 8);
  const Clock::time_point t0{};
  grants.Record("p1", NodeVictimsMap{{"n1", {{"v1", "v2"}}}, {"n2", {{"v3"}}}}, t0);
  auto g = grants.Find("p1", t0 + seconds(1));
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->size(), 2u);
  EXPECT_EQ(g->node(0), "n1");
  EXPECT_EQ(g->victims(0), (std::vector<std::string_view>{"v1", "v2"}));
  EXPECT_EQ(g->victims(1), (std::vector<std::string_view>{"v3"}));
  EXPECT_EQ(g->Find("n2"), 1u);
  EXPECT_EQ(g->Find("n9"), g->size());
  EXPECT_EQ(grants.Find("p2", t0), nullptr);

  grants.Record("p1", NodeVictimsMap{{"n3", {{"v4"}}}}, t0 + seconds(30));  // A newer answer replaces it.
  g = grants.Find("p1", t0 + seconds(80));
  ASSERT_NE(g, nullptr) << "the replaced answer's expiry must not take the newer one";
  EXPECT_EQ(g->node(0), "n3");
  EXPECT_EQ(grants.Find("p1", t0 + seconds(91)), nullptr);

  grants.Record("p1", NodeVictimsMap{}, t0 + seconds(95));
  grants.Record("p1", NodeVictimsMap{{"n1", {{"v1"}}}}, t0 + seconds(96));
  grants.Record("p1", NodeVictimsMap{}, t0 + seconds(97));  // Nothing granted: nothing to count gone.
  EXPECT_EQ(grants.Find("p1", t0 + seconds(97)), nullptr);
  EXPECT_EQ(grants.size(), 0u);
}

TEST(PreemptionGrants, TheOldestGoPastCapacityAndExpiredOnesOnTheNextRecord) {
  PreemptionGrants grants(seconds(60), 3);
  const Clock::time_point t0{};
  for (int i = 0; i < 5; ++i) grants.Record("p" + std::to_string(i), NodeVictimsMap{{"n", {{"v"}}}}, t0 + seconds(i));
  EXPECT_EQ(grants.size(), 3u);
  EXPECT_EQ(grants.Find("p1", t0 + seconds(5)), nullptr);
  EXPECT_NE(grants.Find("p2", t0 + seconds(5)), nullptr);
  for (int i = 0; i < 100; ++i) grants.Record("p4", NodeVictimsMap{{"n", {{"v"}}}}, t0 + seconds(5));
  EXPECT_EQ(grants.size(), 3u);
  grants.Record("late", NodeVictimsMap{{"n", {{"v"}}}}, t0 + seconds(300));
  EXPECT_EQ(grants.size(), 1u) << "every older answer had expired";
}

}  // namespace
}  // namespace gangplank::extender
