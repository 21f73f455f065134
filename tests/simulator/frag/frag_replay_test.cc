#include "simulator/frag/frag_replay.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "simulator/frag/frag_runner.h"
#include "simulator/frag/seed_list.h"
#include "simulator/openb/openb_loader.h"

namespace gangplank::simulator::frag {
namespace {

std::vector<engine::PodRequest> Requests(const std::vector<openb::OpenbPod>& pods) {
  std::vector<engine::PodRequest> out;
  for (const auto& p : pods) out.push_back(p.request);
  return out;
}

const std::string kData = GANGPLANK_FRAG_TESTDATA;

// tiny_nodes.csv: n1 (2 GPUs, 16 CPU), n2 (1 GPU, 8 CPU): 3000 milli-GPU. tiny_pods.csv in trace order,
// BestFit (score = trunc(100 * (1 - 0.5 cpu_left/128000 - 0.5 gpu_left/8000))):
//   p1 1 GPU, 4 CPU:  n1 -> 89, n2 -> 98: n2.            arrived 1000 (33.3%), allocated 1000 (33.3%)
//   p2 500 milli:     only n1 has a free GPU: n1 GPU 0.   arrived 1500 (50%),   allocated 1500 (50%)
//   p3 2 GPUs:        n1 has one whole GPU left: fails.   arrived 3500 (116.7%), allocated 1500 (50%)
//   p4 500 milli:     n1 GPU 0 (500 free) by best fit.    arrived 4000 (133.3%), allocated 2000 (66.7%)
//   p5 CPU only:      n1 -> 89, n2 -> 98: n2.             unchanged
// The requests (4000) already exceed 130% of 3000, so nothing is resampled. At 100% arrived the allocation
// is interpolated between (50, 50) and (116.7, 50): 50%, so 50% of the GPUs are unallocated.
TEST(FragReplay, TinyTraceMatchesTheHandComputation) {
  auto nodes = openb::LoadNodes(kData + "/tiny_nodes.csv");
  auto pods = Requests(openb::LoadPods(kData + "/tiny_pods.csv"));
  FragReplayResult r = RunFragReplay(nodes, pods, "bestfit", 42, 1.3, ArrivalMode::kTraceOrder);
  ASSERT_EQ(r.curve.size(), 5u);
  const double third = 100.0 / 3.0;
  const std::vector<std::pair<double, double>> expected{
      {third, third}, {50, 50}, {3.5 * third, 50}, {4 * third, 2 * third}, {4 * third, 2 * third}};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(r.curve[i].arrived_percent, expected[i].first, 1e-9) << i;
    EXPECT_NEAR(r.curve[i].allocated_percent, expected[i].second, 1e-9) << i;
  }
  EXPECT_EQ(r.pods_arrived, 5);
  EXPECT_EQ(r.pods_failed, 1);
  EXPECT_EQ(r.capacity_gpu_milli, 3000);
  EXPECT_NEAR(100.0 - AllocationAt(r.curve, 100.0), 50.0, 1e-9);
}

TEST(ArrivalOrder, ShufflesThenTopsUpToTheTarget) {
  std::vector<engine::PodRequest> pods(10);
  for (int i = 0; i < 10; ++i) {
    pods[static_cast<size_t>(i)].gpu_count = 1;
    pods[static_cast<size_t>(i)].gpu_milli = 100 * (i + 1);
  }
  // Requests total 5500 milli; capacity 5000, target 130% = 6500.
  auto order = ArrivalOrder(pods, 5000, 1.3, 7);
  std::vector<size_t> first(order.begin(), order.begin() + 10);
  std::sort(first.begin(), first.end());
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(first[i], i);  // A permutation of all pods first.
  std::int64_t total = 0, before_last = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    before_last = total;
    total += pods[order[k]].TotalGpuMilli();
  }
  EXPECT_GE(total, 6500);
  EXPECT_LT(before_last, 6500);  // Stops as soon as the target is reached.
  EXPECT_EQ(order, ArrivalOrder(pods, 5000, 1.3, 7));
  EXPECT_NE(order, ArrivalOrder(pods, 5000, 1.3, 8));
  auto trace = ArrivalOrder(pods, 5000, 1.3, 7, ArrivalMode::kTraceOrder);
  std::vector<size_t> tail(trace.end() - 10, trace.end());
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(tail[i], i);  // Original pods last, in trace order.
}

TEST(Curves, AllocationAtInterpolatesAndDownsampleKeepsTheEnds) {
  std::vector<CurvePoint> curve{{10, 10}, {50, 40}, {150, 80}};
  EXPECT_DOUBLE_EQ(AllocationAt(curve, 100), 60);
  EXPECT_DOUBLE_EQ(AllocationAt(curve, 5), 10);
  EXPECT_DOUBLE_EQ(AllocationAt(curve, 200), 80);
  EXPECT_DOUBLE_EQ(AllocationAt({}, 100), 0);
  std::vector<CurvePoint> dense;
  for (int i = 1; i <= 1000; ++i) dense.push_back({i * 0.13, i * 0.1});
  auto d = Downsample(dense, 1.0);
  EXPECT_LT(d.size(), 140u);
  EXPECT_GT(d.size(), 125u);
  EXPECT_DOUBLE_EQ(d.front().arrived_percent, dense.front().arrived_percent);
  EXPECT_DOUBLE_EQ(d.back().arrived_percent, dense.back().arrived_percent);
}

TEST(Runner, SummarisesMeanAndSampleDeviationPerPolicy) {
  auto nodes = openb::LoadNodes(kData + "/tiny_nodes.csv");
  auto pods = Requests(openb::LoadPods(kData + "/tiny_pods.csv"));
  auto results = RunFragReplays(nodes, pods, {"bestfit", "random"}, {1, 2, 3}, 1.3, 2);
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0].policy, "bestfit");
  EXPECT_EQ(results[3].policy, "random");
  EXPECT_EQ(results[4].seed, 2u);
  auto summary = Summarise(results);
  ASSERT_EQ(summary.size(), 2u);
  double sum = 0;
  for (int i = 0; i < 3; ++i) sum += 100.0 - AllocationAt(results[static_cast<size_t>(i)].curve, 100.0);
  EXPECT_NEAR(summary[0].unallocated_at_100_mean, sum / 3, 1e-9);
  EXPECT_EQ(summary[0].runs, 3);
  EXPECT_THROW(RunFragReplays(nodes, pods, {"nope"}, {1}, 1.3, 2), std::invalid_argument);
}

TEST(SeedList, ParsesRangesAndListsAndRejectsNonsense) {
  EXPECT_EQ(ParseSeedList("42..45"), (std::vector<std::uint64_t>{42, 43, 44, 45}));
  EXPECT_EQ(ParseSeedList("1,7,3..4"), (std::vector<std::uint64_t>{1, 7, 3, 4}));
  EXPECT_THROW(ParseSeedList(""), std::invalid_argument);
  EXPECT_THROW(ParseSeedList("5..2"), std::invalid_argument);
  EXPECT_THROW(ParseSeedList("a"), std::invalid_argument);
  EXPECT_THROW(ParseSeedList("1..99999"), std::invalid_argument);
}

}  // namespace
}  // namespace gangplank::simulator::frag
