// Time-based fair share in the time replay: the flags, the ledger fed from running jobs, and the order
// it changes on a hand-made trace.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "engine/policies/registry.h"
#include "simulator/time_replay/gang_schedulers.h"
#include "simulator/time_replay/idle_burst.h"
#include "simulator/time_replay/replay_flags.h"
#include "simulator/time_replay/replay_setup.h"
#include "simulator/time_replay/run_time_replay.h"
#include "simulator/time_replay/weekly_jain.h"
#include "tests/simulator/time_replay/tiny_options.h"

namespace gangplank::simulator {
namespace {

const std::string kData = TIME_REPLAY_TESTDATA;

TEST(UsageDecayFlags, OffByDefaultAndParsed) {
  TimeReplayOptions o;
  CLI::App app;
  AddReplayFlags(app, o);
  app.parse("", false);
  EXPECT_EQ(o.usage_half_life_seconds, 0);
  EXPECT_EQ(o.usage_window_seconds, 7 * 24 * 3600);
  app.parse("--usage-half-life 86400 --usage-window 259200", false);
  EXPECT_EQ(o.usage_half_life_seconds, 86400);
  EXPECT_EQ(o.usage_window_seconds, 259200);
  TimeReplayOptions bad;
  CLI::App strict;
  AddReplayFlags(strict, bad);
  EXPECT_THROW(strict.parse("--usage-half-life -5", false), CLI::ValidationError);
}

// Two 8-GPU nodes, queues a and b of one node each. a runs a 16-GPU job for the first hour; at 4000 s a
// and b each submit a 16-GPU job (a's first in the trace): only one runs at a time.
TimeReplayOptions UsageOptions(double half_life) {
  TimeReplayOptions o = testing::TinyOptions();
  o.schedulers = {"gangplank"};
  o.usage_half_life_seconds = half_life;
  return o;
}

TimeReplayOutput UsageReplay(double half_life) {
  return RunTimeReplayInMemory(LoadPhillyTrace(kData + "/usage_jobs.csv", kData + "/two_vcs.csv"),
                               UsageOptions(half_life));
}

TEST(UsageDecayReplay, WithoutDecayTheTieGoesToTraceOrder) {
  const ReplayResult& r = UsageReplay(0).results.front();
  EXPECT_EQ(r.jobs[1].start, 4000);  // a's
  EXPECT_EQ(r.jobs[2].start, 4100);  // b's
}

TEST(UsageDecayReplay, TheQueueThatRanTheFirstHourGoesSecond) {
  const ReplayResult& r = UsageReplay(86400).results.front();
  EXPECT_EQ(r.jobs[2].start, 4000);  // b's: b used nothing before.
  EXPECT_EQ(r.jobs[1].start, 4100);
}

TEST(UsageDecayReplay, TheLedgerIsFedFromRunningJobs) {
  TimeReplayOptions o = UsageOptions(86400);
  const PreparedReplay p = PrepareReplay(LoadPhillyTrace(kData + "/usage_jobs.csv", kData + "/two_vcs.csv"), o);
  GangplankScheduler scheduler(p.cluster, p.workload, o.seed, engine::policies::MakePolicy(o.policy, p.pods));
  ConfigureGangplank(scheduler, o);
  RunReplay(p.workload, scheduler, ReplayConfig{});
  // a held 16 GPUs for the first hour and 100 s more, b 16 GPUs for 100 s; the last event is at 4200 s.
  EXPECT_NEAR(scheduler.usage().GpuHours("a", 4200), 16 * 3700 / 3600.0, 1e-9);
  EXPECT_NEAR(scheduler.usage().GpuHours("b", 4200), 16 * 100 / 3600.0, 1e-9);
  EXPECT_GT(scheduler.usage().PastUsage("a", 4200), scheduler.usage().PastUsage("b", 4200));
}

TEST(FairnessOverTime, JainOverWeeksSumsEachQueuesHoursFirst) {
  // Queue 0 holds all in week 0, queue 1 all in week 1 (equal fair shares): unfair each week.
  std::vector<ReplaySample> samples;
  for (double t : {0.0, 86400.0, 8 * 86400.0, 9 * 86400.0}) {
    ReplaySample s;
    s.time = t;
    s.queue_held = t < 7 * 86400 ? std::vector<int>{8, 0} : std::vector<int>{0, 8};
    s.fair_share = {4, 4};
    samples.push_back(s);
  }
  EXPECT_DOUBLE_EQ(WindowedJain(samples, 7 * 86400), 0.5);
  EXPECT_DOUBLE_EQ(WindowedJain(samples, 14 * 86400), 1.0);  // Over two weeks both got their share.
  EXPECT_DOUBLE_EQ(JainOfRatios({1, 1, 1}), 1.0);
  EXPECT_EQ(JainOfRatios({}), -1);
}

TEST(FairnessOverTime, TheIdleBurstFollowsADayWithNothingOfItsQueue) {
  Workload w;
  w.queues = {{"a", 1, 0}, {"b", 1, 0}};
  auto job = [&](int queue, double arrival, double duration, int gpus) {
    ReplayJob j;
    j.id = static_cast<int>(w.jobs.size());
    j.queue = queue;
    j.arrival = arrival;
    j.duration = duration;
    j.gpus = gpus;
    w.jobs.push_back(j);
  };
  const double day = 86400;
  job(0, 0, 3 * day, 1);          // a runs until day 3 ...
  job(0, 3.5 * day, 10, 8);       // ... so this is only half a day after: no burst.
  job(1, 0.5 * day, 10, 1);       // b, then nothing for two days:
  job(1, 2.6 * day, 10, 4);       // a burst of two jobs within a day,
  job(1, 3.0 * day, 10, 4);
  job(1, 3.7 * day, 10, 16);      // the next one past the day.
  const IdleBurst burst = FindIdleBurst(w, day, day);
  EXPECT_EQ(burst.queue, 1);
  EXPECT_EQ(burst.jobs, (std::vector<int>{3, 4}));
  EXPECT_EQ(burst.gpus, 8);
}

}  // namespace
}  // namespace gangplank::simulator
