// The what-if's settings, its runs and its table, in memory: a setting changes only itself and is checked as the
// time replay's flag checks it; the table's figures are those of the real replays of a hand-made trace whose
// times time_replay_test.cc works out by hand (reclaim_jobs.csv).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "simulator/csv_table.h"
#include "simulator/time_replay/job_trace.h"
#include "simulator/what_if/what_if_run.h"
#include "simulator/what_if/what_if_settings.h"
#include "simulator/what_if/what_if_table.h"
#include "tests/simulator/time_replay/tiny_options.h"

namespace gangplank::simulator {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kData = TIME_REPLAY_TESTDATA;
constexpr double kHour = 3600;

// Two 8-GPU nodes; reclaim after 50 s of waiting, victims past 100 s of runtime, checkpoints every 30 s: b's
// job (arrives at 20) evicts one of a's at 100 (time_replay_test.cc, ReclaimEvictsTheOverShareQueue...).
TimeReplayOptions ReclaimBaseline() {
  TimeReplayOptions o = testing::TinyOptions();
  o.reclaim = true;
  o.reclaim_after_seconds = 50;
  o.reclaim_min_runtime_seconds = 100;
  o.checkpoint_seconds = 30;
  return o;
}

std::string ErrorOf(const std::string& assignment) {
  try {
    ApplySetting(ReclaimBaseline(), assignment);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(WhatIfSettings, KeysAreTheTimeReplaysKnobsNotItsInputsOrOutputs) {
  const std::vector<std::string> keys = WhatIfSettingKeys();
  for (const char* key : {"reclaim", "reclaim-after", "usage-half-life", "reserve-after", "checkpoint-interval",
                          "nodes", "policy", "seed"}) {
    EXPECT_THAT(keys, Contains(key));
  }
  for (const char* flag : {"jobs", "vcs", "out", "max-jobs", "sample-seconds", "progress", "help"}) {
    EXPECT_THAT(keys, Not(Contains(flag)));
  }
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

TEST(WhatIfSettings, ASettingChangesItselfOnly) {
  const TimeReplayOptions base = ReclaimBaseline();
  const WhatIfVariant off = ApplySetting(base, "reclaim=false");
  EXPECT_EQ(off.label, "reclaim=false");
  EXPECT_FALSE(off.options.reclaim);
  EXPECT_EQ(off.options.reclaim_after_seconds, 50);
  EXPECT_EQ(off.options.nodes, 2);
  EXPECT_EQ(off.options.checkpoint_seconds, 30);

  const WhatIfVariant decay = ApplySetting(base, "usage-half-life=86400");
  EXPECT_EQ(decay.options.usage_half_life_seconds, 86400);
  EXPECT_TRUE(decay.options.reclaim);
  EXPECT_EQ(ApplySetting(base, "reserve-choice=most-free").options.reserve_choice, "most-free");
}

TEST(WhatIfSettings, TheEnvironmentDoesNotLeakIntoAVariant) {
  ::setenv("GANGPLANK_SIM_NODES", "7", 1);
  const WhatIfVariant v = ApplySetting(ReclaimBaseline(), "reclaim=false");
  ::unsetenv("GANGPLANK_SIM_NODES");
  EXPECT_EQ(v.options.nodes, 2);
}

TEST(WhatIfSettings, BadSettingsNameThemselvesAndListTheValidKeys) {
  for (const char* bad : {"bogus=1", "reclaim=maybe", "nodes=0", "reserve-choice=random", "reclaim", "=1",
                          "reclaim=", "jobs=other.csv", "usage-half-life=-5"}) {
    const std::string error = ErrorOf(bad);
    EXPECT_THAT(error, HasSubstr(std::string("--set ") + bad)) << bad;
    EXPECT_THAT(error, AllOf(HasSubstr("Valid keys"), HasSubstr("reclaim-after"), HasSubstr("usage-half-life")))
        << bad;
  }
  EXPECT_THAT(ErrorOf("bogus=1"), HasSubstr("unknown key 'bogus'"));
  EXPECT_THAT(ErrorOf("jobs=other.csv"), HasSubstr("unknown key 'jobs'"));
  EXPECT_THAT(ErrorOf("nodes=0"), HasSubstr("--nodes"));
  EXPECT_THROW(ParseVariants(ReclaimBaseline(), {}), InputError);
  EXPECT_THROW(ParseVariants(ReclaimBaseline(), {"reclaim=false", "bogus=1"}), InputError);
}

TEST(WhatIfRun, TheTableHoldsTheReplaysFiguresAndTheirDifferences) {
  const JobTrace trace = LoadPhillyTrace(kData + "/reclaim_jobs.csv", kData + "/two_vcs.csv");
  const TimeReplayOptions base = ReclaimBaseline();
  const WhatIfOutput out = RunWhatIfInMemory(
      trace, base, ParseVariants(base, {"reclaim=false", "checkpoint-interval=0"}));
  ASSERT_EQ(out.runs.size(), 3u);
  EXPECT_EQ(out.table.runs, (std::vector<std::string>{"baseline", "reclaim=false", "checkpoint-interval=0"}));

  // Baseline: j0 0-1110 (evicted at 100, 10 s lost since its checkpoint at 90), j1 10-1010, j2 (arrived 20)
  // 100-200. reclaim=false: j2 waits for j0, 1000-1100. No checkpoints: j0 loses its 100 s, ends at 1200.
  const WhatIfRow& jct = out.table.Row("mean JCT (h)");
  EXPECT_NEAR(jct.values[0], (1110 + 1000 + 180) / 3.0 / kHour, 1e-9);
  EXPECT_NEAR(jct.values[1], (1000 + 1000 + 1080) / 3.0 / kHour, 1e-9);
  EXPECT_NEAR(jct.values[2], (1200 + 1000 + 180) / 3.0 / kHour, 1e-9);
  EXPECT_NEAR(jct.Difference(1), ((1000 + 1000 + 1080) - (1110 + 1000 + 180)) / 3.0 / kHour, 1e-9);
  const WhatIfRow& delay = out.table.Row("mean queueing delay (h)");
  EXPECT_NEAR(delay.values[0], 80 / 3.0 / kHour, 1e-9);
  EXPECT_NEAR(delay.values[1], 980 / 3.0 / kHour, 1e-9);
  EXPECT_NEAR(out.table.Row("p99 queueing delay (h)").values[1], 980 / kHour, 1e-9);
  const WhatIfRow& preemptions = out.table.Row("preemptions (gangs evicted)");
  EXPECT_EQ(preemptions.values, (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(preemptions.Difference(1), -1);
  const WhatIfRow& lost = out.table.Row("lost GPU-hours");
  EXPECT_NEAR(lost.values[0], 80 / kHour, 1e-12);
  EXPECT_EQ(lost.values[1], 0);
  EXPECT_NEAR(lost.values[2], 800 / kHour, 1e-12);
  EXPECT_EQ(out.table.Row("jobs started").values, (std::vector<double>{3, 3, 3}));
  // Only gangplank's scheduler runs: the settings are its own.
  for (const TimeReplayOutput& run : out.runs) {
    ASSERT_EQ(run.figures.size(), 1u);
    EXPECT_EQ(run.figures[0].scheduler, "gangplank");
  }
}

TEST(WhatIfTable, TextAndCsvShowValueAndChangePerVariant) {
  const JobTrace trace = LoadPhillyTrace(kData + "/reclaim_jobs.csv", kData + "/two_vcs.csv");
  const TimeReplayOptions base = ReclaimBaseline();
  const WhatIfTable table = RunWhatIfInMemory(trace, base, ParseVariants(base, {"reclaim=false"})).table;

  const std::string text = RenderWhatIfText(table);
  EXPECT_THAT(text, HasSubstr("baseline  reclaim=false  reclaim=false change\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("\npreemptions \\(gangs evicted\\) +1 +0 +-1\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("\njobs started +3 +3 +0\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("\nmean queueing delay \\(h\\) +0.01 +0.09 +\\+0.08\n"));

  const std::string csv = RenderWhatIfCsv(table);
  EXPECT_THAT(csv, ::testing::StartsWith("figure,baseline,reclaim=false,reclaim=false change\n"));
  EXPECT_THAT(csv, HasSubstr("\npreemptions (gangs evicted),1,0,-1\n"));
  EXPECT_THAT(csv, HasSubstr("\nlost GPU-hours,0.0,0.0,0\n"));
}

}  // namespace
}  // namespace gangplank::simulator
