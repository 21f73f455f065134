// Backfill on a predicted runtime: a gang without a declared runtime starts on nodes reserved for
// another when gangs like it ran short enough; a declared runtime wins; a backfilled gang that overstays
// is ended whole once the reserved gang could otherwise start, outside the eviction budget; a predicted
// end places the reservation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/admission/expected_end.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr double kNow = 100000;

AdmissionConfig Reserving() {
  AdmissionConfig c;
  c.reservation.reserve_after_seconds = 3600;
  c.reservation.max_node_fraction = 1;
  return c;
}

// Rack k0 is full; rack k1 runs a young gang (4 GPUs a node, 10 min) and is reserved for G (two 8-GPU
// pods), expected to start there in an hour (the floor). Queue b's 4-GPU gangs wait.
Scenario ReservedRack() {
  Scenario s(SmallCluster(2, 2));
  s.Queue("a").Queue("b");
  s.Running("full", "b", kNow - 600, {{"k0-n0", 8}, {"k0-n1", 8}});
  s.Running("young", "b", kNow - 600, {{"k1-n0", 4}, {"k1-n1", 4}});
  s.Waiting("G", "a", kNow - 5 * 3600, 2, 8);
  s.input.now = kNow;
  s.input.reservations.push_back(HeldReservation{"G", {s.cluster.Find("k1-n0"), s.cluster.Find("k1-n1")}, false});
  return s;
}

TEST(PredictedBackfill, AGangPredictedToLeaveInTimeStartsOnReservedNodes) {
  Scenario s = ReservedRack();
  s.Waiting("quick", "b", kNow - 60, 1, 4);
  s.Waiting("slow", "b", kNow - 50, 1, 4);
  s.input.waiting[1].predicted_runtime = 1800;
  s.input.waiting[2].predicted_runtime = 7200;
  const AdmissionDecision d = Decide(s, Reserving());
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("quick"));
  ASSERT_EQ(d.admitted.size(), 1u);
  EXPECT_TRUE(d.admitted[0].on_reserved);
  EXPECT_TRUE(d.admitted[0].by_prediction) << "the caller must hold it to its predicted runtime";
  EXPECT_EQ(d.next_wakeup, kNow + 1800) << "the round must look again when it should have left";
}

TEST(PredictedBackfill, ADeclaredRuntimeWinsOverAPrediction) {
  Scenario s = ReservedRack();
  s.Waiting("declares-long", "b", kNow - 60, 1, 4);
  s.input.waiting[1].predicted_runtime = 600;
  s.input.waiting[1].expected_runtime = 7200;
  EXPECT_THAT(AdmittedNames(s.input, Decide(s, Reserving())), IsEmpty());
  s.input.waiting[1].expected_runtime = 1200;
  s.input.waiting[1].predicted_runtime = 7200;
  const AdmissionDecision d = Decide(s, Reserving());
  ASSERT_EQ(d.admitted.size(), 1u);
  EXPECT_TRUE(d.admitted[0].on_reserved);
  EXPECT_FALSE(d.admitted[0].by_prediction) << "held to its declared runtime, not a prediction";
}

TEST(PredictedBackfill, AnOverstayingBackfillIsEndedOnceTheReservedGangCouldStart) {
  Scenario s(SmallCluster(2, 2));
  s.Queue("a").Queue("b");
  s.Running("full", "b", kNow - 600, {{"k0-n0", 8}, {"k0-n1", 8}});
  s.Running("late", "b", kNow - 7200, {{"k1-n0", 4}});
  s.input.running[1].leave_by = kNow - 600;  // Was to leave ten minutes ago.
  s.Waiting("G", "a", kNow - 5 * 3600, 2, 8);
  s.input.now = kNow;
  s.input.reservations.push_back(HeldReservation{"G", {s.cluster.Find("k1-n0"), s.cluster.Find("k1-n1")}, false});
  AdmissionConfig config = Reserving();
  config.reclaim.max_victims_per_round = 0;  // Not a victim: the budget does not apply.
  const AdmissionDecision d = Decide(s, config);
  ASSERT_EQ(d.reclaims.size(), 1u);
  EXPECT_EQ(d.reclaims[0].running, 1);
  EXPECT_EQ(d.reclaims[0].beneficiary, 0);
  EXPECT_EQ(d.reclaims[0].kind, EvictionKind::kBackfillOverrun);
  EXPECT_EQ(EvictionKindName(d.reclaims[0].kind), "BackfillOverrun");
  EXPECT_FALSE(Budgeted(d.reclaims[0].kind));
  EXPECT_EQ(d.reclaims[0].reason,
            "started on nodes reserved for G, expected to leave within ~1 h 50 m like gangs of its kind; it has run "
            "~2 h 0 m and G can start once it leaves: ending the whole gang to requeue it in its place");
  EXPECT_THAT(AdmittedNames(s.input, d), IsEmpty()) << "its GPUs are held until its pods are gone";
}

TEST(PredictedBackfill, AnOverstayingBackfillRunsOnWhileTheReservationWaitsForOthers) {
  Scenario s(SmallCluster(2, 2));
  s.Queue("a").Queue("b");
  s.Running("full", "b", kNow - 600, {{"k0-n0", 8}, {"k0-n1", 8}});
  s.Running("late", "b", kNow - 7200, {{"k1-n0", 4}});
  s.Running("other", "b", kNow - 600, {{"k1-n1", 2}});  // Still on the reserved rack, not late.
  s.input.running[1].leave_by = kNow - 600;
  s.Waiting("G", "a", kNow - 5 * 3600, 2, 8);
  s.input.now = kNow;
  s.input.reservations.push_back(HeldReservation{"G", {s.cluster.Find("k1-n0"), s.cluster.Find("k1-n1")}, false});
  EXPECT_THAT(Decide(s, Reserving()).reclaims, IsEmpty());
}

TEST(PredictedBackfill, AGangNotYetPastItsTimeIsLeftAlone) {
  Scenario s(SmallCluster(2, 2));
  s.Queue("a").Queue("b");
  s.Running("full", "b", kNow - 600, {{"k0-n0", 8}, {"k0-n1", 8}});
  s.Running("early", "b", kNow - 600, {{"k1-n0", 4}});
  s.input.running[1].leave_by = kNow + 600;
  s.Waiting("G", "a", kNow - 5 * 3600, 2, 8);
  s.input.now = kNow;
  s.input.reservations.push_back(HeldReservation{"G", {s.cluster.Find("k1-n0"), s.cluster.Find("k1-n1")}, false});
  const AdmissionDecision d = Decide(s, Reserving());
  EXPECT_THAT(d.reclaims, IsEmpty());
  EXPECT_LE(d.next_wakeup, kNow + 600);
}

TEST(PredictedBackfill, APredictedEndComesAfterADeclaredOneAndBeforeAsLongAgain) {
  RunningGang r;
  r.start = 1000;
  r.predicted_end = 5000;
  EXPECT_EQ(ExpectedEnd(r, 2000, 3600), 5000);
  r.expected_end = 3000;
  EXPECT_EQ(ExpectedEnd(r, 2000, 3600), 3000);            // Declared first.
  EXPECT_EQ(ExpectedEnd(r, 4000, 3600), 5000);            // Past the declared end: the prediction.
  EXPECT_EQ(ExpectedEnd(r, 6000, 3600), 6000 + 5000);     // Past both: as long again.
}

}  // namespace
}  // namespace gangplank::engine::testing
