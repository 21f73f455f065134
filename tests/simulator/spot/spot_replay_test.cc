// The spot replay on the first jobs of the bundled Philly trace, with a high reclaim rate so that every policy sees
// many reclaims: the comparisons the README's table rests on, determinism, and the files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "simulator/csv_table.h"
#include "simulator/spot/run_spot_replay.h"

namespace gangplank::simulator {
namespace {

using ::testing::HasSubstr;

const std::string kPhilly = PHILLY_DATA;

SpotReplayOptions Sample() {
  SpotReplayOptions o;
  o.replay.jobs_path = kPhilly + "/philly_jobs_sep_oct_2017.csv";
  o.replay.vcs_path = kPhilly + "/philly_vc.csv";
  o.replay.max_jobs = 3000;
  o.replay.nodes = 24;
  o.replay.progress = false;
  o.spot_fraction = 1;
  // Far above any published rate (about one reclaim per node every 3 days), to exercise every path.
  o.interruptions_per_node_month = 10;
  o.spot_seeds = "1";
  return o;
}

const SpotReplayOutput& SampleRun() {
  static const SpotReplayOutput out = [] {
    const SpotReplayOptions o = Sample();
    return RunSpotReplayInMemory(LoadPhillyTrace(o.replay.jobs_path, o.replay.vcs_path, o.replay.max_jobs), o);
  }();
  return out;
}

const SpotFigures& FiguresOf(const SpotReplayOutput& out, const std::string& policy) {
  for (const SpotFigures& f : out.runs.at(0).figures) {
    if (f.policy == policy) return f;
  }
  throw std::runtime_error("no figures for " + policy);
}

TEST(SpotReplay, EveryPolicySeesTheSameReclaimsAndFinishesEveryJob) {
  const SpotReplayOutput& out = SampleRun();
  ASSERT_EQ(out.runs.size(), 1u);
  const SpotSeedRun& run = out.runs.front();
  ASSERT_GT(run.draw.preemptions.size(), 50u);
  ASSERT_EQ(run.figures.size(), 3u);
  for (const SpotFigures& f : run.figures) {
    EXPECT_EQ(f.spot.notices, static_cast<int>(run.draw.preemptions.size())) << f.policy;
    EXPECT_EQ(f.replay.finished, f.replay.jobs) << f.policy;
  }
}

TEST(SpotReplay, CheckpointThenRequeueLosesNoMoreThanEvictOnNotice) {
  const SpotFigures& checkpointed = FiguresOf(SampleRun(), "checkpoint-then-requeue");
  const SpotFigures& evicted = FiguresOf(SampleRun(), "evict-on-notice");
  EXPECT_GT(checkpointed.spot.checkpoints_in_time, 0);
  EXPECT_LE(checkpointed.LostGpuSeconds(), evicted.LostGpuSeconds());
}

TEST(SpotReplay, IgnoringNoticesBreaksGangsAndTheOthersDoNot) {
  const SpotFigures& ignored = FiguresOf(SampleRun(), "ignore");
  EXPECT_GT(ignored.spot.gangs_broken, 0);
  EXPECT_GT(ignored.stranded_gpu_seconds, 0);
  for (const char* policy : {"checkpoint-then-requeue", "evict-on-notice"}) {
    const SpotFigures& f = FiguresOf(SampleRun(), policy);
    EXPECT_EQ(f.spot.gangs_broken, 0) << policy;
    EXPECT_EQ(f.spot.jobs_killed, 0) << policy;
    EXPECT_EQ(f.stranded_gpu_seconds, 0) << policy;
  }
}

TEST(SpotReplay, SameSeedSameResultOnAnyNumberOfThreads) {
  SpotReplayOptions o = Sample();
  o.threads = 1;
  const SpotReplayOutput again =
      RunSpotReplayInMemory(LoadPhillyTrace(o.replay.jobs_path, o.replay.vcs_path, o.replay.max_jobs), o);
  const SpotSeedRun& first = SampleRun().runs.front();
  const SpotSeedRun& second = again.runs.front();
  ASSERT_EQ(second.results.size(), first.results.size());
  for (size_t p = 0; p < first.results.size(); ++p) {
    EXPECT_EQ(second.figures[p].LostGpuSeconds(), first.figures[p].LostGpuSeconds());
    EXPECT_EQ(second.figures[p].spot.checkpoints_in_time, first.figures[p].spot.checkpoints_in_time);
    for (size_t j = 0; j < first.results[p].jobs.size(); ++j) {
      ASSERT_EQ(second.results[p].jobs[j].start, first.results[p].jobs[j].start) << j;
      ASSERT_EQ(second.results[p].jobs[j].end, first.results[p].jobs[j].end) << j;
    }
  }
}

TEST(SpotReplay, SeedsDrawTheirOwnReclaimsAndTheSummaryAveragesThem) {
  SpotReplayOptions o = Sample();
  o.replay.max_jobs = 500;
  o.spot_seeds = "1..2";
  const SpotReplayOutput out =
      RunSpotReplayInMemory(LoadPhillyTrace(o.replay.jobs_path, o.replay.vcs_path, o.replay.max_jobs), o);
  ASSERT_EQ(out.runs.size(), 2u);
  EXPECT_NE(out.runs[0].draw.preemptions.front().notice_at, out.runs[1].draw.preemptions.front().notice_at);
  ASSERT_EQ(out.summary.size(), 3u);
  for (size_t p = 0; p < out.summary.size(); ++p) {
    const double mean = (out.runs[0].figures[p].LostGpuSeconds() + out.runs[1].figures[p].LostGpuSeconds()) / 2 / 3600;
    EXPECT_NEAR(out.summary[p]["lost_gpu_hours"].mean, mean, 1e-9) << out.summary[p].policy;
    EXPECT_EQ(out.summary[p].seeds, 2);
  }
}

TEST(SpotReplay, SenselessOptionsAreRefusedByName) {
  SpotReplayOptions o = Sample();
  o.spot_fraction = 2;
  EXPECT_THROW(ValidateSpotOptions(o), std::invalid_argument);
  o = Sample();
  o.policies = {"checkpoint-then-requeue", "pray"};
  try {
    ValidateSpotOptions(o);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown spot policy 'pray'"));
  }
  o = Sample();
  o.notice_seconds = -1;
  EXPECT_THROW(ValidateSpotOptions(o), std::invalid_argument);
  o = Sample();
  o.spot_seeds = "3..1";
  try {
    ValidateSpotOptions(o);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--spot-seeds"));
  }
}

TEST(SpotReplay, WritesSummaryAndReport) {
  SpotReplayOptions o = Sample();
  o.replay.max_jobs = 300;
  o.replay.out_dir = (std::filesystem::temp_directory_path() / "gangplank_spot_replay_test").string();
  std::filesystem::remove_all(o.replay.out_dir);
  std::ostringstream log;
  ASSERT_EQ(RunSpotReplay(o, log), 0);
  const CsvTable summary = CsvTable::Load(o.replay.out_dir + "/summary.csv");
  ASSERT_EQ(summary.rows(), 3u);
  EXPECT_EQ(summary.Text(0, 0), "checkpoint-then-requeue");
  EXPECT_EQ(summary.Text(2, 0), "ignore");
  summary.Column("lost_gpu_hours_mean");
  summary.Column("stranded_gpu_hours_sd");
  summary.Column("jct_p95_hours_mean");
  summary.Column("checkpoints_late_mean");
  const CsvTable runs = CsvTable::Load(o.replay.out_dir + "/runs.csv");
  EXPECT_EQ(runs.rows(), 3u);
  runs.Column("seed");
  runs.Column("gangs_broken");
  std::ifstream json(o.replay.out_dir + "/summary.json");
  std::stringstream json_text;
  json_text << json.rdbuf();
  EXPECT_THAT(json_text.str(), HasSubstr("\"runs\""));
  EXPECT_THAT(json_text.str(), HasSubstr("\"lost_gpu_hours\""));
  std::ifstream html(o.replay.out_dir + "/report.html");
  std::stringstream html_text;
  html_text << html.rdbuf();
  EXPECT_THAT(html_text.str(), HasSubstr("<svg"));
  EXPECT_THAT(html_text.str(), HasSubstr("GPUs stranded by broken gangs"));
  EXPECT_THAT(log.str(), HasSubstr("| checkpoint-then-requeue |"));
  std::filesystem::remove_all(o.replay.out_dir);
}

}  // namespace
}  // namespace gangplank::simulator
