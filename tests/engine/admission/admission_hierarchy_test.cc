// Hierarchical queues in the admission round: shares and holdings per tree node, limits along the path,
// gangs only in leaves, reclaim that respects every queue between the victim and the common ancestor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/admission/admission_round.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using namespace testing;  // The admission fixture (gangplank::engine::testing).

TEST(HierarchicalQueues, SharesAndHoldingsPerQueueWithInnerQueuesAsSubtreeTotals) {
  // 32 GPUs. org (a1 runs 8, waits 8; a2 waits 16) and b (waits 16).
  Scenario s(SmallCluster(1, 4));
  s.Queue("org").Queue("a1", 1, 0, "org").Queue("a2", 1, 0, "org").Queue("b");
  s.Running("A1", "a1", 0, {{"k0-n0", 8}});
  s.Waiting("a1-w", "a1", 0, 1, 8).Waiting("a2-w", "a2", 0, 2, 8).Waiting("b-w", "b", 0, 2, 8);
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(d.fair_shares, ElementsAre(16, 8, 8, 16));
  EXPECT_THAT(d.held, ElementsAre(8, 8, 0, 0));
  // Leaf ratios: a2 (0 of 8) and b (0 of 16) tie, a2's gang is listed first; then b's 16-GPU gang
  // does not fit the one node left and a1's gang (8 of 8) backfills it.
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("a2-w", "a1-w"));
  EXPECT_THAT(d.errors, IsEmpty());
}

TEST(HierarchicalQueues, GangsMustNameALeafQueue) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("org").Queue("team", 1, 0, "org").Waiting("inner", "org", 0, 1, 8).Waiting("ok", "team", 1, 1, 8);
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("ok"));
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_THAT(d.errors[0], HasSubstr("queue org has child queues; gangs must name a leaf queue"));
}

TEST(HierarchicalQueues, MalformedTreesThrowInsteadOfLooping) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a", 1, 0, "b").Queue("b", 1, 0, "a").Waiting("w", "a", 0, 1, 1);
  EXPECT_THROW(Decide(s), std::invalid_argument);
  Scenario t(SmallCluster(1, 1));
  t.Queue("a", 1, 0, "nowhere");
  EXPECT_THROW(Decide(t), std::invalid_argument);
}

TEST(HierarchicalQueues, NoAncestorGoesAboveItsLimit) {
  // team is unlimited, its parent org may hold 8: with 4 held, an 8-GPU gang waits and a 4-GPU one starts.
  Scenario s(SmallCluster(1, 2));
  s.Queue("org").Queue("team", 1, 0, "org").Running("r", "team", 0, {{"k0-n0", 4}});
  s.QueueNamed("org").limit = 8;
  s.Waiting("big", "team", 0, 1, 8).Waiting("small", "team", 1, 1, 4).Waiting("more", "team", 2, 1, 1);
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("small"));
  EXPECT_THAT(d.held, ElementsAre(4, 4));
}

// 32 GPUs. org (guarantee G) has t1 and t2, each running two 8-GPU gangs; b waits with a 16-GPU gang
// (two whole nodes). b's share is 16 - or less when org's guarantee is higher.
Scenario SiblingVictims(double org_guarantee) {
  Scenario s(SmallCluster(1, 4));
  s.Queue("org", 1, org_guarantee).Queue("t1", 1, 0, "org").Queue("t2", 1, 0, "org").Queue("b");
  s.Running("T1a", "t1", 0, {{"k0-n0", 8}}).Running("T1b", "t1", 100, {{"k0-n1", 8}});
  s.Running("T2a", "t2", 0, {{"k0-n2", 8}}).Running("T2b", "t2", 200, {{"k0-n3", 8}});
  s.Waiting("B", "b", 0, 2, 8);
  s.input.now = 10000;
  return s;
}

TEST(HierarchicalReclaim, TakesFromAnotherSubtreeDownToItsShare) {
  Scenario s = SiblingVictims(16);
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_THAT(d.fair_shares, ElementsAre(16, 8, 8, 16));
  // The two youngest gangs (least lost work) of org; org ends at 16, its guarantee.
  EXPECT_THAT(VictimNames(s.input, d), UnorderedElementsAre("T1b", "T2b"));
}

TEST(HierarchicalReclaim, SiblingVictimsNeverJointlyTakeTheirParentBelowItsGuarantee) {
  // org's guarantee 24 leaves 8 GPUs reclaimable from org as a whole, though t1 and t2 are each 4
  // above their shares of 12 and b is below its share of 8: one 8-GPU victim frees one node only.
  Scenario s = SiblingVictims(24);
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_THAT(d.fair_shares, ElementsAre(24, 12, 12, 8));
  EXPECT_THAT(d.reclaims, IsEmpty());
  ASSERT_EQ(d.refused.size(), 1u);
  EXPECT_THAT(d.refused[0].reason, HasSubstr("would not free room"));
  // A gang of one node is helped with a single victim.
  s.input.waiting[0].request.members.pop_back();
  EXPECT_EQ(Decide(s, WithReclaim()).reclaims.size(), 1u);
}

TEST(HierarchicalReclaim, BetweenSiblingsTheCommonParentIsNotAVictim) {
  // org holds the whole pool (guarantee 16 = the pool) through t1; t2 waits below its share. The victim
  // comes from t1: org's total does not change, so its guarantee does not stand in the way.
  Scenario s(SmallCluster(1, 2));
  s.Queue("org", 1, 16).Queue("t1", 1, 0, "org").Queue("t2", 1, 0, "org").Queue("idle");
  s.Running("T1a", "t1", 0, {{"k0-n0", 8}}).Running("T1b", "t1", 100, {{"k0-n1", 8}});
  s.Waiting("T2", "t2", 0, 1, 8);
  s.input.now = 10000;
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_THAT(VictimNames(s.input, d), ElementsAre("T1b"));
  EXPECT_EQ(s.input.waiting[d.reclaims[0].beneficiary].request.name, "T2");
}

TEST(HierarchicalReclaim, NeverFromAQueueWhoseSubtreeIsAtItsShare) {
  // t1 is above its share inside org, but org as a whole is at its share against b: b may not take from
  // t1 (that is for t1's sibling to do).
  Scenario s(SmallCluster(1, 4));
  s.Queue("org").Queue("t1", 1, 0, "org").Queue("t2", 1, 0, "org").Queue("b");
  s.Running("T1a", "t1", 0, {{"k0-n0", 8}}).Running("T1b", "t1", 100, {{"k0-n1", 8}});
  s.Running("B1", "b", 0, {{"k0-n2", 8}});
  s.Waiting("t2-w", "t2", 0, 1, 8).Waiting("B2", "b", 0, 2, 8);
  s.input.now = 10000;
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_THAT(d.fair_shares, ElementsAre(16, 8, 8, 16));
  // t2-w starts on the free node; b (8 of 16) may not reclaim from org (16 of 16).
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("t2-w"));
  EXPECT_THAT(d.reclaims, IsEmpty());
}

}  // namespace
}  // namespace gangplank::engine
