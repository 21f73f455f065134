// Waiting-time reservations as EASY backfill: the reserved domain is the one expected free soonest
// (declared ends, else as long again as a gang has run), re-judged each round; a gang may start on
// reserved nodes only if it declared a runtime that ends before the reserved gang is expected there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/admission/decision_text.h"
#include "engine/admission/expected_end.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr double kNow = 100000;

AdmissionConfig Reserving(ReservationChoice choice = ReservationChoice::kSoonest) {
  AdmissionConfig c;
  c.reservation.reserve_after_seconds = 3600;
  c.reservation.max_node_fraction = 1;
  c.reservation.choice = choice;
  return c;
}

// Rack k0 runs an old gang (2 GPUs a node, since time 0); rack k1 a young one (4 GPUs a node, 10 min).
// Gang G (two 8-GPU pods) has waited 5 h.
Scenario OldAndYoung() {
  Scenario s(SmallCluster(2, 2));
  s.Queue("a").Queue("b");
  s.Running("old", "b", 0, {{"k0-n0", 2}, {"k0-n1", 2}});
  s.Running("young", "b", kNow - 600, {{"k1-n0", 4}, {"k1-n1", 4}});
  s.Waiting("G", "a", kNow - 5 * 3600, 2, 8);
  s.input.now = kNow;
  return s;
}

std::vector<NodeId> Nodes(const Scenario& s, std::initializer_list<const char*> names) {
  std::vector<NodeId> out;
  for (const char* n : names) out.push_back(s.cluster.Find(n));
  return out;
}

const Blocked& BlockOf(const AdmissionDecision& d, int w) {
  for (const Blocked& b : d.blocked) {
    if (b.waiting == w) return b;
  }
  throw std::invalid_argument("not blocked");
}

TEST(ExpectedEnd, DeclaredWhileAheadElseAsLongAgainAsItRan) {
  RunningGang r;
  r.start = 1000;
  EXPECT_EQ(ExpectedEnd(r, 1600, 3600), 1600 + 3600);   // Young: at least the floor.
  EXPECT_EQ(ExpectedEnd(r, 11000, 3600), 11000 + 10000);  // Ran 10000 s: as long again.
  r.expected_end = 12000;
  EXPECT_EQ(ExpectedEnd(r, 11000, 3600), 12000);
  EXPECT_EQ(ExpectedEnd(r, 13000, 3600), 13000 + 12000);  // Overran its declared end.
}

TEST(RoughDuration, ToTheMinuteBelowADay) {
  EXPECT_EQ(RoughDuration(2 * 3600 + 10 * 60), "~2 h 10 m");
  EXPECT_EQ(RoughDuration(45 * 60 + 10), "~45 m");
  EXPECT_EQ(RoughDuration(3 * 86400 + 4 * 3600 + 600), "~3 d 4 h");
  EXPECT_EQ(RoughDuration(20), "under a minute");
}

TEST(EasyBackfill, ReservesTheRackExpectedFreeSoonestNotTheFreestNow) {
  Scenario s = OldAndYoung();
  AdmissionDecision d = Decide(s, Reserving());
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_THAT(d.reservations[0].nodes, UnorderedElementsAre(s.cluster.Find("k1-n0"), s.cluster.Find("k1-n1")));
  EXPECT_EQ(d.reservations[0].domain, "rack=k1");
  EXPECT_EQ(d.reservations[0].expected_start, kNow + 3600);  // The young gang: the one-hour floor.
  EXPECT_EQ(BlockOf(d, 0).code, BlockCode::kReserved);
  EXPECT_EQ(BlockOf(d, 0).message, "reserved rack=k1 (2 nodes) being drained; expected to start in ~1 h 0 m");
  // The old rules take the rack with the most free GPUs now, under the gang that has run for days.
  d = Decide(s, Reserving(ReservationChoice::kMostFreeNow));
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_THAT(d.reservations[0].nodes, UnorderedElementsAre(s.cluster.Find("k0-n0"), s.cluster.Find("k0-n1")));
}

TEST(EasyBackfill, ADeclaredEndCounts) {
  Scenario s = OldAndYoung();
  s.input.running[0].expected_end = kNow + 300;  // The old gang says it ends in five minutes.
  const AdmissionDecision d = Decide(s, Reserving());
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_EQ(d.reservations[0].domain, "rack=k0");
  EXPECT_EQ(BlockOf(d, 0).message, "reserved rack=k0 (2 nodes) being drained; expected to start in ~5 m");
}

TEST(EasyBackfill, OnlyGangsThatLeaveInTimeStartOnReservedNodes) {
  Scenario s = OldAndYoung();
  s.input.reservations.push_back(HeldReservation{"G", Nodes(s, {"k1-n0", "k1-n1"}), false});
  s.Running("full", "b", kNow - 600, {{"k0-n0", 6}, {"k0-n1", 6}});  // Only k1's nodes have room left.
  s.Waiting("quick", "b", kNow - 60, 1, 4);
  s.Waiting("unknown", "b", kNow - 50, 1, 4);
  s.Waiting("slow", "b", kNow - 40, 1, 4);
  s.input.waiting[1].expected_runtime = 1800;  // Leaves before G is expected (in an hour).
  s.input.waiting[3].expected_runtime = 7200;  // Would still run when G should start.
  const AdmissionDecision d = Decide(s, Reserving());
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("quick"));
  ASSERT_EQ(d.admitted.size(), 1u);
  EXPECT_TRUE(d.admitted[0].on_reserved) << "the caller must hold it to its declared runtime";
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_THAT(d.reservations[0].nodes, UnorderedElementsAre(s.cluster.Find("k1-n0"), s.cluster.Find("k1-n1")));
  EXPECT_EQ(d.reservations[0].expected_start, kNow + 3600);

  s.input.reservations.clear();  // Room of its own: nothing to hold it to.
  const AdmissionDecision free = Decide(s, Reserving());
  ASSERT_FALSE(free.admitted.empty());
  for (const Admitted& a : free.admitted) EXPECT_FALSE(a.on_reserved) << s.input.waiting[a.waiting].request.name;
}

TEST(EasyBackfill, AHeldReservationMovesOnlyWhenAnotherIsReadyMuchSooner) {
  Scenario s = OldAndYoung();
  s.input.reservations.push_back(HeldReservation{"G", Nodes(s, {"k0-n0", "k0-n1"}), false});
  AdmissionDecision d = Decide(s, Reserving());  // k0: ~100000 s left; k1: an hour.
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_EQ(d.reservations[0].domain, "rack=k1");
  EXPECT_EQ(d.reservations[0].reason, "moved the reservation of G to rack=k1, expected ready sooner");
  // The old gang says it ends in 1.5 h: an hour is not under half of that, so the reservation stays.
  s.input.running[0].expected_end = kNow + 5400;
  d = Decide(s, Reserving());
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_EQ(d.reservations[0].domain, "rack=k0");
  EXPECT_EQ(d.reservations[0].expected_start, kNow + 5400);
}

TEST(EasyBackfill, EarmarkedSharesLetSeveralGangsOfAQueueReserve) {
  Scenario s(SmallCluster(2, 2));
  s.Queue("a").Queue("b");
  s.Running("r0", "b", kNow - 600, {{"k0-n0", 1}, {"k0-n1", 1}, {"k1-n0", 1}, {"k1-n1", 1}});
  s.Waiting("G1", "a", kNow - 5 * 3600, 2, 8);
  s.Waiting("G2", "a", kNow - 4 * 3600, 2, 8);
  s.input.now = kNow;
  // Queue a's fair share (28 GPUs: b holds 4) covers the first gang and part of the second.
  AdmissionConfig earmarked = Reserving();
  earmarked.reservation.share = ReservationShare::kEarmarked;
  AdmissionDecision d = Decide(s, earmarked);
  EXPECT_EQ(d.reservations.size(), 2u);
  // Below-share (the default): one gang per queue and pod shape.
  d = Decide(s, Reserving());
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_EQ(d.reservations[0].waiting, 0);
  // A queue whose running and reserved gangs reach its fair share reserves no more.
  s.QueueNamed("b").weight = 3;
  s.Waiting("B", "b", kNow, 4, 8);
  d = Decide(s, earmarked);
  EXPECT_EQ(d.reservations.size(), 1u);
  EXPECT_THAT(d.admitted, IsEmpty());
}

}  // namespace
}  // namespace gangplank::engine::testing
