// End to end, real processes on loopback: priority preemption takes one whole lower-priority gang and
// nothing else; fair-share reclaim takes a queue down to its guarantee and never below it.
#include <gtest/gtest.h>

#include <thread>

#include "tests/operator/e2e/support/operator_cluster.h"

namespace gangplank::op::testing {
namespace {

using OperatorEndToEnd = OperatorCluster;

TEST_F(OperatorEndToEnd, HighPriorityGangPreemptsAWholeLowPriorityGangAndNothingElse) {
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i), {8, {}});
  Pool("pool", Json::parse(R"({"preemption":{"reclaim":false,"minWaitSeconds":0}})"));
  Queue("team-a", Json::parse(R"({"preemption":{"withinQueue":"LowerPriority","minRuntimeSeconds":0}})"));
  StartAll();
  PodOptions low;
  low.queue = "team-a";
  SubmitGang("low-a", 2, low);
  SubmitGang("low-b", 2, low);
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("low-a", 2)) && AllBound(Names("low-b", 2)); })) << Logs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // Past a minimum runtime of 0 s, whatever the clock.

  PodOptions high = low;
  high.priority = 1000;
  SubmitGang("urgent", 2, high);
  // One low gang goes, whole; the urgent gang lands where it was.
  ASSERT_TRUE(WaitFor([&] { return Members("low-a").empty() || Members("low-b").empty(); })) << Logs();
  const std::string victim = Members("low-a").empty() ? "low-a" : "low-b";
  const std::string survivor = victim == "low-a" ? "low-b" : "low-a";
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("urgent", 2)); })) << Logs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(Members(survivor).size(), 2u) << "the other low gang must be untouched";
  EXPECT_TRUE(AllBound(Names(survivor, 2)));
  EXPECT_TRUE(Members(victim).empty());
  EXPECT_EQ(OperatorMetric("gangplank_operator_evictions_total"), 1);
  const auto events = api_->List("events", "ml");
  bool said = false;
  for (const Json& e : events) said = said || (e.value("reason", "") == "PriorityPreemption");
  EXPECT_TRUE(said) << "no PriorityPreemption event";
  EXPECT_EQ(HalfAdmittedGang(), "");
}

// team-a (guarantee 16) runs three 8-GPU gangs on a 32-GPU pool; team-b waits for 16. Reclaim takes
// one of team-a's gangs (down to its share, 16 = its guarantee) and team-b starts. A second team-b gang
// would need team-a below its guarantee: nothing more is taken, ever.
TEST_F(OperatorEndToEnd, AQueueNeverDropsBelowItsGuarantee) {
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i), {8, {}});
  Pool("pool", Json::parse(R"({"preemption":{"reclaim":true,"minWaitSeconds":0,"minRuntimeSeconds":0}})"));
  Queue("team-a", Json::parse(R"({"pools":[{"name":"pool","guaranteedGPUs":16}]})"));
  Queue("team-b");
  StartAll();
  PodOptions a;
  a.queue = "team-a";
  for (const std::string gang : {"a1", "a2", "a3"}) SubmitGang(gang, 1, a);
  ASSERT_TRUE(WaitFor([&] { return AllBound({"a1-0", "a2-0", "a3-0"}); })) << Logs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));

  PodOptions b;
  b.queue = "team-b";
  SubmitGang("b1", 2, b);
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("b1", 2)); })) << Logs();
  EXPECT_EQ(BoundGpusByQueue()["team-a"], 16);
  SubmitGang("b2", 2, b);
  for (int i = 0; i < 12; ++i) {  // 3 s: several rounds with reclaim on.
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    ASSERT_GE(BoundGpusByQueue()["team-a"], 16) << "team-a went below its guarantee\n" << Logs();
  }
  EXPECT_TRUE(NodeOf("b2-0").empty());
  EXPECT_TRUE(Gated("b2-0"));
  EXPECT_FALSE(GangCondition("b2-0").value("reason", "").empty()) << "b2 must say why it waits";
  EXPECT_EQ(OperatorMetric("gangplank_operator_evictions_total"), 1);
  EXPECT_EQ(HalfAdmittedGang(), "");
}

}  // namespace
}  // namespace gangplank::op::testing
