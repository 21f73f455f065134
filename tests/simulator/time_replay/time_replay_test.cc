#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/policies/registry.h"
#include "simulator/csv_table.h"
#include "simulator/time_replay/replay_cluster.h"
#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/gang_schedulers.h"
#include "simulator/time_replay/job_trace.h"
#include "simulator/time_replay/replay_workload.h"
#include "simulator/time_replay/run_time_replay.h"
#include "tests/simulator/time_replay/tiny_options.h"

namespace gangplank::simulator {
namespace {

using ::testing::HasSubstr;

const std::string kData = TIME_REPLAY_TESTDATA;

// Two 8-GPU nodes, each its own rack, row and zone. The golden traces below were worked out without
// reclaim; the reclaim tests turn it on.
using testing::TinyOptions;

using testing::ResultOf;

struct Times {
  double start, end;
};

void ExpectTimes(const ReplayResult& r, const std::vector<Times>& want) {
  ASSERT_EQ(r.jobs.size(), want.size()) << r.scheduler;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_DOUBLE_EQ(r.jobs[i].start, want[i].start) << r.scheduler << " job " << i;
    EXPECT_DOUBLE_EQ(r.jobs[i].end, want[i].end) << r.scheduler << " job " << i;
  }
}

TimeReplayOutput Replay(const std::string& jobs, const TimeReplayOptions& options = TinyOptions()) {
  return RunTimeReplayInMemory(LoadPhillyTrace(kData + "/" + jobs, kData + "/two_vcs.csv"), options);
}

TEST(TimeReplayGolden, FairShareLetsTheQueueBelowItsShareGoFirst) {
  // Jobs: j0 a 8 GPUs at 0 for 100; j1 a 8 at 10 for 100; j2 a 8 at 20 for 50; j3 b 4 at 30 for 60.
  // j0 and j1 fill both nodes. At 100 j0 ends: a holds 8 and wants 16 in all, b wants 4; fair shares
  // (16 GPUs, guarantees 8 each, weights 1:1) are a 12, b 4, so b (0/4) goes before a (8/12): j3 starts
  // at 100 on the freed node and j2 (8 GPUs) no longer fits until j1 ends at 110. j3 ends 160, j2 160.
  // fifo-gang and kube-like take j2 first at 100 (arrival order) and j3 when j1 ends at 110.
  const TimeReplayOutput out = Replay("golden_jobs.csv");
  ExpectTimes(ResultOf(out, "gangplank"), {{0, 100}, {10, 110}, {110, 160}, {100, 160}});
  ExpectTimes(ResultOf(out, "fifo-gang"), {{0, 100}, {10, 110}, {100, 150}, {110, 170}});
  ExpectTimes(ResultOf(out, "kube-like"), {{0, 100}, {10, 110}, {100, 150}, {110, 170}});
  const SchedulerFigures& g = out.figures[0];
  ASSERT_EQ(g.scheduler, "gangplank");
  // Delays 0, 0, 90, 70; JCTs 100, 100, 140, 130.
  EXPECT_DOUBLE_EQ(g.delay.mean, 40);
  EXPECT_DOUBLE_EQ(g.delay.p50, 0);
  EXPECT_DOUBLE_EQ(g.delay.p99, 90);
  EXPECT_DOUBLE_EQ(g.jct.mean, 117.5);
  EXPECT_DOUBLE_EQ(g.jct.p50, 100);
  EXPECT_DOUBLE_EQ(g.jct.p99, 140);
  // Window [0, 30]: 8 GPUs busy 0..10, 16 GPUs 10..30 -> 400 of 16 x 30 GPU-seconds.
  EXPECT_DOUBLE_EQ(g.utilisation, 400.0 / 480.0);
  EXPECT_EQ(g.held_incomplete_gpu_seconds, 0);
}

TEST(TimeReplayGolden, KubeLikeHoldsGpusForAnIncompleteGangAndGangplankDoesNot) {
  // j0 a 8 GPUs at 0 for 100; j1 b 16 GPUs (two 8-GPU pods) at 1 for 50; j2 a 1 GPU at 2 for 10.
  // kube-like: j1's first pod takes the free node at 1 and holds it until j0 ends at 100, when the
  // second pod lands: 8 GPUs x 99 s = 792 GPU-seconds held by an incomplete gang. j2 finds no GPU until
  // j1 ends at 150. gangplank: j1 does not fit whole, so nothing is placed; j2 backfills at 2.
  // fifo-gang: j1 blocks j2 (strict order) until 100, j2 then waits for j1 to end.
  const TimeReplayOutput out = Replay("held_jobs.csv");
  const ReplayResult& kube = ResultOf(out, "kube-like");
  ExpectTimes(kube, {{0, 100}, {100, 150}, {150, 160}});
  EXPECT_DOUBLE_EQ(kube.held_incomplete_gpu_seconds, 792);
  const ReplayResult& gang = ResultOf(out, "gangplank");
  ExpectTimes(gang, {{0, 100}, {100, 150}, {2, 12}});
  EXPECT_EQ(gang.held_incomplete_gpu_seconds, 0);
  const ReplayResult& fifo = ResultOf(out, "fifo-gang");
  ExpectTimes(fifo, {{0, 100}, {100, 150}, {150, 160}});
  EXPECT_EQ(fifo.held_incomplete_gpu_seconds, 0);
  for (const ReplaySample& s : gang.samples) EXPECT_EQ(s.held_incomplete, 0);
}

TEST(TimeReplayGolden, KubeLikeDeadlockTerminatesAndIsReported) {
  // j0, j1: a, 4 GPUs at 0 for 1000; kube-like spreads them, one per node. j2, j3: b, 12 GPUs (8 + 4) at
  // 1. Each gets its 4-GPU pod placed (filling both nodes) and waits for an 8-GPU slot that can never
  // appear: after 1000 each node has 4 free GPUs. The replay ends at 1000 with both gangs stuck, 8 GPUs
  // held from 1 to 1000. gangplank runs j2 at 1000 (8 on one node, 4 on the other) and j3 after it.
  const TimeReplayOutput out = Replay("deadlock_jobs.csv");
  const ReplayResult& kube = ResultOf(out, "kube-like");
  EXPECT_EQ(kube.never_started, 2);
  EXPECT_EQ(kube.stuck_jobs_holding_gpus, 2);
  EXPECT_EQ(kube.stuck_held_gpus, 8);
  EXPECT_DOUBLE_EQ(kube.makespan, 1000);
  EXPECT_DOUBLE_EQ(kube.held_incomplete_gpu_seconds, 8 * 999);
  const ReplayResult& gang = ResultOf(out, "gangplank");
  EXPECT_EQ(gang.never_started, 0);
  ExpectTimes(gang, {{0, 1000}, {0, 1000}, {1000, 1010}, {1010, 1020}});
  EXPECT_EQ(gang.held_incomplete_gpu_seconds, 0);
}

TEST(TimeReplay, SameSeedSameResult) {
  TimeReplayOptions o;
  o.nodes = 12;
  o.max_jobs = 1500;
  o.progress = false;
  o.seed = 7;
  const std::string jobs = std::string(kTimeReplayDataDir) + "/philly/philly_jobs_sep_oct_2017.csv";
  const std::string vcs = std::string(kTimeReplayDataDir) + "/philly/philly_vc.csv";
  const JobTrace trace = LoadPhillyTrace(jobs, vcs, o.max_jobs);
  const TimeReplayOutput a = RunTimeReplayInMemory(trace, o);
  const TimeReplayOutput b = RunTimeReplayInMemory(trace, o);
  ASSERT_EQ(a.results.size(), 3u);
  int waited = 0;
  for (size_t s = 0; s < a.results.size(); ++s) {
    ASSERT_EQ(a.results[s].jobs.size(), 1500u);
    for (size_t j = 0; j < a.results[s].jobs.size(); ++j) {
      EXPECT_EQ(a.results[s].jobs[j].start, b.results[s].jobs[j].start);
      EXPECT_EQ(a.results[s].jobs[j].end, b.results[s].jobs[j].end);
      waited += a.results[s].jobs[j].start > trace.jobs[j].arrival ? 1 : 0;
    }
    EXPECT_EQ(a.results[s].held_incomplete_gpu_seconds, b.results[s].held_incomplete_gpu_seconds);
    EXPECT_EQ(a.results[s].preemptions, b.results[s].preemptions);  // Reclaim is on by default.
    EXPECT_EQ(a.results[s].lost_gpu_seconds, b.results[s].lost_gpu_seconds);
  }
  EXPECT_GT(waited, 100) << "the cluster must be small enough for jobs to queue, or the test shows little";
  EXPECT_EQ(ResultOf(a, "gangplank").held_incomplete_gpu_seconds, 0);
}

TEST(TimeReplay, ReservationsStillPlaceAllOrNothing) {
  const JobTrace trace = LoadPhillyTrace(std::string(kTimeReplayDataDir) + "/philly/philly_jobs_sep_oct_2017.csv",
                                         std::string(kTimeReplayDataDir) + "/philly/philly_vc.csv", 3000);
  ClusterShape shape;
  shape.nodes = 10;
  const engine::Cluster cluster = BuildReplayCluster(shape);
  const Workload workload = MakeWorkload(trace, cluster.total_gpus(), shape.gpus_per_node, 1);
  GangplankScheduler scheduler(cluster, workload, 1, engine::policies::MakePolicy("bestfit", {}));
  scheduler.set_reserve_after(600);
  const ReplayResult result = RunReplay(workload, scheduler, ReplayConfig{});
  EXPECT_GT(scheduler.reservations_made(), 0) << "the case must exercise reservations";
  EXPECT_EQ(result.never_started, 0);
  EXPECT_EQ(result.held_incomplete_gpu_seconds, 0);
  EXPECT_EQ(scheduler.cluster().allocated_gpu_milli(), 0) << "every GPU returned at the end";
}

TEST(TimeReplay, ReclaimKeepsGangsWholeAndFinishesEveryJob) {
  const JobTrace trace = LoadPhillyTrace(std::string(kTimeReplayDataDir) + "/philly/philly_jobs_sep_oct_2017.csv",
                                         std::string(kTimeReplayDataDir) + "/philly/philly_vc.csv", 1500);
  ClusterShape shape;
  shape.nodes = 12;
  const engine::Cluster cluster = BuildReplayCluster(shape);
  Workload workload = MakeWorkload(trace, cluster.total_gpus(), shape.gpus_per_node, 1);
  workload.checkpoint_seconds = 1800;
  GangplankScheduler scheduler(cluster, workload, 1, engine::policies::MakePolicy("bestfit", {}));
  engine::ReclaimConfig reclaim;
  reclaim.enabled = true;
  reclaim.min_wait_seconds = 600;
  reclaim.min_runtime_seconds = 600;
  scheduler.set_reclaim(reclaim);
  scheduler.set_reserve_after(1800);
  const ReplayResult result = RunReplay(workload, scheduler, ReplayConfig{});
  EXPECT_GT(result.preemptions, 0) << "the case must exercise reclaim";
  EXPECT_GT(result.lost_gpu_seconds, 0);
  EXPECT_EQ(result.never_started, 0);
  int preemptions = 0;
  for (const JobOutcome& o : result.jobs) {
    EXPECT_GE(o.end, 0) << "an evicted job must be restarted and finish";
    preemptions += o.preemptions;
  }
  EXPECT_EQ(preemptions, result.preemptions);
  EXPECT_EQ(result.held_incomplete_gpu_seconds, 0);
  EXPECT_EQ(scheduler.cluster().allocated_gpu_milli(), 0) << "every GPU returned at the end";
}

TEST(TimeReplayInput, BadTimestampNamesFileLineAndColumn) {
  const std::string jobs =
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-01 00:00:00,100,8,800,a\n"
      "2017-02-30 00:00:00,100,8,800,a\n";
  try {
    ParsePhillyTrace(jobs, "jobs.csv", "vc,node num\na,1\n", "vcs.csv");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("jobs.csv:3:1: expected a timestamp"));
    EXPECT_THAT(e.what(), HasSubstr("2017-02-30"));
  }
}

TEST(TimeReplayInput, BadValuesNameTheirColumn) {
  const std::string vcs = "vc,node num\na,1\n";
  const std::string header = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  EXPECT_THROW(
      {
        try {
          ParsePhillyTrace(header + "2017-10-01 00:00:00,100,eight,800,a\n", "j.csv", vcs, "v.csv");
        } catch (const InputError& e) {
          EXPECT_THAT(e.what(), HasSubstr("j.csv:2:25: expected an integer in column 'num_gpus'"));
          throw;
        }
      },
      InputError);
  EXPECT_THROW(
      {
        try {
          ParsePhillyTrace(header + "2017-10-01 00:00:00,-5,8,800,a\n", "j.csv", vcs, "v.csv");
        } catch (const InputError& e) {
          EXPECT_THAT(e.what(), HasSubstr("j.csv:2:21: duration must be"));
          throw;
        }
      },
      InputError);
  EXPECT_THROW(
      {
        try {
          ParsePhillyTrace(header + "2017-10-01 00:00:00,5,0,0,a\n", "j.csv", vcs, "v.csv");
        } catch (const InputError& e) {
          EXPECT_THAT(e.what(), HasSubstr("j.csv:2:23: num_gpus must be"));
          throw;
        }
      },
      InputError);
  EXPECT_THROW(
      {
        try {
          ParsePhillyTrace("timestamp,duration,gpus,cluster\n", "j.csv", vcs, "v.csv");
        } catch (const InputError& e) {
          EXPECT_THAT(e.what(), HasSubstr("j.csv:1:1: missing column 'num_gpus'"));
          throw;
        }
      },
      InputError);
  EXPECT_THROW(
      {
        try {
          ParsePhillyTrace(header + "2017-10-01 00:00:00,5,1,5,a\n", "j.csv", "vc,node num\na,-3\n", "v.csv");
        } catch (const InputError& e) {
          EXPECT_THAT(e.what(), HasSubstr("v.csv:2:3: node count -3 out of range"));
          throw;
        }
      },
      InputError);
  EXPECT_THROW(ParsePhillyTrace(header, "j.csv", vcs, "v.csv"), InputError);  // No jobs.
  EXPECT_THROW(LoadPhillyTrace(kData + "/does_not_exist.csv", kData + "/two_vcs.csv"), InputError);
}

TEST(TimeReplayInput, VcMissingFromTheVcFileGetsNoGuarantee) {
  const JobTrace trace = ParsePhillyTrace(
      "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:05,5,1,5,a\n2017-10-01 00:00:00,5,2,10,zz\n",
      "j.csv", "vc,node num\na,3\nb,1\n", "v.csv");
  ASSERT_EQ(trace.queues.size(), 3u);
  EXPECT_EQ(trace.queues[2].name, "zz");
  EXPECT_FALSE(trace.queues[2].in_vc_file);
  ASSERT_EQ(trace.notes.size(), 1u);
  EXPECT_THAT(trace.notes[0], HasSubstr("zz has 1 jobs but no row in v.csv"));
  // Sorted by arrival and rebased to the earliest.
  EXPECT_EQ(trace.jobs[0].queue, 2);
  EXPECT_EQ(trace.jobs[0].arrival, 0);
  EXPECT_EQ(trace.jobs[1].arrival, 5);
  const Workload w = MakeWorkload(trace, 64, 8, 1);
  EXPECT_DOUBLE_EQ(w.queues[0].guaranteed_gpus, 48);  // 3 of 4 VC nodes x 64 GPUs
  EXPECT_DOUBLE_EQ(w.queues[0].weight, 3);
  EXPECT_DOUBLE_EQ(w.queues[2].guaranteed_gpus, 0);
  EXPECT_DOUBLE_EQ(w.queues[2].weight, 1);
  const Workload compressed = MakeWorkload(trace, 64, 8, 5);
  EXPECT_DOUBLE_EQ(compressed.jobs[1].arrival, 1);
  EXPECT_DOUBLE_EQ(compressed.jobs[1].duration, 5);
}

TEST(TimeReplayWorkload, SplitsLargeJobsIntoWholeNodePodsAndARemainder) {
  EXPECT_EQ(SplitIntoPods(1, 8), (std::vector<int>{1}));
  EXPECT_EQ(SplitIntoPods(8, 8), (std::vector<int>{8}));
  EXPECT_EQ(SplitIntoPods(12, 8), (std::vector<int>{8, 4}));
  EXPECT_EQ(SplitIntoPods(32, 8), (std::vector<int>{8, 8, 8, 8}));
  EXPECT_EQ(SplitIntoPods(0, 8), (std::vector<int>{}));
}

TEST(TimeReplayWorkload, TimestampsParseExactly) {
  std::int64_t s = 0;
  EXPECT_TRUE(ParseTimestamp("1970-01-01 00:00:01", s));
  EXPECT_EQ(s, 1);
  EXPECT_TRUE(ParseTimestamp("2016-02-29 12:00:00", s));
  EXPECT_EQ(s, 1456747200);
  EXPECT_FALSE(ParseTimestamp("2017-02-29 12:00:00", s));
  EXPECT_FALSE(ParseTimestamp("2017-09-04T10:30:41", s));
  EXPECT_FALSE(ParseTimestamp("2017-09-04 24:00:00", s));
  EXPECT_FALSE(ParseTimestamp("2017-9-04 10:30:41", s));
}

TEST(TimeReplayGolden, ReclaimEvictsTheOverShareQueueOnceGuardrailsAllow) {
  // Reclaim after 50 s of waiting, victims past 100 s of runtime, checkpoints every 30 s.
  // j0 a 8 GPUs at 0 for 1000; j1 a 8 at 10 for 1000; j2 b 8 at 20 for 100. Shares (guarantees 8 + 8)
  // a 8, b 8: a holds 16, b waits below its share. At 70 (j2 waited 50 s; a wake-up, no event) no
  // victim is old enough: j0 ran 70 s, j1 60 s. At 100 j0 has run 100 s: it is evicted (a keeps its
  // guarantee of 8), losing the 10 s since its checkpoint at 90 (8 x 10 = 80 GPU-s), and j2 starts on
  // its node, ending at 200. j0, back at the head of a, restarts at 200 with 910 s left: ends 1110.
  // j1 is never touched (ends 1010). Without reclaim j2 waits for j0: starts 1000, ends 1100.
  TimeReplayOptions o = TinyOptions();
  o.reclaim = true;
  o.reclaim_after_seconds = 50;
  o.reclaim_min_runtime_seconds = 100;
  o.checkpoint_seconds = 30;
  o.schedulers = {"gangplank", "fifo-gang"};
  const TimeReplayOutput out = Replay("reclaim_jobs.csv", o);
  const ReplayResult& g = ResultOf(out, "gangplank");
  ExpectTimes(g, {{0, 1110}, {10, 1010}, {100, 200}});
  EXPECT_EQ(g.preemptions, 1);
  EXPECT_EQ(g.jobs[0].preemptions, 1);
  EXPECT_DOUBLE_EQ(g.lost_gpu_seconds, 80);
  EXPECT_DOUBLE_EQ(g.jobs[0].lost_gpu_seconds, 80);
  EXPECT_EQ(g.held_incomplete_gpu_seconds, 0);
  const SchedulerFigures& f = out.figures[0];
  EXPECT_EQ(f.preemptions, 1);
  EXPECT_EQ(f.preempted_jobs, 1);
  ASSERT_EQ(f.by_size[1].label, "2-8");
  EXPECT_EQ(f.by_size[1].delay.count, 3);
  EXPECT_DOUBLE_EQ(f.by_size[1].delay.mean, 80.0 / 3);  // Delays 0, 0, 80 (first starts).
  // fifo-gang never reclaims.
  ExpectTimes(ResultOf(out, "fifo-gang"), {{0, 1000}, {10, 1010}, {1000, 1100}});
  EXPECT_EQ(ResultOf(out, "fifo-gang").preemptions, 0);

  // Without checkpoints j0 loses all 100 s (800 GPU-s) and restarts with 1000 s left: ends 1200.
  o.checkpoint_seconds = 0;
  const TimeReplayOutput no_checkpoints = Replay("reclaim_jobs.csv", o);
  const ReplayResult& none = ResultOf(no_checkpoints, "gangplank");
  ExpectTimes(none, {{0, 1200}, {10, 1010}, {100, 200}});
  EXPECT_DOUBLE_EQ(none.lost_gpu_seconds, 800);

  // Reclaim off: the fair-share order alone cannot help b.
  o.reclaim = false;
  const TimeReplayOutput no_reclaim = Replay("reclaim_jobs.csv", o);
  const ReplayResult& off = ResultOf(no_reclaim, "gangplank");
  ExpectTimes(off, {{0, 1000}, {10, 1010}, {1000, 1100}});
  EXPECT_EQ(off.preemptions, 0);
}

TEST(TimeReplayGolden, ReclaimRespectsTheGuarantee) {
  // As above, but a's guarantee covers both of its jobs (b's VC file share is 0): nothing is evicted.
  TimeReplayOptions o = TinyOptions();
  o.reclaim = true;
  o.reclaim_after_seconds = 50;
  o.reclaim_min_runtime_seconds = 100;
  o.vcs_path = kData + "/a_guaranteed.csv";
  o.schedulers = {"gangplank"};
  const TimeReplayOutput out =
      RunTimeReplayInMemory(LoadPhillyTrace(kData + "/reclaim_jobs.csv", kData + "/a_guaranteed.csv"), o);
  ExpectTimes(out.results[0], {{0, 1000}, {10, 1010}, {1000, 1100}});
  EXPECT_EQ(out.results[0].preemptions, 0);
}

TEST(TimeReplayOutputFiles, WritesMetricsAndReport) {
  TimeReplayOptions o = TinyOptions();
  o.jobs_path = kData + "/held_jobs.csv";
  o.vcs_path = kData + "/two_vcs.csv";
  o.out_dir = (std::filesystem::temp_directory_path() / "gangplank_time_replay_test").string();
  std::filesystem::remove_all(o.out_dir);
  std::ostringstream log;
  ASSERT_EQ(RunTimeReplay(o, log), 0);
  for (const char* file : {"summary.csv", "summary.json", "report.html", "jobs_gangplank.csv", "jobs_kube-like.csv",
                           "timeseries_fifo-gang.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(o.out_dir + "/" + file)) << file;
  }
  const CsvTable summary = CsvTable::Load(o.out_dir + "/summary.csv");
  ASSERT_EQ(summary.rows(), 3u);
  EXPECT_EQ(summary.Text(1, 0), "kube-like");
  EXPECT_EQ(summary.Double(1, summary.Column("held_incomplete_gpu_seconds")), 792);
  EXPECT_EQ(summary.Double(0, summary.Column("held_incomplete_gpu_seconds")), 0);
  std::ifstream html(o.out_dir + "/report.html");
  std::stringstream text;
  text << html.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("<svg"));
  EXPECT_THAT(text.str(), HasSubstr("GPUs held by incomplete gangs"));
  EXPECT_THAT(log.str(), HasSubstr("kube-like"));
  std::filesystem::remove_all(o.out_dir);
}

}  // namespace
}  // namespace gangplank::simulator
