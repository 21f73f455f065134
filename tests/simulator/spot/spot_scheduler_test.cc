// Hand-worked spot scenarios on two 8-GPU nodes: each policy's decisions, times and losses for one reclaim written out
// below, so every figure can be checked by hand.
#include "simulator/spot/spot_scheduler.h"

#include <gtest/gtest.h>

#include "simulator/spot/run_spot_replay.h"
#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

const std::string kData = SPOT_TESTDATA;

SpotReplayOptions TwoNodes() {
  SpotReplayOptions o;
  o.replay.nodes = 2;
  o.replay.nodes_per_rack = 1;
  o.replay.racks_per_row = 1;
  o.replay.rows_per_zone = 1;
  o.replay.sample_seconds = 100;
  o.replay.progress = false;
  return o;  // Hourly periodic checkpoints, 90 s grace, 15 s margin, 60 s to write, 300 s to notice a failure.
}

SpotPolicyRun Replay(const std::string& jobs, const std::vector<NodePreemption>& reclaims, const std::string& policy,
                     const SpotReplayOptions& options = TwoNodes()) {
  const JobTrace trace = LoadPhillyTrace(kData + "/" + jobs, kData + "/one_vc.csv");
  return RunSpotPolicy(PrepareReplay(trace, options.replay), reclaims, policy, options);
}

// Node 0 is noticed at 5000 s, goes at 5120 s (AWS's 120 s) and is replaced at 5720 s.
const std::vector<NodePreemption> kReclaimAt5000 = {{0, 5000, 5120, 5720}};

// The 16-GPU gang runs on both nodes from 0 for 10000 s, with checkpoints at 3600 s.
TEST(SpotScheduler, CheckpointThenRequeueKeepsTheWorkUntilTheNoticeAndLosesOnlyTheWrite) {
  // Asked at 5000 with deadline min(5000 + 90, 5120 - 15) = 5090; acknowledges at 5060 and is evicted then, keeping its
  // progress until 5000. It waits for node 0's replacement (5720) and runs the 5000 s left.
  const SpotPolicyRun run = Replay("gang16.csv", kReclaimAt5000, "checkpoint-then-requeue");
  EXPECT_DOUBLE_EQ(run.result.jobs[0].start, 0);
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 5720 + 5000);
  EXPECT_DOUBLE_EQ(run.result.lost_gpu_seconds, 60 * 16);  // The write, on 16 GPUs.
  EXPECT_DOUBLE_EQ(run.result.held_incomplete_gpu_seconds, 0);
  EXPECT_EQ(run.counters.checkpoints_requested, 1);
  EXPECT_EQ(run.counters.checkpoints_in_time, 1);
  EXPECT_EQ(run.counters.checkpoints_late, 0);
  EXPECT_EQ(run.counters.gangs_broken, 0);
  EXPECT_EQ(run.counters.notices, 1);
  EXPECT_EQ(run.counters.nodes_lost, 1);
}

TEST(SpotScheduler, EvictOnNoticeLosesTheWorkSinceTheLastPeriodicCheckpoint) {
  // Evicted at 5000 keeping 3600 s; restarts at 5720 for the 6400 s left.
  const SpotPolicyRun run = Replay("gang16.csv", kReclaimAt5000, "evict-on-notice");
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 5720 + 6400);
  EXPECT_DOUBLE_EQ(run.result.lost_gpu_seconds, (5000 - 3600) * 16);
  EXPECT_EQ(run.counters.evicted_without_checkpoint, 1);
  EXPECT_EQ(run.counters.checkpoints_requested, 0);
  EXPECT_EQ(run.counters.gangs_broken, 0);
}

TEST(SpotScheduler, IgnoringTheNoticeBreaksTheGangAndStrandsItsOtherPod) {
  // Node 0 goes at 5120 with one pod; progress stops then (3600 s kept). The pod on node 1 holds its 8 GPUs until the
  // job is noticed failed at 5120 + 300; the gang restarts whole at 5720 for the 6400 s left.
  const SpotPolicyRun run = Replay("gang16.csv", kReclaimAt5000, "ignore");
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 5720 + 6400);
  EXPECT_DOUBLE_EQ(run.result.lost_gpu_seconds, (5120 - 3600) * 16);
  EXPECT_DOUBLE_EQ(run.result.held_incomplete_gpu_seconds, 300 * 8);
  EXPECT_EQ(run.counters.gangs_broken, 1);
  EXPECT_EQ(run.counters.jobs_killed, 1);
  EXPECT_EQ(run.counters.gangs_noticed, 0);
}

TEST(SpotScheduler, CheckpointThenRequeueLosesNoMoreThanEvictOnNoticeHere) {
  const double checkpointed = Replay("gang16.csv", kReclaimAt5000, "checkpoint-then-requeue").result.lost_gpu_seconds;
  const double evicted = Replay("gang16.csv", kReclaimAt5000, "evict-on-notice").result.lost_gpu_seconds;
  const SpotPolicyRun ignored = Replay("gang16.csv", kReclaimAt5000, "ignore");
  EXPECT_LT(checkpointed, evicted);
  EXPECT_LT(evicted, ignored.result.lost_gpu_seconds + ignored.result.held_incomplete_gpu_seconds);
}

TEST(SpotScheduler, AShortNoticeMakesASlowCheckpointLate) {
  // GKE's 30 s: deadline 5000 + 30 - 15 = 5015, before the 60 s write ends: evicted at 5015 keeping only the periodic
  // checkpoint.
  SpotReplayOptions o = TwoNodes();
  const SpotPolicyRun run = Replay("gang16.csv", {{0, 5000, 5030, 5630}}, "checkpoint-then-requeue", o);
  EXPECT_EQ(run.counters.checkpoints_late, 1);
  EXPECT_EQ(run.counters.checkpoints_in_time, 0);
  EXPECT_DOUBLE_EQ(run.result.lost_gpu_seconds, (5015 - 3600) * 16);
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 5630 + 6400);
  EXPECT_EQ(run.counters.gangs_broken, 0);
}

TEST(SpotScheduler, NoTimeToCheckpointEvictsAtOnce) {
  // A 10 s notice leaves no time before the 15 s margin: the engine evicts without asking.
  const SpotPolicyRun run = Replay("gang16.csv", {{0, 5000, 5010, 5610}}, "checkpoint-then-requeue");
  EXPECT_EQ(run.counters.evicted_without_checkpoint, 1);
  EXPECT_EQ(run.counters.checkpoints_requested, 0);
  EXPECT_DOUBLE_EQ(run.result.lost_gpu_seconds, (5000 - 3600) * 16);
}

TEST(SpotScheduler, CapacityUnderNoticeIsNeverPlannedForNewGangs) {
  // Node 0 is under notice from 100 to 220 and replaced at 820. The 8-GPU job arriving at 150 must start on node 1 (it
  // is never killed), and the 16-GPU gang at 160 waits for the replacement.
  for (const std::string& policy : SpotPolicyNames()) {
    const SpotPolicyRun run = Replay("late_arrivals.csv", {{0, 100, 220, 820}}, policy);
    EXPECT_EQ(run.counters.jobs_killed, 0) << policy;
    EXPECT_EQ(run.result.preemptions, 0) << policy;
    EXPECT_DOUBLE_EQ(run.result.jobs[1].start, 150) << policy;
    EXPECT_DOUBLE_EQ(run.result.jobs[2].start, 820) << policy;
  }
}

}  // namespace
}  // namespace gangplank::simulator
