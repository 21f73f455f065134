// Incremental rounds: plan_only and caller-kept holdings, and the rule for when a full round is needed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "engine/admission/admission_round.h"
#include "engine/admission/round_scope.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using namespace testing;  // The admission fixture (gangplank::engine::testing).

TEST(NeedsFullRound, EverySignalAndTimeRule) {
  ScopeSignals quiet;
  quiet.now = 100;
  quiet.last_full_round = 90;
  quiet.next_wakeup = 200;
  EXPECT_FALSE(NeedsFullRound(quiet));
  for (bool ScopeSignals::*flag : {&ScopeSignals::capacity_freed, &ScopeSignals::queues_changed,
                                   &ScopeSignals::running_changed, &ScopeSignals::demand_fell}) {
    ScopeSignals s = quiet;
    s.*flag = true;
    EXPECT_TRUE(NeedsFullRound(s));
  }
  ScopeSignals due = quiet;
  due.next_wakeup = 100;
  EXPECT_TRUE(NeedsFullRound(due));
  ScopeSignals stale = quiet;
  stale.last_full_round = 40;
  EXPECT_TRUE(NeedsFullRound(stale));
  EXPECT_TRUE(NeedsFullRound(ScopeSignals{}));  // Never a full round yet.
  ScopeSignals nan = quiet;
  nan.next_wakeup = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(NeedsFullRound(nan));
}

// Queue a holds one node of three; gangs old1 (two nodes) and old2 (three nodes) have waited; new (one
// node) just arrived.
Scenario Waiting() {
  Scenario s(SmallCluster(1, 3));
  s.Queue("a").Queue("b").Running("r", "a", 0, {{"k0-n0", 8}});
  s.Waiting("old1", "b", 0, 3, 8).Waiting("old2", "a", 0, 3, 8).Waiting("new", "b", 50, 1, 8);
  s.input.now = 100;
  return s;
}

TEST(IncrementalRound, PlansOnlyTheListedGangsAndReportsTheOthers) {
  Scenario s = Waiting();
  const AdmissionDecision full = Decide(s);
  s.input.plan_only = std::vector<int>{2};
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("new"));
  EXPECT_EQ(AdmittedNames(s.input, d), AdmittedNames(s.input, full));
  EXPECT_EQ(d.fair_shares, full.fair_shares) << "gangs not planned still count for demand";
  ASSERT_EQ(d.blocked.size(), 2u);
  for (const Blocked& b : d.blocked) {
    EXPECT_EQ(b.code, BlockCode::kNotReplanned);
    EXPECT_EQ(b.message, "");  // The caller keeps the reason its last full round gave.
  }
  EXPECT_EQ(full.blocked[0].code, BlockCode::kInsufficientGpus);
}

TEST(IncrementalRound, GangsHoldingReservationsArePlannedAnyway) {
  Scenario s = Waiting();
  s.input.reservations.push_back(HeldReservation{"old1", {s.cluster.Find("k0-n1")}, false});
  s.input.waiting[0].request.members.resize(1);  // old1 now fits its reserved node.
  s.input.plan_only = std::vector<int>{};
  const AdmissionDecision d = Decide(s);
  EXPECT_THAT(AdmittedNames(s.input, d), ElementsAre("old1"));
  ASSERT_EQ(d.blocked.size(), 2u);
  EXPECT_EQ(d.blocked[1].code, BlockCode::kNotReplanned);
}

TEST(IncrementalRound, OnlyListedGangsBenefitFromEvictions) {
  // b is below its share and B has waited long enough: a full round reclaims for it; an incremental
  // round listing only another gang does not.
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b").Running("A0", "a", 0, {{"k0-n0", 8}}).Running("A1", "a", 100, {{"k0-n1", 8}});
  s.Waiting("B", "b", 0, 1, 8).Waiting("C", "a", 0, 1, 8);
  s.input.now = 10000;
  EXPECT_THAT(VictimNames(s.input, Decide(s, WithReclaim())), ElementsAre("A1"));
  s.input.plan_only = std::vector<int>{1};
  EXPECT_THAT(Decide(s, WithReclaim()).reclaims, IsEmpty());
  s.input.plan_only = std::vector<int>{0};
  EXPECT_THAT(VictimNames(s.input, Decide(s, WithReclaim())), ElementsAre("A1"));
}

TEST(IncrementalRound, UsesTheHoldingsTheCallerKeeps) {
  Scenario s = Waiting();
  EXPECT_THAT(HeldByQueue(s.input), ElementsAre(8, 0));
  const AdmissionDecision summed = Decide(s);
  s.input.held = HeldByQueue(s.input);
  const AdmissionDecision kept = Decide(s);
  EXPECT_EQ(kept.held, summed.held);
  EXPECT_EQ(kept.fair_shares, summed.fair_shares);
  EXPECT_EQ(AdmittedNames(s.input, kept), AdmittedNames(s.input, summed));
  // The round believes the caller, not `running` (which it does not sum when held is given).
  s.input.held = std::vector<double>{0, 16};
  EXPECT_THAT(Decide(s).held, ElementsAre(0, 16));
}

TEST(IncrementalRound, MalformedScopeOrHoldingsThrow) {
  Scenario s = Waiting();
  s.input.plan_only = std::vector<int>{3};
  EXPECT_THROW(Decide(s), std::invalid_argument);
  s.input.plan_only = std::vector<int>{-1};
  EXPECT_THROW(Decide(s), std::invalid_argument);
  s.input.plan_only.reset();
  s.input.held = std::vector<double>{8};
  EXPECT_THROW(Decide(s), std::invalid_argument);
  s.input.held = std::vector<double>{8, -1};
  EXPECT_THROW(Decide(s), std::invalid_argument);
}

TEST(IncrementalRound, StartTimeoutsWaitForAFullRound) {
  Scenario s = Waiting();
  s.input.running[0].started = false;
  AdmissionConfig c;
  c.start_timeout_seconds = 10;
  EXPECT_EQ(Decide(s, c).reclaims.size(), 1u);
  s.input.plan_only = std::vector<int>{2};
  EXPECT_THAT(Decide(s, c).reclaims, IsEmpty());
}

}  // namespace
}  // namespace gangplank::engine
