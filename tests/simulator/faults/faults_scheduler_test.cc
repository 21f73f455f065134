// Hand-worked fault scenarios on two 8-GPU nodes: each policy's decisions, times and losses for one fault written out
// below, so every figure can be checked by hand. Hourly periodic checkpoints; a faulty node is back 300 s later.
#include "simulator/faults/faults_scheduler.h"

#include <gtest/gtest.h>

#include "simulator/faults/run_faults_replay.h"
#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

const std::string kData = FAULTS_TESTDATA;

FaultReplayOptions TwoNodes() {
  FaultReplayOptions o;
  o.replay.nodes = 2;
  o.replay.nodes_per_rack = 1;
  o.replay.racks_per_row = 1;
  o.replay.rows_per_zone = 1;
  o.replay.sample_seconds = 100;
  o.replay.progress = false;
  o.repair_seconds = 300;
  return o;  // 60 s node grace, 120 s checkpoint grace, 60 s to write, 600 s collective timeout, 3600 s to resubmit.
}

FaultPolicyRun Replay(const std::string& jobs, FaultKind kind, int gpu, const std::string& policy,
                      const FaultReplayOptions& options = TwoNodes()) {
  const JobTrace trace = LoadPhillyTrace(kData + "/" + jobs, kData + "/one_vc.csv");
  // Node 0 fails at 5000 s and, unless the fault is the job's software, is back at 5300 s.
  const InjectedFault fault{5000, 0, kind, gpu, kind == FaultKind::kSoftware ? 5000.0 : 5300.0};
  return RunFaultPolicy(PrepareReplay(trace, options.replay), {fault}, policy, options);
}

// The 16-GPU gang runs on both nodes from 0 for 10000 s; its last periodic checkpoint before 5000 s is at 3600 s, so a
// stop at 5000 s loses 1400 s on 16 GPUs and leaves 6400 s to run.
constexpr double kLostSinceCheckpoint = 1400 * 16;

TEST(FaultsScheduler, RestartGangRestartsAGangOnALostHostAfterTheGraceWithoutHoldingItsOtherNode) {
  // Progress stops at 5000; the pod on node 1 holds its 8 GPUs through the 60 s grace; the gang is requeued at 5060 and
  // starts when node 0 is back at 5300.
  const FaultPolicyRun run = Replay("gang16.csv", FaultKind::kHost, 0, "restart-gang");
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 5300 + 6400);
  EXPECT_DOUBLE_EQ(run.result.lost_gpu_seconds, kLostSinceCheckpoint);
  EXPECT_DOUBLE_EQ(run.result.held_incomplete_gpu_seconds, 60 * 8);
  EXPECT_EQ(run.counters.interruptions, 1);
  EXPECT_EQ(run.counters.interrupted_jobs, std::vector<int>{0});
  EXPECT_EQ(run.counters.restarts, 1);
  EXPECT_EQ(run.counters.jobs_failed, 0);
  EXPECT_EQ(run.counters.requeue_seconds, std::vector<double>{60});
  ASSERT_EQ(run.counters.recovery_seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(run.counters.recovery_seconds[0], 300);
}

TEST(FaultsScheduler, PerPodReplacementLeavesTheOtherPodHangingUntilTheCollectiveTimesOut) {
  // The lost pod is replaced after 300 s, but the pod on node 1 hangs until the 600 s timeout: restart at 5600.
  const FaultPolicyRun run = Replay("gang16.csv", FaultKind::kHost, 0, "per-pod-replacement");
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 5600 + 6400);
  EXPECT_DOUBLE_EQ(run.result.lost_gpu_seconds, kLostSinceCheckpoint);
  EXPECT_DOUBLE_EQ(run.result.held_incomplete_gpu_seconds, 600 * 8);
  EXPECT_EQ(run.counters.requeue_seconds, std::vector<double>{600});
  EXPECT_DOUBLE_EQ(run.counters.recovery_seconds.at(0), 600);
  EXPECT_EQ(run.counters.jobs_failed, 0);
}

TEST(FaultsScheduler, WithoutHandlingTheJobWaitsForItsUser) {
  // Nothing restarts it: the pod on node 1 holds its GPUs until the user resubmits the job at 5000 + 3600.
  const FaultPolicyRun run = Replay("gang16.csv", FaultKind::kHost, 0, "no-handling");
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 8600 + 6400);
  EXPECT_DOUBLE_EQ(run.result.held_incomplete_gpu_seconds, 3600 * 8);
  EXPECT_EQ(run.counters.jobs_failed, 1);
  EXPECT_EQ(run.counters.requeue_seconds, std::vector<double>{3600});
  EXPECT_DOUBLE_EQ(run.counters.recovery_seconds.at(0), 3600);
}

TEST(FaultsScheduler, RestartGangCheckpointsAGangOnAHostGoingIntoMaintenanceAndLosesOnlyTheWrite) {
  // Quarantined at 5000: asked to checkpoint by 5120, acknowledges at 5060 and is evicted then, keeping its progress
  // until 5000 (5000 s left); restarts when node 0 is back at 5300.
  const FaultPolicyRun run = Replay("gang16.csv", FaultKind::kMaintenance, 0, "restart-gang");
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 5300 + 5000);
  EXPECT_DOUBLE_EQ(run.result.lost_gpu_seconds, 60 * 16);
  EXPECT_DOUBLE_EQ(run.result.held_incomplete_gpu_seconds, 0);
  EXPECT_EQ(run.counters.checkpointed_restarts, 1);
  EXPECT_EQ(run.counters.interruptions, 1);
  EXPECT_EQ(run.counters.requeue_seconds, std::vector<double>{60});
}

TEST(FaultsScheduler, ADrainWithoutGangplankThrowsTheWorkAwayAndHangsTheRest) {
  const FaultPolicyRun run = Replay("gang16.csv", FaultKind::kMaintenance, 0, "per-pod-replacement");
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 5600 + 6400);
  EXPECT_DOUBLE_EQ(run.result.lost_gpu_seconds, kLostSinceCheckpoint);
  EXPECT_DOUBLE_EQ(run.result.held_incomplete_gpu_seconds, 600 * 8);
}

TEST(FaultsScheduler, AFailedGpuRestartsTheGangAtOnceUncharged) {
  // The member on GPU 3 of node 0 dies at 5000: restarted at once (nothing to checkpoint without it), the node's GPU
  // loss to blame; it starts again when node 0 is back.
  const FaultPolicyRun run = Replay("gang16.csv", FaultKind::kGpu, 3, "restart-gang");
  EXPECT_DOUBLE_EQ(run.result.jobs[0].end, 5300 + 6400);
  EXPECT_DOUBLE_EQ(run.result.held_incomplete_gpu_seconds, 0);
  EXPECT_EQ(run.counters.restarts, 1);
}

TEST(FaultsScheduler, ASoftwareFaultIsChargedAndPastTheLimitLeftToTheUser) {
  // The job's own failure on a healthy node: restarted at once (both nodes are free) under the default limit ...
  const FaultPolicyRun restarted = Replay("gang16.csv", FaultKind::kSoftware, 0, "restart-gang");
  EXPECT_DOUBLE_EQ(restarted.result.jobs[0].end, 5000 + 6400);
  EXPECT_EQ(restarted.counters.jobs_failed, 0);
  // ... and failed with a limit of 0: its user resubmits it an hour later.
  FaultReplayOptions strict = TwoNodes();
  strict.restart_limit = 0;
  const FaultPolicyRun failed = Replay("gang16.csv", FaultKind::kSoftware, 0, "restart-gang", strict);
  EXPECT_EQ(failed.counters.jobs_failed, 1);
  EXPECT_DOUBLE_EQ(failed.result.jobs[0].end, 8600 + 6400);
}

TEST(FaultsScheduler, AFailedGpuStopsOnlyTheJobOnIt) {
  // Eight 1-GPU jobs share node 0 (best fit packs them); GPU 3 fails. Under every policy only its job stops: the device
  // plugin's one GPU less leaves room for the seven others.
  for (const std::string& policy : FaultPolicyNames()) {
    const FaultPolicyRun run = Replay("singles8.csv", FaultKind::kGpu, 3, policy);
    EXPECT_EQ(run.counters.interruptions, 1) << policy;
    EXPECT_EQ(run.result.preemptions, 1) << policy;
    int on_time = 0;
    for (const JobOutcome& job : run.result.jobs) on_time += job.end == job.start + 10000 ? 1 : 0;
    EXPECT_EQ(on_time, 7) << policy;
  }
}

}  // namespace
}  // namespace gangplank::simulator
