// The idle verdict: idle only below the threshold in every poll of the span, with data all along, for a
// gang old enough and not opted out; missing data never makes a gang idle.
#include "engine/idle/idle_verdict.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace gangplank::engine {
namespace {

constexpr double kPoll = 60;
constexpr double kMaxGap = 3 * kPoll;
constexpr double kNow = 10000;

IdlePolicy Preemptible() {
  IdlePolicy p;
  p.action = IdlePolicy::kPreemptible;
  return p;  // 5%, 3600 s idle, 1800 s minimum age.
}

// One poll every minute at `percent` over [from, to].
void Polls(std::vector<UtilizationSample>& out, double from, double to, double percent) {
  for (double t = from; t <= to; t += kPoll) out.push_back({t, percent});
}

// `before` percent until `at`, `after` from the next poll on.
std::vector<UtilizationSample> Switching(double at, double before, double after) {
  std::vector<UtilizationSample> s;
  Polls(s, 0, at, before);
  Polls(s, at + kPoll, kNow, after);
  return s;
}

std::vector<UtilizationSample> Steady(double percent) {
  std::vector<UtilizationSample> s;
  Polls(s, 0, kNow, percent);
  return s;
}

IdleVerdict Judge(const std::vector<UtilizationSample>& samples, double start = 0, bool opted_out = false,
                  const IdlePolicy& policy = Preemptible()) {
  return JudgeIdle(samples, start, kNow, policy, opted_out, kMaxGap);
}

TEST(IdleVerdict, ABusyGangIsNotIdle) {
  const IdleVerdict v = Judge(Steady(40));
  EXPECT_FALSE(v.idle);
  EXPECT_FALSE(v.idle_since.has_value());
  ASSERT_TRUE(v.mean_percent.has_value());
  EXPECT_DOUBLE_EQ(*v.mean_percent, 40);
  EXPECT_EQ(v.reason, "GPUs at 40% in the last poll, not below 5%");
}

TEST(IdleVerdict, AGangBelowTheThresholdForTheWholeSpanIsIdle) {
  const IdleVerdict v = Judge(Steady(0.4));
  EXPECT_TRUE(v.idle);
  EXPECT_EQ(v.idle_since, 0);
  EXPECT_NEAR(*v.mean_percent, 0.4, 1e-9);
  EXPECT_EQ(v.reason, "GPUs at 0.4% on average for 3600 s, below 5%");
}

TEST(IdleVerdict, IdleOnlySinceTheLastBusyPoll) {
  const IdleVerdict v = Judge(Switching(7980, 60, 1));
  EXPECT_FALSE(v.idle);
  EXPECT_EQ(v.idle_since, 8040);
  EXPECT_EQ(v.reason, "GPUs below 5% only for the last 1960 s of the 3600 s needed");
}

TEST(IdleVerdict, AGapInTheDataRestartsTheClock) {
  std::vector<UtilizationSample> s;
  Polls(s, 0, 7000, 0);
  Polls(s, 7600, kNow, 0);  // No sample from 6960 s to 7600 s.
  const IdleVerdict v = Judge(s);
  EXPECT_FALSE(v.idle);
  EXPECT_EQ(v.idle_since, 7600);
  EXPECT_EQ(v.reason,
            "no utilization data for 640 s until 2400 s ago (gaps up to 180 s count as data); GPUs below 5% only "
            "for the last 2400 s of the 3600 s needed");
}

TEST(IdleVerdict, PollsWithoutDataAreGapsToo) {
  std::vector<UtilizationSample> s = Steady(0);
  for (UtilizationSample& x : s) {
    if (x.time > 7000 && x.time < 7600) x.percent.reset();
  }
  EXPECT_FALSE(Judge(s).idle);
  EXPECT_EQ(Judge(s).idle_since, 7620);  // The first poll with data after the gap.
}

TEST(IdleVerdict, ALostPollOrTwoIsNoGap) {
  std::vector<UtilizationSample> s = Steady(0);
  s[100].percent.reset();
  s[101].percent.reset();
  EXPECT_TRUE(Judge(s).idle);
}

TEST(IdleVerdict, NoDataAtAllIsNeverIdle) {
  const IdleVerdict none = Judge({});
  EXPECT_FALSE(none.idle);
  EXPECT_FALSE(none.mean_percent.has_value());
  EXPECT_EQ(none.reason, "no utilization data since it started 10000 s ago");
  std::vector<UtilizationSample> down = Steady(0);
  for (UtilizationSample& x : down) x.percent.reset();  // Prometheus answers, with nothing.
  EXPECT_EQ(Judge(down).reason, none.reason);
  EXPECT_FALSE(Judge(down).idle);
}

TEST(IdleVerdict, DataThatStoppedIsNoData) {
  std::vector<UtilizationSample> s;
  Polls(s, 0, 9000, 0);  // Prometheus down for the last 1000 s.
  const IdleVerdict v = Judge(s);
  EXPECT_FALSE(v.idle);
  EXPECT_FALSE(v.idle_since.has_value());
  EXPECT_EQ(v.reason, "no utilization data since 1000 s ago");
}

TEST(IdleVerdict, AYoungGangIsNeverIdle) {
  std::vector<UtilizationSample> s;
  Polls(s, 9000, kNow, 0);
  const IdleVerdict v = Judge(s, 9000);
  EXPECT_FALSE(v.idle);
  EXPECT_EQ(v.reason, "younger than 1800 s (running 1000 s)");
}

TEST(IdleVerdict, PollsBeforeTheGangStartedDoNotCount) {
  const IdleVerdict v = Judge(Steady(0), 7000);  // Older than the minimum, idle since its start only.
  EXPECT_FALSE(v.idle);
  EXPECT_EQ(v.idle_since, 7020);
  EXPECT_EQ(v.reason, "utilization data below 5% only for the last 2980 s of the 3600 s needed");
}

TEST(IdleVerdict, OptedOutOrOffIsNeverIdle) {
  const IdleVerdict out = Judge(Steady(0), 0, true);
  EXPECT_FALSE(out.idle);
  EXPECT_EQ(out.idle_since, 0) << "still said, for the record";
  EXPECT_EQ(out.reason, "opted out of the idle policy");
  const IdleVerdict off = Judge(Steady(0), 0, false, IdlePolicy{});
  EXPECT_FALSE(off.idle);
  EXPECT_EQ(off.reason, "the idle policy is off");
}

TEST(IdleVerdict, TheThresholdItselfIsNotIdle) {
  EXPECT_FALSE(Judge(Steady(5)).idle);
  EXPECT_EQ(Judge(Steady(5)).reason, "GPUs at 5% in the last poll, not below 5%");
  EXPECT_TRUE(Judge(Steady(4.99)).idle);
}

TEST(IdleVerdict, OneBusyPollInTheSpanIsEnough) {
  std::vector<UtilizationSample> s = Steady(0);
  s[150].percent = 90;  // At 9000 s.
  EXPECT_FALSE(Judge(s).idle);
  EXPECT_EQ(Judge(s).idle_since, 9060);
}

TEST(IdleVerdict, TheMeanIsOverTheSpanOnly) {
  const IdleVerdict v = Judge(Switching(4980, 80, 2));
  EXPECT_TRUE(v.idle);
  EXPECT_EQ(v.idle_since, 5040);
  EXPECT_DOUBLE_EQ(*v.mean_percent, 2);
  EXPECT_EQ(v.reason, "GPUs at 2% on average for 3600 s, below 5%");
}

TEST(IdleVerdict, RefusesANonPositiveGap) {
  EXPECT_THROW(JudgeIdle({}, 0, kNow, Preemptible(), false, 0), std::invalid_argument);
}

}  // namespace
}  // namespace gangplank::engine
