// Consolidation: a waiting gang of a queue below its fair share, for which the pool has the free GPUs
// but no node with enough of them, gets a node emptied by moving a small gang into a hole elsewhere;
// never when the moved gang would not fit elsewhere, is not movable, would lose too much work, or the
// budget is spent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/admission/scratch_model.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr double kNow = 100000;

AdmissionConfig Consolidating() {
  AdmissionConfig c;
  c.consolidation.enabled = true;
  return c;
}

// Every running gang may move as its pod is now, and checkpointed ten minutes ago.
void MovableSinceACheckpoint(Scenario& s) {
  for (RunningGang& r : s.input.running) {
    r.move_as = RequestOf(r.allocations.front());
    r.last_checkpoint = kNow - 600;
  }
}

// Two 8-GPU nodes, each half held by a 4-GPU gang of queue b that checkpointed ten minutes ago: 8 GPUs
// free, none on one node. Queue a's 8-GPU pod has waited two hours; a holds nothing of its share.
Scenario Fragmented() {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b");
  s.Running("left", "b", kNow - 5 * 3600, {{"k0-n0", 4}});
  s.Running("right", "b", kNow - 4 * 3600, {{"k0-n1", 4}});
  MovableSinceACheckpoint(s);
  s.Waiting("W", "a", kNow - 2 * 3600, 1, 8);
  s.input.now = kNow;
  return s;
}

TEST(Consolidation, MovesASmallGangIntoAHoleSoAWholeNodeFrees) {
  Scenario s = Fragmented();
  const AdmissionDecision d = Decide(s, Consolidating());
  ASSERT_EQ(d.reclaims.size(), 1u);
  EXPECT_EQ(d.reclaims[0].kind, EvictionKind::kConsolidation);
  EXPECT_EQ(d.reclaims[0].beneficiary, 0);
  EXPECT_DOUBLE_EQ(d.reclaims[0].lost_gpu_seconds, 4 * 600);
  EXPECT_THAT(d.reclaims[0].reason, HasSubstr("fits on free GPUs elsewhere"));
  EXPECT_THAT(AdmittedNames(s.input, d), IsEmpty()) << "W starts once the moved gang is gone";
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_TRUE(d.reservations[0].for_reclaim);
  const NodeId moved_from = s.input.running[d.reclaims[0].running].allocations[0].node;
  EXPECT_THAT(d.reservations[0].nodes, ElementsAre(moved_from)) << "the emptied node is kept for W";
}

TEST(Consolidation, IsOffUnlessEnabled) {
  Scenario s = Fragmented();
  EXPECT_THAT(Decide(s).reclaims, IsEmpty());
}

TEST(Consolidation, NeverMovesAGangThatWouldNotFitElsewhere) {
  Scenario s(SmallCluster(1, 3));
  s.Queue("a").Queue("b");
  s.Running("six-0", "b", kNow - 5 * 3600, {{"k0-n0", 6}});
  s.Running("six-1", "b", kNow - 5 * 3600, {{"k0-n1", 6}});
  s.Running("four", "b", kNow - 5 * 3600, {{"k0-n2", 4}});
  MovableSinceACheckpoint(s);
  s.Waiting("W", "a", kNow - 2 * 3600, 1, 8);
  s.input.now = kNow;
  AdmissionConfig config = Consolidating();
  config.consolidation.max_gpus = 8;
  // Emptying any node leaves holes of 2, 2 and 4 GPUs: nothing that moved would find room again.
  EXPECT_THAT(Decide(s, config).reclaims, IsEmpty());
}

TEST(Consolidation, MovesOnlyGangsTheCallerVouchesFor) {
  Scenario s = Fragmented();
  for (RunningGang& r : s.input.running) r.move_as.reset();
  EXPECT_THAT(Decide(s, Consolidating()).reclaims, IsEmpty());
}

TEST(Consolidation, MovesAGangOnlyWhereItsOwnRequestFits) {
  Scenario s = Fragmented();
  for (RunningGang& r : s.input.running) r.move_as->gpu_models = {"H100"};  // No such node in the pool.
  EXPECT_THAT(Decide(s, Consolidating()).reclaims, IsEmpty());
}

TEST(Consolidation, MovesNoGangThatWouldLoseTooMuchWorkOrIsTooLarge) {
  Scenario s = Fragmented();
  for (RunningGang& r : s.input.running) r.last_checkpoint = kNow - 3600;  // 4 GPU-hours each.
  EXPECT_THAT(Decide(s, Consolidating()).reclaims, IsEmpty());
  AdmissionConfig config = Consolidating();
  config.consolidation.max_lost_gpu_seconds = 4 * 3600;
  EXPECT_THAT(Decide(s, config).reclaims, ::testing::SizeIs(1));
  config.consolidation.max_gpus = 2;
  EXPECT_THAT(Decide(s, config).reclaims, IsEmpty());
}

TEST(Consolidation, WaitsAsReclaimDoesWithABudgetOfItsOwn) {
  Scenario s = Fragmented();
  s.input.waiting[0].arrival = kNow - 600;  // Not yet reclaim's minimum wait.
  const AdmissionDecision early = Decide(s, Consolidating());
  EXPECT_THAT(early.reclaims, IsEmpty());
  EXPECT_DOUBLE_EQ(early.next_wakeup, kNow - 600 + 3600) << "with reclaim off, the round must still look again";
  s.input.waiting[0].arrival = kNow - 2 * 3600;
  AdmissionConfig config = Consolidating();
  config.reclaim.max_victims_per_round = 0;  // Reclaim's budget spent: moves do not draw on it.
  const AdmissionDecision d = Decide(s, config);
  ASSERT_EQ(d.reclaims.size(), 1u);
  EXPECT_FALSE(Budgeted(d.reclaims[0].kind)) << "a move must not count in reclaim's hourly window either";
  config.consolidation.max_moves_per_round = 0;
  EXPECT_THAT(Decide(s, config).reclaims, IsEmpty());
}

// Node n0: b's 4-GPU gang and a's 2-GPU gang; n1: b's 4-GPU gang. a's 6-GPU pod fits on n0 once b's
// gang there moves to n1; queue c's 16-GPU gang waits too, so the shares follow the weights.
Scenario Weighted(double weight_a, double weight_c) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a", weight_a).Queue("b").Queue("c", weight_c);
  s.Running("left", "b", kNow - 5 * 3600, {{"k0-n0", 4}});
  s.Running("mine", "a", kNow - 5 * 3600, {{"k0-n0", 2}});
  s.Running("right", "b", kNow - 4 * 3600, {{"k0-n1", 4}});
  MovableSinceACheckpoint(s);
  s.Waiting("W", "a", kNow - 2 * 3600, 1, 6);
  s.Waiting("big", "c", kNow - 2 * 3600, 2, 8);
  s.input.now = kNow;
  return s;
}

TEST(Consolidation, IsOnlyForAQueueBelowItsFairShare) {
  Scenario below = Weighted(6, 1);  // a's share: 12 GPUs, it holds 2.
  EXPECT_THAT(VictimNames(below.input, Decide(below, Consolidating())), ElementsAre("left"));
  Scenario at = Weighted(1, 6);  // a's share: 2 GPUs, all of which it holds.
  EXPECT_THAT(Decide(at, Consolidating()).reclaims, IsEmpty());
}

}  // namespace
}  // namespace gangplank::engine::testing
