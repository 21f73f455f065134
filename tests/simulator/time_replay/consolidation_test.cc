// Consolidation in the time replay, on consolidation_jobs.csv (two 8-GPU nodes, VCs a and b):
//   at 0     b's four 4-GPU jobs: two run 100000 s, two 50 s, packed two a node; at 50 the short ones
//            end and each node keeps one long job and four free GPUs.
//   at 100   W, a's 8-GPU job: the pool has 8 free GPUs but no node with 8.
// With consolidation W may move a long job once it has waited reclaim's minimum wait (3600 s), which
// is also the long jobs' minimum runtime: at 3700 one long job is moved into the other node's hole
// (losing the 100 s since its hourly checkpoint at 3600), W starts at once and the moved job with it;
// the moved job ends 96400 s later, at 100100. Without consolidation W waits for a long job to end.
#include <gtest/gtest.h>

#include "simulator/time_replay/job_trace.h"
#include "simulator/time_replay/run_time_replay.h"
#include "tests/simulator/time_replay/tiny_options.h"

namespace gangplank::simulator {
namespace {

const std::string kData = TIME_REPLAY_TESTDATA;
constexpr int kW = 4;

TimeReplayOutput Replay(bool consolidate) {
  TimeReplayOptions o = testing::TinyOptions();
  o.consolidate = consolidate;
  o.schedulers = {"gangplank"};
  return RunTimeReplayInMemory(LoadPhillyTrace(kData + "/consolidation_jobs.csv", kData + "/two_vcs.csv"), o);
}

TEST(ConsolidationReplay, AJobIsMovedIntoAHoleSoAWholeNodeJobStarts) {
  const TimeReplayOutput out = Replay(true);
  const ReplayResult& r = testing::ResultOf(out, "gangplank");
  EXPECT_DOUBLE_EQ(r.jobs[kW].start, 3700);
  EXPECT_DOUBLE_EQ(r.jobs[kW].end, 3800);
  ASSERT_EQ(r.moves, 1);
  EXPECT_DOUBLE_EQ(r.move_lost_gpu_seconds, 100 * 4);
  const int moved = r.jobs[0].preemptions == 1 ? 0 : 2;
  EXPECT_EQ(r.jobs[moved].preemptions, 1);
  EXPECT_EQ(r.jobs[2 - moved].preemptions, 0) << "one move makes the room; the other long job stays";
  EXPECT_DOUBLE_EQ(r.jobs[moved].start, 0) << "the queueing delay counts the first start";
  EXPECT_DOUBLE_EQ(r.jobs[moved].end, 100100) << "restarted at once, from its checkpoint at 3600";
}

TEST(ConsolidationReplay, WithoutItTheWholeNodeJobWaitsForALongJobToEnd) {
  const TimeReplayOutput out = Replay(false);
  const ReplayResult& r = testing::ResultOf(out, "gangplank");
  EXPECT_DOUBLE_EQ(r.jobs[kW].start, 100000);
  EXPECT_EQ(r.moves, 0);
  EXPECT_EQ(r.preemptions, 0);
}

}  // namespace
}  // namespace gangplank::simulator
