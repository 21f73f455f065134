// Idle gangs as victims (RunningGang::idle_preemptible): reclaim and priority preemption take them
// whatever their queue's share, guarantee or minimum runtime, before any busy gang, and their GPUs
// spend none of their queue's budget.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/admission/admission_round.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using namespace testing;  // The admission fixture (gangplank::engine::testing).

// Three 8-GPU nodes. Queue a (guarantee 12) runs I; b (guarantee 12) runs B0 and B1; W of c waits for a
// node. Fair shares are 8 each: a holds its share, below its guarantee; b may lose only 4 GPUs (down to
// its guarantee), less than any of its gangs, so no busy gang may go.
Scenario Guarded() {
  Scenario s(SmallCluster(1, 3));
  s.Queue("a", 1, 12).Queue("b", 1, 12).Queue("c");
  s.Running("I", "a", 0, {{"k0-n0", 8}});
  s.Running("B0", "b", 0, {{"k0-n1", 8}}).Running("B1", "b", 0, {{"k0-n2", 8}});
  s.Waiting("W", "c", 5000, 1, 8);
  s.input.now = 10000;
  return s;
}

TEST(IdleVictims, ReclaimTakesAnIdleGangOfAQueueBelowItsGuarantee) {
  Scenario s = Guarded();
  EXPECT_THAT(Decide(s, WithReclaim()).reclaims, IsEmpty()) << "busy, I is protected by a's guarantee";
  s.input.running[0].idle_preemptible = true;
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_THAT(VictimNames(s.input, d), ElementsAre("I"));
  ASSERT_EQ(d.reclaims.size(), 1u);
  EXPECT_EQ(d.reclaims[0].kind, EvictionKind::kReclaim);
  EXPECT_EQ(s.input.waiting[d.reclaims[0].beneficiary].request.name, "W");
}

TEST(IdleVictims, WhateverItsRuntimeAndLostWork) {
  Scenario s = Guarded();
  s.input.running[0].idle_preemptible = true;
  s.input.running[0].start = 9000;  // Younger than the minimum runtime (3600 s).
  AdmissionConfig config = WithReclaim();
  config.reclaim.max_lost_gpu_seconds = 1;
  EXPECT_THAT(VictimNames(s.input, Decide(s, config)), ElementsAre("I"));
}

TEST(IdleVictims, StillOnlyForAnEntitledBeneficiary) {
  Scenario s = Guarded();
  s.input.running[0].idle_preemptible = true;
  s.input.running[1].queue = "c";  // c now holds its fair share: W is not entitled to reclaim.
  EXPECT_THAT(Decide(s, WithReclaim()).reclaims, IsEmpty());
}

TEST(IdleVictims, NotFromTheBeneficiarysOwnQueue) {
  Scenario s = Guarded();
  s.input.running[0].idle_preemptible = true;
  s.input.running[0].queue = "c";  // Reclaim is between queues; c's idle gang stays.
  s.input.running[1].queue = "a";
  EXPECT_THAT(Decide(s, WithReclaim()).reclaims, IsEmpty());
}

// Queue a runs three gangs on the three nodes; W of b waits for `nodes` nodes. A0 would lose the least.
Scenario Crowded(int nodes, double guarantee = 0) {
  Scenario s(SmallCluster(1, 3));
  s.Queue("a", 1, guarantee).Queue("b");
  s.Running("A0", "a", 0, {{"k0-n0", 8}}).Running("A1", "a", 0, {{"k0-n1", 8}}).Running("A2", "a", 0, {{"k0-n2", 8}});
  s.input.running[0].last_checkpoint = 9900;
  s.input.running[2].last_checkpoint = 9000;
  s.Waiting("W", "b", 5000, nodes, 8);
  s.input.now = 10000;
  return s;
}

TEST(IdleVictims, GoBeforeCheaperBusyGangs) {
  Scenario s = Crowded(1);
  EXPECT_THAT(VictimNames(s.input, Decide(s, WithReclaim())), ElementsAre("A0"));
  s.input.running[1].idle_preemptible = true;  // A1 would lose the most (no checkpoint).
  EXPECT_THAT(VictimNames(s.input, Decide(s, WithReclaim())), ElementsAre("A1"));
}

TEST(IdleVictims, SpendNoneOfTheQueuesBudget) {
  // a may lose 8 busy GPUs (16 busy, guarantee 8): the idle A1 and one busy gang make room for two nodes.
  Scenario s = Crowded(2, 8);
  s.input.running[1].idle_preemptible = true;
  EXPECT_THAT(VictimNames(s.input, Decide(s, WithReclaim())), UnorderedElementsAre("A1", "A0"));
}

TEST(IdleVictims, DoNotWidenTheBudgetForBusyGangs) {
  // Three nodes need both busy gangs too: 16 busy GPUs where a may lose 8, idle GPUs or not.
  Scenario s = Crowded(3, 8);
  s.input.running[1].idle_preemptible = true;
  EXPECT_THAT(Decide(s, WithReclaim()).reclaims, IsEmpty());
}

TEST(IdleVictims, PriorityPreemptionTakesAnIdleGangFirst) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Running("L0", "a", 0, {{"k0-n0", 8}}).Running("L1", "a", 5000, {{"k0-n1", 8}});
  s.input.running[0].last_checkpoint = 8000;  // L0 would lose 16,000 GPU-seconds, L1 8,000.
  s.input.running[1].last_checkpoint = 9000;
  s.Waiting("H", "a", 9000, 1, 8, 10);
  s.QueueNamed("a").preempt_lower_priority = true;
  s.input.now = 10000;
  EXPECT_THAT(VictimNames(s.input, Decide(s)), ElementsAre("L1"));
  s.input.running[0].idle_preemptible = true;
  s.input.running[0].start = 9500;  // And younger than the minimum runtime.
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(VictimNames(s.input, d), ElementsAre("L0"));
  EXPECT_EQ(d.reclaims[0].kind, EvictionKind::kPriority);
}

}  // namespace
}  // namespace gangplank::engine
