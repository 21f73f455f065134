// The decision's next_wakeup: the earliest time after now at which a time-based rule could change the
// outcome, each rule on its own, and NextWakeup for a caller that skips a round.
#include "engine/admission/next_wakeup.h"

#include <gtest/gtest.h>

#include <limits>

#include "engine/admission/admission_round.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using namespace testing;  // The admission fixture (gangplank::engine::testing).

constexpr double kNever = std::numeric_limits<double>::infinity();

// One full node held by queue a since 500; gang w of queue b (one node) arrived at 100; now 1000.
Scenario Full() {
  Scenario s(SmallCluster(1, 1));
  s.Queue("a").Queue("b").Running("r", "a", 500, {{"k0-n0", 8}});
  s.Waiting("w", "b", 100, 1, 8);
  s.input.now = 1000;
  return s;
}

AdmissionConfig Reclaiming() {
  AdmissionConfig c;
  c.reclaim.enabled = true;
  c.reclaim.min_wait_seconds = 3600;     // w may reclaim at 3700.
  c.reclaim.min_runtime_seconds = 7200;  // r may be a victim at 7700.
  return c;
}

TEST(NextWakeup, NothingTimeBasedMeansNever) {
  Scenario s = Full();
  EXPECT_EQ(Decide(s).next_wakeup, kNever);
  EXPECT_EQ(NextWakeup(s.input, AdmissionConfig{}), kNever);
}

TEST(NextWakeup, EachRuleOnItsOwn) {
  Scenario s = Full();
  EXPECT_EQ(Decide(s, Reclaiming()).next_wakeup, 3700);  // Reclaim's minimum wait.
  AdmissionConfig c = Reclaiming();
  c.reclaim.min_wait_seconds = 0;
  EXPECT_EQ(Decide(s, c).next_wakeup, 7700);  // The running gang passes its minimum runtime.
  s.QueueNamed("a").min_runtime_seconds = 400;
  // r passed its queue's minimum at 900 and is reclaimed now: its eviction leaves the window at 4600.
  EXPECT_EQ(Decide(s, c).next_wakeup, 4600);
  s.input.recent_evictions = {800};
  EXPECT_EQ(Decide(s, c).next_wakeup, 4400);  // The eviction leaves the budget's window.
  AdmissionConfig r;
  r.reservation.reserve_after_seconds = 1800;
  EXPECT_EQ(Decide(s, r).next_wakeup, 1900);  // Waiting-time reservation.
  AdmissionConfig b;
  b.no_backfill_after_seconds = 5000;
  EXPECT_EQ(Decide(s, b).next_wakeup, 5100);  // No backfill past it.
  s.input.waiting[0].timeout = 2000;
  EXPECT_EQ(Decide(s).next_wakeup, 2100);  // Its timeout.
  s.input.waiting[0].timeout = 500;
  EXPECT_EQ(Decide(s).next_wakeup, kNever);  // Passed already.
}

TEST(NextWakeup, VictimRuntimesCountWhenTheQueuePreemptsEvenWithoutReclaim) {
  Scenario s = Full();
  s.QueueNamed("a").preempt_lower_priority = true;
  EXPECT_EQ(Decide(s).next_wakeup, 500 + 3600);
}

TEST(NextWakeup, StartTimeoutsCountEvenWhenNothingWaits) {
  Scenario s = Full();
  s.input.waiting.clear();
  s.input.running[0].started = false;
  s.input.running[0].admitted_at = 900;
  AdmissionConfig c = Reclaiming();
  c.start_timeout_seconds = 600;
  EXPECT_EQ(Decide(s, c).next_wakeup, 1500);
  EXPECT_EQ(NextWakeup(s.input, c), 1500);
  s.input.running[0].started = true;
  EXPECT_EQ(Decide(s, c).next_wakeup, kNever);  // Nothing waits: victim runtimes do not matter.
}

TEST(NextWakeup, CountsWhatTheDecisionDoes) {
  // w starts now (1000) on a free node: its minimum runtime (reclaim on) and start timeout count; a
  // gang admitted now is no longer waiting, so its wait thresholds do not.
  Scenario s(SmallCluster(1, 2));
  s.Queue("a").Queue("b").Running("r", "a", 500, {{"k0-n0", 8}}).Waiting("w", "b", 100, 1, 8);
  s.Waiting("big", "b", 200, 2, 8);
  s.input.now = 1000;
  AdmissionConfig c = Reclaiming();
  c.reclaim.min_wait_seconds = 5000;  // big may reclaim at 5200.
  c.reclaim.min_runtime_seconds = 3000;
  c.start_timeout_seconds = 300;
  AdmissionDecision d = Decide(s, c);
  ASSERT_EQ(d.admitted.size(), 1u);
  EXPECT_EQ(d.next_wakeup, 1300);  // w's start timeout.
  c.start_timeout_seconds = kNever;
  EXPECT_EQ(Decide(s, c).next_wakeup, 3500);  // r passes its minimum runtime.
  // An eviction made now leaves the window an hour later.
  Scenario t = Full();
  t.input.now = 20000;
  AdmissionConfig e = Reclaiming();
  e.reclaim.max_lost_gpu_seconds = kNever;
  e.reclaim.min_runtime_seconds = 100;
  t.Waiting("w2", "b", 19990, 1, 8);  // w waits past reclaim's minimum, w2 reaches it at 23590.
  d = Decide(t, e);
  ASSERT_EQ(d.reclaims.size(), 1u);
  EXPECT_EQ(d.next_wakeup, 23590);
  e.reclaim.window_seconds = 1000;
  EXPECT_EQ(Decide(t, e).next_wakeup, 21000);
}

TEST(NextWakeup, TheStandaloneFunctionMatchesARoundThatDecidesNothing) {
  Scenario s = Full();
  s.input.recent_evictions = {900, 100};
  s.Waiting("x", "b", 700, 1, 8);
  AdmissionConfig c = Reclaiming();
  c.reservation.reserve_after_seconds = 4000;
  const AdmissionDecision d = Decide(s, c);
  ASSERT_TRUE(d.admitted.empty() && d.reclaims.empty());
  EXPECT_EQ(d.next_wakeup, NextWakeup(s.input, c));
  EXPECT_EQ(d.next_wakeup, 3700);
}

TEST(NextWakeup, AnIncrementalRoundCountsWhatItLookedAt) {
  // w (arrived 100) reaches reclaim's minimum wait at 3700, x (arrived 900) at 4500; r passes its
  // minimum runtime at 7700. Planning x alone reports x's time; the last full round reported 3700.
  Scenario s = Full();
  s.Waiting("x", "b", 900, 1, 8);
  s.input.plan_only = std::vector<int>{1};
  EXPECT_EQ(Decide(s, Reclaiming()).next_wakeup, 4500);
  s.input.plan_only = std::vector<int>{};  // Nothing planned, but gangs wait: only this round's evictions count.
  EXPECT_EQ(Decide(s, Reclaiming()).next_wakeup, kNever);
}

}  // namespace
}  // namespace gangplank::engine
