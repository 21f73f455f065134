// Gang timeouts (a waiting gang past its timeout keeps no reservation) and start timeouts (an admitted
// gang whose members did not all start is released whole).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/admission/admission_round.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using namespace testing;  // The admission fixture (gangplank::engine::testing).

// Queue a fills half of each node; G (two whole nodes) holds a drain reservation on both.
Scenario Draining(double timeout) {
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b").Running("r", "a", 0, {{"k0-n0", 4}, {"k0-n1", 4}});
  s.Waiting("G", "b", 0, 2, 8);
  s.input.waiting[0].timeout = timeout;
  s.input.reservations.push_back(HeldReservation{"G", {s.cluster.Find("k0-n0"), s.cluster.Find("k0-n1")}, false});
  s.input.now = 3600;
  return s;
}

TEST(GangTimeout, ReleasesTheReservationOfAGangThatWaitedTooLong) {
  Scenario s = Draining(1800);
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(d.reservations, IsEmpty());
  ASSERT_EQ(d.blocked.size(), 1u);
  EXPECT_EQ(d.blocked[0].code, BlockCode::kTimedOut);
  EXPECT_EQ(d.blocked[0].message, "waited 30m0s without fitting; reservation released");
  // Before its timeout it keeps the reservation.
  s.input.waiting[0].timeout = 7200;
  const AdmissionDecision kept = Decide(s);
  ASSERT_EQ(kept.reservations.size(), 1u);
  EXPECT_EQ(kept.blocked[0].code, BlockCode::kReserved);
}

TEST(GangTimeout, GetsNoNewReservationOrEvictionsButStillStartsIfItFits) {
  Scenario s = Draining(1800);
  s.input.reservations.clear();
  AdmissionConfig c = WithReclaim();
  c.reservation.reserve_after_seconds = 0;
  c.reservation.max_node_fraction = 1;
  const AdmissionDecision d = Decide(s, c);
  EXPECT_THAT(d.reservations, IsEmpty());
  EXPECT_THAT(d.reclaims, IsEmpty());
  ASSERT_EQ(d.blocked.size(), 1u);
  EXPECT_EQ(d.blocked[0].message, "waited 30m0s without fitting; needs 16 GPUs; the pool has 8 free");
  // Not timed out: the same round reserves nodes for it.
  s.input.waiting[0].timeout = 1e9;
  EXPECT_EQ(Decide(s, c).reservations.size(), 1u);
  // Timed out, but the GPUs are free now: it starts.
  Scenario t = Draining(1800);
  t.cluster.Release(t.input.running[0].allocations[0]);
  t.cluster.Release(t.input.running[0].allocations[1]);
  t.input.running.clear();
  EXPECT_THAT(AdmittedNames(t.input, Decide(t)), ElementsAre("G"));
}

// An 8-pod gang admitted 400 s ago of which 5 members run.
Scenario Starting(bool started) {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Running("S", "a", 9600, {{"k0-n0", 1}, {"k0-n0", 1}, {"k0-n0", 1}, {"k0-n0", 1},
                                        {"k0-n0", 1}, {"k0-n0", 1}, {"k0-n0", 1}, {"k0-n0", 1}});
  s.input.running[0].started = started;
  s.input.running[0].admitted_at = 9600;
  s.input.running[0].members_started = 5;
  s.input.now = 10000;
  return s;
}

TEST(StartTimeout, ReleasesAWholeGangThatDidNotStartInTime) {
  Scenario s = Starting(false);
  AdmissionConfig c;
  c.start_timeout_seconds = 300;
  const AdmissionDecision d = Decide(s, c);
  ASSERT_EQ(d.reclaims.size(), 1u);
  EXPECT_EQ(d.reclaims[0].kind, EvictionKind::kStartTimeout);
  EXPECT_EQ(d.reclaims[0].beneficiary, -1);
  EXPECT_EQ(d.reclaims[0].running, 0);
  EXPECT_EQ(d.reclaims[0].reason,
            "admitted 6m40s ago but 3 of 8 members never started; releasing the whole gang to requeue it");
  EXPECT_EQ(EvictionKindName(EvictionKind::kStartTimeout), "StartTimeout");
}

TEST(StartTimeout, NotBeforeTheTimeoutNorForStartedOrTerminatingGangs) {
  AdmissionConfig c;
  c.start_timeout_seconds = 500;
  Scenario early = Starting(false);
  EXPECT_THAT(Decide(early, c).reclaims, IsEmpty());
  c.start_timeout_seconds = 300;
  Scenario started = Starting(true);
  EXPECT_THAT(Decide(started, c).reclaims, IsEmpty());
  Scenario leaving = Starting(false);
  leaving.input.running[0].terminating = true;
  EXPECT_THAT(Decide(leaving, c).reclaims, IsEmpty());
  Scenario off = Starting(false);  // No start timeout configured.
  EXPECT_THAT(Decide(off).reclaims, IsEmpty());
}

TEST(StartTimeout, DoesNotSpendTheEvictionBudgetAndIsNeverAlsoAVictim) {
  // One stuck gang of a, one running gang of a that reclaim takes for b; a budget of one eviction.
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b").Running("stuck", "a", 0, {{"k0-n0", 8}}).Running("A", "a", 0, {{"k0-n1", 8}});
  s.input.running[0].started = false;
  s.Waiting("B", "b", 0, 1, 8);
  s.input.now = 10000;
  s.input.running[0].last_checkpoint = s.input.running[1].last_checkpoint = 9000;
  AdmissionConfig c = WithReclaim();
  c.start_timeout_seconds = 600;
  c.reclaim.max_victims_per_round = 1;
  const AdmissionDecision d = Decide(s, c);
  EXPECT_THAT(VictimNames(s.input, d), ElementsAre("stuck", "A"));
  EXPECT_EQ(d.reclaims[0].kind, EvictionKind::kStartTimeout);
  EXPECT_EQ(d.reclaims[1].kind, EvictionKind::kReclaim);
}

}  // namespace
}  // namespace gangplank::engine
