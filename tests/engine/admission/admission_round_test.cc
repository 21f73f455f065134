#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "engine/admission/admission_round.h"
#include "engine/gang/gang_plan.h"
#include "engine/gang/gang_planner.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;
using testing::AdmittedNames;
using testing::Decide;
using testing::LeastFreePolicy;
using testing::Scenario;
using testing::SmallCluster;
using testing::VictimNames;
using testing::WithReclaim;

// ---- Order: fair share, then priority, then arrival ----

TEST(AdmissionOrder, QueueFurthestBelowItsFairShareGoesFirst) {
  // Two 8-GPU nodes; a holds one. Demand a 16, b 8 on 16 GPUs: shares 8 and 8. b (0/8) goes before
  // a (8/8) although a's gang arrived earlier; only one node is free.
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b").Running("a-run", "a", 0, {{"k0-n0", 8}});
  s.Waiting("a1", "a", 0, 1, 8).Waiting("b1", "b", 5, 1, 8);
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("b1"));
  EXPECT_THAT(d.fair_shares, ElementsAre(8, 8));
  EXPECT_THAT(d.admitted[0].reason, HasSubstr("queue b holds 0.0 GPUs of its fair share 8.0"));
}

TEST(AdmissionOrder, PriorityThenArrivalWithinAQueue) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Waiting("early-low", "a", 0, 1, 8).Waiting("late-high", "a", 10, 1, 8, 5);
  EXPECT_THAT(AdmittedNames(s.input, Decide(s)), ElementsAre("late-high"));
  Scenario t(SmallCluster(1, 1));
  t.Queue("a").Waiting("second", "a", 10, 1, 8).Waiting("first", "a", 0, 1, 8);
  EXPECT_THAT(AdmittedNames(t.input, Decide(t)), ElementsAre("first"));
}

TEST(AdmissionOrder, RequeuedGangGoesAheadOfItsQueue) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Waiting("first", "a", 0, 1, 8).Waiting("evicted", "a", 50, 1, 8);
  s.input.waiting[1].front = true;
  EXPECT_THAT(AdmittedNames(s.input, Decide(s)), ElementsAre("evicted"));
}

TEST(AdmissionOrder, SharesAreReevaluatedAfterEachAdmission) {
  // Three free nodes, equal weights, nothing held. a's gangs arrived first: a0 wins the tie; then b
  // (0 held) is below a (8 held); then both hold 8 of 24 and arrival decides: a1 before b1.
  Scenario s(SmallCluster(1, 3));
  s.Queue("a").Queue("b");
  s.Waiting("a0", "a", 0, 1, 8).Waiting("a1", "a", 1, 1, 8).Waiting("a2", "a", 2, 1, 8);
  s.Waiting("b0", "b", 3, 1, 8).Waiting("b1", "b", 4, 1, 8).Waiting("b2", "b", 5, 1, 8);
  EXPECT_THAT(AdmittedNames(s.input, Decide(s)), ElementsAre("a0", "b0", "a1"));
}

TEST(AdmissionOrder, BackfillsPastAGangThatDoesNotFitAndHonoursLimits) {
  // One node with 4 GPUs free: the 8-GPU gang cannot start, the later 4-GPU gang can (backfill).
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Running("r", "a", 0, {{"k0-n0", 4}});
  s.Waiting("big", "a", 0, 1, 8).Waiting("small", "a", 1, 1, 4);
  EXPECT_THAT(AdmittedNames(s.input, Decide(s)), ElementsAre("small"));
  // With a limit of 6 GPUs, a (holding 4) may not start 4 more.
  s.input.queues[0].limit = 6;
  EXPECT_TRUE(Decide(s).admitted.empty());
}

TEST(AdmissionOrder, NoBackfillPastAStarvingGangOfTheSameQueue) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Queue("b").Running("r", "a", 0, {{"k0-n0", 4}});
  s.Waiting("big", "a", 0, 1, 8).Waiting("small", "a", 1, 1, 2).Waiting("other", "b", 2, 1, 2);
  s.input.now = 7200;
  AdmissionConfig c;
  c.no_backfill_after_seconds = 3600;
  // big has waited 2 h: a's small gang waits behind it; b's gang still backfills.
  EXPECT_THAT(AdmittedNames(s.input, Decide(s, c)), ElementsAre("other"));
}

TEST(AdmissionInputErrors, MalformedGangsAreSkippedAndNamedQueuesMustBeUnique) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Waiting("lost", "nope", 0, 1, 1).Waiting("ok", "a", 1, 1, 1);
  s.Waiting("empty", "a", 2, 0, 1);
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("ok"));
  ASSERT_EQ(d.errors.size(), 2u);
  EXPECT_THAT(d.errors[0], HasSubstr("names queue 'nope'"));
  EXPECT_THAT(d.errors[1], HasSubstr("empty has no members"));
  s.Queue("a");
  EXPECT_THROW(Decide(s), std::invalid_argument);
}

// A gang whose controller is making its pods again keeps the nodes it left: a gang waiting meanwhile
// takes the other node, not those; once the nodes are no longer held it may.
TEST(ReturningGangs, NodesHeldForAGangOnItsWayBackTakeNoOtherGang) {
  Scenario s(SmallCluster(1, 3));
  s.Queue("a");
  s.Waiting("later", "a", 0, 2, 8);
  s.input.returning_nodes = {s.cluster.Find("k0-n0"), s.cluster.Find("k0-n1")};
  AdmissionDecision d = Decide(s);
  EXPECT_TRUE(d.admitted.empty()) << "two pods placed on one free node and two held ones";
  s.Waiting("small", "a", 1, 1, 8);
  d = Decide(s);
  ASSERT_THAT(AdmittedNames(s.input, d), ElementsAre("small"));
  EXPECT_EQ(s.cluster.spec(d.admitted[0].plan.allocations[0].allocation.node).name, "k0-n2");
  EXPECT_FALSE(s.cluster.spec(s.cluster.Find("k0-n0")).unschedulable) << "the round's cordon leaked into the model";
  s.input.returning_nodes.clear();
  s.input.waiting.pop_back();
  EXPECT_THAT(AdmittedNames(s.input, Decide(s)), ElementsAre("later"));
}

TEST(AdmissionInputErrors, RepeatedGangNamesAreRefusedWhenReservationsNeedThem) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Waiting("same", "a", 0, 1, 8).Waiting("same", "a", 1, 1, 8);
  s.input.reservations.push_back(HeldReservation{"same", {s.cluster.Find("k0-n0")}, false});
  const AdmissionDecision d = Decide(s);
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_THAT(d.errors[0], HasSubstr("gang name same is used twice"));
  // The first keeps its reservation and starts on it; the repeated one is skipped.
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("same"));
  EXPECT_EQ(d.admitted[0].waiting, 0);
}

TEST(AdmissionRound, LeavesTheCallersModelUnchanged) {
  Scenario s(SmallCluster(2, 2));
  s.Queue("a").Queue("b").Running("r", "a", 0, {{"k0-n0", 8}, {"k0-n1", 8}, {"k1-n0", 8}});
  s.Waiting("w", "b", 0, 2, 8).Waiting("x", "b", 1, 1, 8);
  s.input.now = 10000;
  s.input.reservations.push_back(HeldReservation{"w", {s.cluster.Find("k1-n1")}, false});
  const std::int64_t before = s.cluster.allocated_gpu_milli();
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_FALSE(d.reclaims.empty());
  EXPECT_EQ(s.cluster.allocated_gpu_milli(), before);
  for (NodeId n = 0; n < s.cluster.size(); ++n) EXPECT_FALSE(s.cluster.spec(n).unschedulable);
}

// ---- Reclaim ----

// Two 8-GPU nodes in one rack. Queue a runs A1 (4 GPUs on each node), A2 (4 on n0), A3 (4 on n1).
// Queue b waits with one 8-GPU gang. Shares: a 8, b 8; a holds 16.
Scenario ReclaimScenario(double a_guarantee = 0) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a", 1, a_guarantee).Queue("b");
  s.Running("A1", "a", 0, {{"k0-n0", 4}, {"k0-n1", 4}});  // Lost at 10000: 8 x 10000.
  s.Running("A2", "a", 5000, {{"k0-n0", 4}});             // 4 x 5000: cheapest.
  s.Running("A3", "a", 1000, {{"k0-n1", 4}});             // 4 x 9000.
  s.Waiting("B", "b", 100, 1, 8);
  s.input.now = 10000;
  return s;
}

TEST(Reclaim, EvictsWholeGangsWithTheLeastLostWorkThatMakeRoom) {
  Scenario s = ReclaimScenario();
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_TRUE(d.admitted.empty());
  // Freeing n0 takes A2 and A1 (20,000 + 80,000 GPU-s); freeing n1 takes A3 and A1 (116,000).
  EXPECT_THAT(VictimNames(s.input, d), UnorderedElementsAre("A1", "A2"));
  for (const Reclaimed& r : d.reclaims) {
    EXPECT_EQ(s.input.waiting[r.beneficiary].request.name, "B");
    EXPECT_THAT(r.reason, HasSubstr("so that B"));
    EXPECT_THAT(r.reason, HasSubstr("queue a holds"));
  }
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_TRUE(d.reservations[0].for_reclaim);
  EXPECT_THAT(d.reservations[0].nodes, ElementsAre(s.cluster.Find("k0-n0")));

  // Apply: evict every allocation of each victim (whole gangs), then the next round starts B on its
  // reservation and keeps a's requeued gang off it.
  std::vector<RunningGang> running;
  for (size_t i = 0; i < s.input.running.size(); ++i) {
    const bool victim = std::any_of(d.reclaims.begin(), d.reclaims.end(),
                                    [&](const Reclaimed& r) { return r.running == static_cast<int>(i); });
    if (victim) {
      for (const Allocation& a : s.input.running[i].allocations) s.cluster.Release(a);
    } else {
      running.push_back(s.input.running[i]);
    }
  }
  s.input.running = running;
  s.input.reservations = {HeldReservation{"B", d.reservations[0].nodes, true}};
  s.Waiting("A2-again", "a", 0, 1, 4);
  s.input.waiting.back().front = true;
  const AdmissionDecision next = Decide(s, WithReclaim());
  ASSERT_EQ(next.admitted.size(), 2u);
  EXPECT_EQ(s.input.waiting[next.admitted[0].waiting].request.name, "B");
  EXPECT_EQ(next.admitted[0].plan.allocations[0].allocation.node, s.cluster.Find("k0-n0"));
  EXPECT_EQ(next.admitted[1].plan.allocations[0].allocation.node, s.cluster.Find("k0-n1"));
  EXPECT_TRUE(next.reservations.empty());
}

TEST(Reclaim, NeverBelowAGuarantee) {
  // a's guarantee of 12 leaves only 4 GPUs reclaimable: one 4-GPU gang, which frees no whole node.
  Scenario s = ReclaimScenario(12);
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_TRUE(d.reclaims.empty());
  ASSERT_EQ(d.refused.size(), 1u);
  EXPECT_THAT(d.refused[0].reason, HasSubstr("would not free room"));
}

TEST(Reclaim, RespectsTheMinimumRuntime) {
  Scenario s = ReclaimScenario();
  AdmissionConfig c = WithReclaim();
  c.reclaim.min_runtime_seconds = 6000;  // A2 (run 5000 s) may not go; A1 and A3 do not free a node alone.
  const AdmissionDecision d = Decide(s, c);
  EXPECT_THAT(VictimNames(s.input, d), UnorderedElementsAre("A1", "A3"));
  c.reclaim.min_runtime_seconds = 20000;
  const AdmissionDecision none = Decide(s, c);
  EXPECT_TRUE(none.reclaims.empty());
  ASSERT_EQ(none.refused.size(), 1u);
  EXPECT_THAT(none.refused[0].reason, HasSubstr("minimum runtime"));
}

TEST(Reclaim, RespectsTheBudgetPerRoundAndPerWindow) {
  Scenario s = ReclaimScenario();
  AdmissionConfig c = WithReclaim();
  c.reclaim.max_victims_per_round = 1;  // Two victims are needed.
  EXPECT_TRUE(Decide(s, c).reclaims.empty());
  c = WithReclaim();
  s.input.recent_evictions = {9000, 9500, 9900, 9950, 9990, 9999, 9999};  // 7 of 8 within the hour.
  const AdmissionDecision d = Decide(s, c);
  EXPECT_TRUE(d.reclaims.empty());
  s.input.recent_evictions.push_back(9999);
  const AdmissionDecision spent = Decide(s, c);
  ASSERT_EQ(spent.refused.size(), 1u);
  EXPECT_THAT(spent.refused[0].reason, HasSubstr("budget"));
  s.input.recent_evictions = {1000, 2000, 3000, 4000, 5000, 6000};  // Outside the window: do not count.
  EXPECT_EQ(Decide(s, c).reclaims.size(), 2u);
}

TEST(Reclaim, PicksTheLeastLostWorkCountingCheckpoints) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b");
  s.Running("old", "a", 0, {{"k0-n0", 8}});
  s.Running("young", "a", 6000, {{"k0-n1", 8}});
  s.Waiting("B", "b", 0, 1, 8);
  s.input.now = 10000;
  EXPECT_THAT(VictimNames(s.input, Decide(s, WithReclaim())), ElementsAre("young"));
  s.input.running[0].last_checkpoint = 9000;  // old loses 1000 s x 8 GPUs, young 4000 s x 8.
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_THAT(VictimNames(s.input, d), ElementsAre("old"));
  EXPECT_DOUBLE_EQ(d.reclaims[0].lost_gpu_seconds, 8000);
  EXPECT_THAT(d.reclaims[0].reason, HasSubstr("since its last checkpoint"));
}

TEST(Reclaim, NeverEvictsAGangThatWouldLoseMoreThanTheCap) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b");
  s.Running("old", "a", 0, {{"k0-n0", 8}});      // Would lose 80,000 GPU-s.
  s.Running("young", "a", 6000, {{"k0-n1", 8}});  // Would lose 32,000 GPU-s.
  s.Waiting("B", "b", 0, 1, 8);
  s.input.now = 10000;
  AdmissionConfig c = WithReclaim();
  c.reclaim.max_lost_gpu_seconds = 40000;
  EXPECT_THAT(VictimNames(s.input, Decide(s, c)), ElementsAre("young"));
  s.input.running[1].start = 0;  // Now both would lose 80,000.
  const AdmissionDecision d = Decide(s, c);
  EXPECT_TRUE(d.reclaims.empty());
  ASSERT_EQ(d.refused.size(), 1u);
  EXPECT_THAT(d.refused[0].reason, HasSubstr("lost-work cap"));
}

// Review (issue 31): a gang that never declares a checkpoint loses its whole runtime when evicted, so past
// the cap it could never be reclaimed, and a queue's guarantee was no promise. For a queue below its
// guarantee the cap does not apply; above it, the cap holds as before.
TEST(Reclaim, AQueueBelowItsGuaranteeReclaimsAGangPastTheLostWorkCap) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b", 1, 8);
  s.Running("old", "a", 0, {{"k0-n0", 8}});  // Both would lose 80,000 GPU-s: no checkpoint declared.
  s.Running("older", "a", 0, {{"k0-n1", 8}});
  s.Waiting("B", "b", 0, 1, 8);
  s.input.now = 10000;
  AdmissionConfig c = WithReclaim();
  c.reclaim.max_lost_gpu_seconds = 40000;
  const AdmissionDecision owed = Decide(s, c);
  ASSERT_EQ(owed.reclaims.size(), 1u) << "b holds nothing of its guaranteed 8";
  EXPECT_DOUBLE_EQ(owed.reclaims[0].lost_gpu_seconds, 80000);

  s.input.queues[1].guaranteed = 0;  // Only its fair share now: the cap shields both again.
  const AdmissionDecision shared = Decide(s, c);
  EXPECT_TRUE(shared.reclaims.empty());
  ASSERT_EQ(shared.refused.size(), 1u);
  EXPECT_THAT(shared.refused[0].reason, HasSubstr("lost-work cap"));
}

// Review (issue 31): GPU pods of another scheduler, or bound at creation, held GPUs no queue was charged
// for. Charged to their namespace's queue as an ungoverned entry, they count against its limit and share,
// and are never evicted: not for reclaim, priority preemption or as idle.
TEST(Reclaim, UngovernedPodsCountAgainstTheirQueueAndAreNeverVictims) {
  Scenario limited(SmallCluster(1, 2));
  limited.Queue("a");
  limited.input.queues.back().limit = 8;
  limited.Running("system", "a", 0, {{"k0-n0", 8}});
  limited.input.running.back().ungoverned = true;
  limited.Waiting("A", "a", 0, 1, 8);
  EXPECT_TRUE(Decide(limited, WithReclaim()).admitted.empty()) << "a's 8 GPUs are held by its namespace's pods";

  // `system` (idle, young, little work to lose) is the victim every rule would pick first, were it a gang.
  auto contest = [](bool ungoverned, const std::string& waiting_queue) {
    Scenario s(SmallCluster(1, 2));
    s.Queue("a").Queue("b", 1, 8);
    s.input.queues[0].preempt_lower_priority = true;
    s.Running("system", "a", 9000, {{"k0-n0", 8}});
    s.input.running.back().ungoverned = ungoverned;
    s.input.running.back().idle_preemptible = true;
    s.Running("other", "a", 0, {{"k0-n1", 8}});
    s.Waiting("W", waiting_queue, 0, 1, 8, 5);
    s.input.now = 10000;
    AdmissionConfig c = WithReclaim();
    c.reclaim.min_runtime_seconds = 0;
    return VictimNames(s.input, Decide(s, c));
  };
  EXPECT_THAT(contest(false, "b"), ElementsAre("system"));
  EXPECT_THAT(contest(true, "b"), ElementsAre("other")) << "reclaim for b's guarantee";
  EXPECT_THAT(contest(false, "a"), ElementsAre("system"));
  EXPECT_THAT(contest(true, "a"), ElementsAre("other")) << "priority preemption within a";
}

TEST(Reclaim, RefusesWhenEvictionWouldNotHelp) {
  // b needs two whole nodes; only a's node may be taken (c's guarantee of 8 is its share). Evicting a
  // would free one node for nothing, so nothing is evicted.
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b").Queue("c", 1, 8);
  s.Running("A", "a", 0, {{"k0-n0", 8}});
  s.Running("C", "c", 0, {{"k0-n1", 8}});
  s.Waiting("B", "b", 0, 2, 8);
  s.input.now = 10000;
  const AdmissionDecision d = Decide(s, WithReclaim());
  EXPECT_TRUE(d.reclaims.empty());
  ASSERT_EQ(d.refused.size(), 1u);
  // And a gang no node can ever take (a GPU model the pool lacks) evicts nothing either.
  Scenario t = ReclaimScenario();
  t.input.waiting[0].request.members[0].gpu_models = {"H100"};
  EXPECT_TRUE(Decide(t, WithReclaim()).reclaims.empty());
}

TEST(Reclaim, WaitsForTheMinimumWaitAndOnlyForQueuesBelowTheirShare) {
  Scenario s = ReclaimScenario();
  AdmissionConfig c = WithReclaim();
  c.reclaim.min_wait_seconds = 20000;  // B waited 9900 s.
  EXPECT_TRUE(Decide(s, c).reclaims.empty());
  // A gang of the queue above its share never reclaims.
  Scenario t = ReclaimScenario();
  t.input.waiting[0].request.queue = "a";
  EXPECT_TRUE(Decide(t, WithReclaim()).reclaims.empty());
  // Reclaim off: nothing.
  EXPECT_TRUE(Decide(s).reclaims.empty());
}

}  // namespace
}  // namespace gangplank::engine
