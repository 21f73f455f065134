// Runtime prediction in the time replay, on a trace worked out by hand (8 nodes of 8 GPUs, one rack):
//   t   b, 4 GPUs at 0 for 10 s: ends at 10, the predictor's one sample for queue b.
//   F   six jobs of b, 8 GPUs at 0 for 100000 s: six nodes full.
//   Y   two jobs of b, 6 GPUs at 5000 for 1000 s: the other two nodes, 2 GPUs free each, until 6000.
//   G   a, 16 GPUs (two 8-GPU pods) at 5010 for 100 s: from 5011 (reserve-after 1 s) it reserves Y's
//       nodes, expected free in an hour (Y has run seconds; F has run as long as it will run again).
//   S   b, 2 GPUs at 5020 for 2000 s: fits only on G's reserved nodes.
// With prediction S is predicted to run 10 s (queue b's history) and starts at 5020 on a reserved node;
// at 6000 Y ends and G could start but for S, which overstayed: S is ended (no hourly checkpoint yet:
// its 980 s are lost), G starts at 6000, S starts again when G ends at 6100 and ends at 8100. Without
// prediction S waits for G: it starts at 6100.
#include <gtest/gtest.h>

#include <cmath>

#include "simulator/time_replay/job_trace.h"
#include "simulator/time_replay/prediction_accuracy.h"
#include "simulator/time_replay/run_time_replay.h"
#include "tests/simulator/time_replay/tiny_options.h"

namespace gangplank::simulator {
namespace {

const std::string kData = TIME_REPLAY_TESTDATA;
constexpr int kG = 9, kS = 10;

TimeReplayOptions Options() {
  TimeReplayOptions o = testing::TinyOptions();
  o.nodes = 8;
  o.nodes_per_rack = 8;
  o.reserve_after_seconds = 1;
  o.predict_runtimes = true;
  o.predict_min_samples = 1;
  o.schedulers = {"gangplank", "gangplank-no-predict"};
  return o;
}

using testing::ResultOf;

TimeReplayOutput Replay() {
  return RunTimeReplayInMemory(
      LoadPhillyTrace(kData + "/predicted_backfill_jobs.csv", kData + "/two_vcs.csv"), Options());
}

TEST(PredictedBackfillReplay, AJobStartsOnReservedNodesOnItsPredictionAndIsEndedWhenItOverstays) {
  const TimeReplayOutput out = Replay();
  const ReplayResult& r = ResultOf(out, "gangplank");
  EXPECT_DOUBLE_EQ(r.jobs[kS].start, 5020);
  EXPECT_DOUBLE_EQ(r.jobs[kG].start, 6000);
  EXPECT_EQ(r.jobs[kS].preemptions, 1);
  EXPECT_DOUBLE_EQ(r.jobs[kS].lost_gpu_seconds, 980 * 2);
  EXPECT_DOUBLE_EQ(r.jobs[kS].end, 8100);
  EXPECT_TRUE(r.prediction.enabled);
  EXPECT_EQ(r.prediction.backfilled, 1);
  EXPECT_EQ(r.prediction.overruns, 1);
  EXPECT_DOUBLE_EQ(r.prediction.overrun_lost_gpu_seconds, 980 * 2);
}

TEST(PredictedBackfillReplay, WithoutPredictionTheSmallJobWaitsForTheReservedGang) {
  const TimeReplayOutput out = Replay();  // Kept: the result is a reference into it.
  const ReplayResult& r = ResultOf(out, "gangplank-no-predict");
  EXPECT_DOUBLE_EQ(r.jobs[kG].start, 6000);
  EXPECT_DOUBLE_EQ(r.jobs[kS].start, 6100);
  EXPECT_EQ(r.jobs[kS].preemptions, 0);
  EXPECT_DOUBLE_EQ(r.jobs[kS].end, 8100);
  EXPECT_FALSE(r.prediction.enabled);
}

TEST(PredictedBackfillReplay, PredictionsComeOnlyFromJobsThatHadEnded) {
  const TimeReplayOutput out = Replay();
  const ReplayResult& r = ResultOf(out, "gangplank");
  EXPECT_TRUE(std::isnan(r.prediction.at_quantile[0])) << "the first job has nobody's history";
  EXPECT_DOUBLE_EQ(r.prediction.at_quantile[kS], 10);  // Queue b's one ended job.
  const std::vector<PredictionAccuracy> rows = AccuracyBySize(out.workload, r);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back().label, "all");
  EXPECT_EQ(rows.back().ended, 11);     // The replay runs every job to its end.
  EXPECT_EQ(rows.back().predicted, 4);   // Y, G and S: the seven jobs at 0 came before anything ended.
}

}  // namespace
}  // namespace gangplank::simulator
