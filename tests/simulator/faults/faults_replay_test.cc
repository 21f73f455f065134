// The failure replay on the first jobs of the bundled Philly trace, with a fault rate far above Llama 3's so that every
// policy sees many faults: the comparisons the README's table rests on, determinism, and the files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "simulator/csv_table.h"
#include "simulator/faults/run_faults_replay.h"

namespace gangplank::simulator {
namespace {

using ::testing::HasSubstr;

const std::string kPhilly = PHILLY_DATA;

FaultReplayOptions Sample(double faults_per_node_day) {
  FaultReplayOptions o;
  o.replay.jobs_path = kPhilly + "/philly_jobs_sep_oct_2017.csv";
  o.replay.vcs_path = kPhilly + "/philly_vc.csv";
  o.replay.max_jobs = 3000;
  o.replay.nodes = 24;
  o.replay.progress = false;
  o.faults_per_node_day = faults_per_node_day;
  o.fault_seeds = "1";
  return o;
}

FaultReplayOutput Replay(const FaultReplayOptions& o) {
  return RunFaultReplayInMemory(LoadPhillyTrace(o.replay.jobs_path, o.replay.vcs_path, o.replay.max_jobs), o);
}

// About one fault per node every three days: some 80 times Llama 3's rate.
const FaultReplayOutput& Failing() {
  static const FaultReplayOutput out = Replay(Sample(0.3));
  return out;
}

const FaultFigures& FiguresOf(const FaultReplayOutput& out, const std::string& policy) {
  for (const FaultFigures& f : out.runs.at(0).figures) {
    if (f.policy == policy) return f;
  }
  throw std::runtime_error("no figures for " + policy);
}

TEST(FaultReplay, WithoutFaultsEveryPolicyGivesTheSameJobCompletionTimes) {
  const FaultReplayOutput out = Replay(Sample(0));
  ASSERT_TRUE(out.runs.at(0).draw.faults.empty());
  const std::vector<FaultFigures>& figures = out.runs.at(0).figures;
  ASSERT_EQ(figures.size(), 3u);
  for (size_t p = 0; p < figures.size(); ++p) {
    EXPECT_EQ(figures[p].replay.finished, figures[p].replay.jobs) << figures[p].policy;
    EXPECT_EQ(figures[p].LostGpuSeconds(), 0) << figures[p].policy;
    for (size_t j = 0; j < out.runs[0].results[p].jobs.size(); ++j) {
      ASSERT_EQ(out.runs[0].results[p].jobs[j].end, out.runs[0].results[0].jobs[j].end) << figures[p].policy << j;
    }
  }
}

TEST(FaultReplay, EveryPolicySeesTheSameFaultsAndFinishesEveryJob) {
  const FaultSeedRun& run = Failing().runs.front();
  ASSERT_GT(run.draw.faults.size(), 100u);
  for (const FaultFigures& f : run.figures) {
    EXPECT_EQ(f.faults.faults, static_cast<int>(run.draw.faults.size())) << f.policy;
    EXPECT_GT(f.faults.interruptions, 40) << f.policy;
    EXPECT_EQ(f.replay.finished, f.replay.jobs) << f.policy;
    EXPECT_EQ(f.faults.recovery_seconds.size(), static_cast<size_t>(f.faults.interruptions)) << f.policy;
    EXPECT_EQ(f.faults.requeue_seconds.size(), static_cast<size_t>(f.faults.interruptions)) << f.policy;
    EXPECT_GT(f.hit_jct.count, 30) << f.policy;
    EXPECT_LE(f.hit_jct.count, f.faults.interruptions) << f.policy;
  }
}

TEST(FaultReplay, RestartGangLosesFewerGpuHoursThanPerPodReplacementWhichLosesFewerThanNoHandling) {
  const FaultFigures& gang = FiguresOf(Failing(), "restart-gang");
  const FaultFigures& per_pod = FiguresOf(Failing(), "per-pod-replacement");
  const FaultFigures& none = FiguresOf(Failing(), "no-handling");
  EXPECT_LT(gang.LostGpuSeconds(), per_pod.LostGpuSeconds());
  EXPECT_LT(per_pod.LostGpuSeconds(), none.LostGpuSeconds());
  // Whole-gang restarts leave almost no pod holding GPUs for a dead job; per-pod replacement hangs in collectives.
  EXPECT_LT(gang.stranded_gpu_seconds, per_pod.stranded_gpu_seconds);
  EXPECT_LT(per_pod.stranded_gpu_seconds, none.stranded_gpu_seconds);
  EXPECT_GT(gang.faults.checkpointed_restarts, 0);
  EXPECT_EQ(per_pod.faults.checkpointed_restarts, 0);
}

TEST(FaultReplay, RestartGangRequeuesSoonestAndOnlyNoHandlingLeavesJobsToTheirUsers) {
  const FaultFigures& gang = FiguresOf(Failing(), "restart-gang");
  const FaultFigures& per_pod = FiguresOf(Failing(), "per-pod-replacement");
  const FaultFigures& none = FiguresOf(Failing(), "no-handling");
  EXPECT_LT(gang.requeue.mean, per_pod.requeue.mean);
  EXPECT_LT(per_pod.requeue.mean, none.requeue.mean);
  EXPECT_LT(gang.recovery.p50, none.recovery.p50);
  EXPECT_EQ(gang.faults.jobs_failed, 0) << "hardware faults are never charged to a gang's restart limit";
  EXPECT_EQ(FiguresOf(Failing(), "per-pod-replacement").faults.jobs_failed, 0);
  EXPECT_EQ(none.faults.jobs_failed, none.faults.interruptions);
}

TEST(FaultReplay, SameSeedSameResultOnAnyNumberOfThreads) {
  FaultReplayOptions o = Sample(0.3);
  o.threads = 1;
  const FaultReplayOutput again = Replay(o);
  const FaultSeedRun& first = Failing().runs.front();
  const FaultSeedRun& second = again.runs.front();
  ASSERT_EQ(second.results.size(), first.results.size());
  for (size_t p = 0; p < first.results.size(); ++p) {
    EXPECT_EQ(second.figures[p].LostGpuSeconds(), first.figures[p].LostGpuSeconds());
    EXPECT_EQ(second.figures[p].faults.recovery_seconds, first.figures[p].faults.recovery_seconds);
    for (size_t j = 0; j < first.results[p].jobs.size(); ++j) {
      ASSERT_EQ(second.results[p].jobs[j].end, first.results[p].jobs[j].end) << j;
    }
  }
}

TEST(FaultReplay, SenselessOptionsAreRefusedByName) {
  FaultReplayOptions o = Sample(0.3);
  o.faults_per_node_day = -1;
  EXPECT_THROW(ValidateFaultOptions(o), std::invalid_argument);
  o = Sample(0.3);
  o.policies = {"restart-gang", "pray"};
  try {
    ValidateFaultOptions(o);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown fault policy 'pray'"));
  }
  o = Sample(0.3);
  o.fault_seeds = "3..1";
  try {
    ValidateFaultOptions(o);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--fault-seeds"));
  }
}

TEST(FaultReplay, WritesTheSummaryFilesAndPrintsTheTable) {
  FaultReplayOptions o = Sample(0.3);
  o.replay.max_jobs = 300;
  o.fault_seeds = "1..2";
  o.replay.out_dir = (std::filesystem::temp_directory_path() / "gangplank_faults_replay_test").string();
  std::filesystem::remove_all(o.replay.out_dir);
  std::ostringstream log;
  ASSERT_EQ(RunFaultReplay(o, log), 0);
  const CsvTable summary = CsvTable::Load(o.replay.out_dir + "/summary.csv");
  ASSERT_EQ(summary.rows(), 3u);
  EXPECT_EQ(summary.Text(0, 0), "restart-gang");
  EXPECT_EQ(summary.Text(2, 0), "no-handling");
  summary.Column("lost_gpu_hours_mean");
  summary.Column("recovery_p99_minutes_sd");
  summary.Column("requeue_p50_minutes_mean");
  summary.Column("jobs_failed_mean");
  const CsvTable runs = CsvTable::Load(o.replay.out_dir + "/runs.csv");
  EXPECT_EQ(runs.rows(), 6u);
  runs.Column("seed");
  const CsvTable faults = CsvTable::Load(o.replay.out_dir + "/faults.csv");
  faults.Column("kind");
  EXPECT_TRUE(std::filesystem::exists(o.replay.out_dir + "/summary.json"));
  EXPECT_THAT(log.str(), HasSubstr("| restart-gang |"));
  EXPECT_THAT(log.str(), HasSubstr("Llama 3"));
  std::filesystem::remove_all(o.replay.out_dir);
}

}  // namespace
}  // namespace gangplank::simulator
