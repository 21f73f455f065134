// Priority preemption inside a queue: whole lower-priority gangs of the same leaf queue make room for a
// higher-priority gang, within the victim rules and the budget reclaim uses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "engine/admission/admission_round.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace testing;  // The admission fixture (gangplank::engine::testing).

// Queue a (preempting) runs two priority-0 gangs on the two nodes; H (priority 10) waits for one node.
// Since their last checkpoints L0 would lose 16,000 GPU-seconds, L1 8,000 (the default cap is 28,800).
Scenario Crowded() {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Running("L0", "a", 0, {{"k0-n0", 8}}).Running("L1", "a", 5000, {{"k0-n1", 8}});
  s.input.running[0].last_checkpoint = 8000;
  s.input.running[1].last_checkpoint = 9000;
  s.Waiting("H", "a", 9000, 1, 8, 10);
  s.QueueNamed("a").preempt_lower_priority = true;
  s.input.now = 10000;
  return s;
}

TEST(PriorityPreemption, EvictsTheLowerPriorityGangThatLosesLeast) {
  Scenario s = Crowded();
  const AdmissionDecision d = Decide(s);  // Reclaim is off: preemption does not need it.
  ASSERT_THAT(VictimNames(s.input, d), ElementsAre("L1"));
  const Reclaimed& r = d.reclaims[0];
  EXPECT_EQ(r.kind, EvictionKind::kPriority);
  EXPECT_EQ(s.input.waiting[r.beneficiary].request.name, "H");
  EXPECT_DOUBLE_EQ(r.lost_gpu_seconds, 8 * 1000);
  EXPECT_EQ(r.reason,
            "preempting gang L1 (priority 0) of queue a after 1.4 h running, losing 2.2 GPU-hours since its last "
            "checkpoint, so that H (priority 10, 8 GPUs) can start");
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_TRUE(d.reservations[0].for_reclaim);
  EXPECT_THAT(d.reservations[0].nodes, ElementsAre(s.cluster.Find("k0-n1")));
  ASSERT_EQ(d.blocked.size(), 1u);
  EXPECT_EQ(d.blocked[0].code, BlockCode::kAwaitingVictims);
  EXPECT_EQ(EvictionKindName(r.kind), "PriorityPreemption");
}

TEST(PriorityPreemption, OnlyWhenTheQueueAsksForIt) {
  Scenario s = Crowded();
  s.QueueNamed("a").preempt_lower_priority = false;
  EXPECT_THAT(Decide(s).reclaims, IsEmpty());
}

TEST(PriorityPreemption, OnlyStrictlyLowerPriorities) {
  Scenario s = Crowded();
  s.input.running[0].priority = 10;
  s.input.running[1].priority = 10;
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(d.reclaims, IsEmpty());
  EXPECT_THAT(d.refused, IsEmpty()) << "nothing it outranks: no attempt to report";
  s.input.running[0].priority = 9;
  EXPECT_THAT(VictimNames(s.input, Decide(s)), ElementsAre("L0"));
}

TEST(PriorityPreemption, OnlyFromItsOwnLeafQueue) {
  // L0 and L1 belong to a sibling queue under the same parent: not victims of a's preemption.
  Scenario s(SmallCluster(1, 2));
  s.Queue("org").Queue("a", 1, 0, "org").Queue("b", 1, 0, "org");
  s.Running("L0", "b", 0, {{"k0-n0", 8}}).Running("L1", "b", 5000, {{"k0-n1", 8}});
  s.input.running[0].last_checkpoint = s.input.running[1].last_checkpoint = 9000;
  s.Waiting("H", "a", 9000, 1, 8, 10);
  s.QueueNamed("a").preempt_lower_priority = true;
  s.QueueNamed("b").preempt_lower_priority = true;
  s.input.now = 10000;
  EXPECT_THAT(Decide(s).reclaims, IsEmpty());
  s.input.waiting[0].request.queue = "b";  // The same gang in b does preempt.
  EXPECT_EQ(Decide(s).reclaims.size(), 1u);
}

TEST(PriorityPreemption, RespectsTheQueueMinimumRuntimeAndTheLostWorkCap) {
  Scenario s = Crowded();
  s.QueueNamed("a").min_runtime_seconds = 6000;  // L1 ran 5000 s; L0 may still go.
  EXPECT_THAT(VictimNames(s.input, Decide(s)), ElementsAre("L0"));
  s.QueueNamed("a").min_runtime_seconds = 20000;
  EXPECT_THAT(Decide(s).reclaims, IsEmpty());
  s.QueueNamed("a").min_runtime_seconds.reset();
  AdmissionConfig c;
  c.reclaim.max_lost_gpu_seconds = 5000;  // Both would lose more.
  EXPECT_THAT(Decide(s, c).reclaims, IsEmpty());
  s.input.running[0].last_checkpoint = 9900;  // L0 now loses 800 GPU-s.
  EXPECT_THAT(VictimNames(s.input, Decide(s, c)), ElementsAre("L0"));
}

TEST(PriorityPreemption, NeverEvictsForNothing) {
  // H needs both nodes, but only one lower-priority gang runs: evicting it would not let H start.
  Scenario s = Crowded();
  s.input.waiting[0].request.members.push_back(Gpus(8));
  s.input.running[0].priority = 10;
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(d.reclaims, IsEmpty());
  ASSERT_EQ(d.refused.size(), 1u);
  EXPECT_THAT(d.refused[0].reason, HasSubstr("not preempting for H (priority 10): "));
  EXPECT_THAT(d.refused[0].reason, HasSubstr("would not free room"));
}

TEST(PriorityPreemption, SharesTheEvictionBudgetWithReclaim) {
  // Queue r holds two nodes above its share; b waits below its share (reclaim); a preempts its own.
  Scenario s(SmallCluster(1, 3));
  s.Queue("r").Queue("b").Queue("a");
  s.Running("R0", "r", 0, {{"k0-n0", 8}}).Running("R1", "r", 3000, {{"k0-n1", 8}});
  s.Running("L", "a", 0, {{"k0-n2", 8}});
  s.Waiting("B", "b", 0, 1, 8).Waiting("H", "a", 0, 1, 8, 5);
  s.QueueNamed("a").preempt_lower_priority = true;
  s.input.now = 10000;
  AdmissionConfig c = WithReclaim();
  AdmissionDecision d = Decide(s, c);
  EXPECT_THAT(VictimNames(s.input, d), ElementsAre("R1", "L"));
  EXPECT_EQ(d.reclaims[0].kind, EvictionKind::kReclaim);
  EXPECT_EQ(d.reclaims[1].kind, EvictionKind::kPriority);
  c.reclaim.max_victims_per_round = 1;
  d = Decide(s, c);
  EXPECT_THAT(VictimNames(s.input, d), ElementsAre("R1"));
  ASSERT_EQ(d.refused.size(), 1u);
  EXPECT_EQ(d.refused[0].reason,
            "not preempting for H: the preemption budget (1 gangs per round, 8 per 1.0 h) is spent");
  // Evictions of earlier rounds in the window count as well.
  c = WithReclaim();
  c.reclaim.enabled = false;
  s.input.recent_evictions = std::vector<double>(8, 9000);
  EXPECT_THAT(Decide(s, c).reclaims, IsEmpty());
}

TEST(PriorityPreemption, TheQueueMinimumRuntimeAppliesToReclaimToo) {
  // b reclaims from a; a's gangs ran 5000 and 10000 s.
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b").Running("A0", "a", 0, {{"k0-n0", 8}}).Running("A1", "a", 5000, {{"k0-n1", 8}});
  s.Waiting("B", "b", 0, 1, 8);
  s.input.now = 10000;
  EXPECT_THAT(VictimNames(s.input, Decide(s, WithReclaim())), ElementsAre("A1"));
  s.QueueNamed("a").min_runtime_seconds = 7000;
  EXPECT_THAT(VictimNames(s.input, Decide(s, WithReclaim())), ElementsAre("A0"));
  s.QueueNamed("a").min_runtime_seconds = 1e9;
  EXPECT_THAT(Decide(s, WithReclaim()).reclaims, IsEmpty());
  EXPECT_THAT(AdmittedNames(s.input, Decide(s, WithReclaim())), IsEmpty());
}

}  // namespace
}  // namespace gangplank::engine
