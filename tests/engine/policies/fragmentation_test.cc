#include <gtest/gtest.h>

#include "engine/place_pod.h"
#include "engine/policies/fgd/fgd.h"
#include "engine/policies/frag_pack/frag_pack.h"
#include "engine/policies/fragmentation/node_fragmentation.h"
#include "engine/policies/fragmentation/typical_tasks.h"
#include "test_cluster.h"

namespace gangplank::engine::policies {
namespace {

using testing::Node;
using testing::Pod;
using testing::Use;

std::vector<PodRequest> Repeat(const PodRequest& p, int n) { return std::vector<PodRequest>(static_cast<size_t>(n), p); }

TEST(TypicalTasks, KeepsTheMostPopularUntilCoverageAndRenormalises) {
  std::vector<PodRequest> pods = Repeat(Pod(1, 1000, 4000), 6);
  for (const auto& p : Repeat(Pod(1, 500, 2000), 3)) pods.push_back(p);
  pods.push_back(Pod(8, 1000, 32000));
  TypicalTaskOptions o;
  o.coverage = 0.9;  // 6 + 3 of 10 pods cover 90%: the 8-GPU type is cut.
  auto types = TypicalTasks(pods, o);
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0].gpu_milli, 1000);
  EXPECT_NEAR(types[0].weight, 6.0 / 9.0, 1e-12);
  EXPECT_EQ(types[1].gpu_milli, 500);
  EXPECT_NEAR(types[1].weight, 3.0 / 9.0, 1e-12);
}

TEST(TypicalTasks, WholeGpuBonusWeighsLargePodsMore) {
  std::vector<PodRequest> pods{Pod(1, 500), Pod(2, 1000)};
  TypicalTaskOptions o;
  o.coverage = 1.0;
  o.whole_gpu_bonus = 1.0;  // The 2-GPU pod counts 3 times.
  auto types = TypicalTasks(pods, o);
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0].gpu_count, 2);
  EXPECT_NEAR(types[0].weight, 0.75, 1e-12);
}

TEST(NodeFragmentation, MatchesAHandComputation) {
  // Tasks: 50% one whole GPU (4 CPU), 30% 600-milli share (2 CPU), 20% CPU-only.
  std::vector<TaskType> tasks(3);
  tasks[0] = TaskType{4000, 0, 1, 1000, {}, 0.5};
  tasks[1] = TaskType{2000, 0, 1, 600, {}, 0.3};
  tasks[2] = TaskType{8000, 0, 0, 0, {}, 0.2};
  FragmentationModel model(tasks);
  const int m = model.ModelIndex("V100");
  std::vector<MilliGpu> gpus{1000, 700, 300, 0};
  // Whole-GPU task fits GPU 0; 700 + 300 are fragment: 0.5 * 1000. Share task fits 1000 and 700; 300 is
  // fragment: 0.3 * 300. CPU-only: all 2000 free milli: 0.2 * 2000. Total 500 + 90 + 400 = 990.
  EXPECT_DOUBLE_EQ(model.Compute(NodeView{16000, 0, gpus, m}), 990);
  // With 3000 CPU the whole-GPU task cannot run at all: 0.5 * 2000 instead of 500.
  EXPECT_DOUBLE_EQ(model.Compute(NodeView{3000, 0, gpus, m}), 1000 + 90 + 400);
  EXPECT_DOUBLE_EQ(model.Cached(NodeView{16000, 0, gpus, m}), 990);
  std::vector<MilliGpu> reordered{0, 300, 1000, 700};
  EXPECT_DOUBLE_EQ(model.Cached(NodeView{16000, 0, reordered, m}), 990);
}

TEST(NodeFragmentation, ModelMismatchMakesEverythingFragment) {
  std::vector<TaskType> tasks{TaskType{1000, 0, 1, 1000, {"A100"}, 1.0}};
  FragmentationModel model(tasks);
  std::vector<MilliGpu> gpus{1000, 1000};
  EXPECT_DOUBLE_EQ(model.Compute(NodeView{64000, 0, gpus, model.ModelIndex("V100")}), 2000);
  EXPECT_DOUBLE_EQ(model.Compute(NodeView{64000, 0, gpus, model.ModelIndex("A100")}), 0);
}

TEST(NodeFragmentation, CpuStrandingCountsGpusTheCpuCannotFeed) {
  // One task type: 1 whole GPU with 10 CPU, i.e. 0.1 GPU milli per CPU milli. A node with 4 free GPUs and
  // 25 CPU can feed 2500 milli of them: the next task fits (FGD sees no fragment) but 1500 milli are stranded.
  std::vector<TaskType> tasks{TaskType{10000, 0, 1, 1000, {}, 1.0}};
  std::vector<MilliGpu> gpus{1000, 1000, 1000, 1000};
  FragmentationModel plain(tasks);
  FragmentationModel stranding(tasks, {.cpu_stranding_weight = 2.0});
  const NodeView view{25000, 0, gpus, 0};
  plain.ModelIndex("V100");
  stranding.ModelIndex("V100");
  EXPECT_DOUBLE_EQ(plain.Compute(view), 0);
  EXPECT_DOUBLE_EQ(stranding.Compute(view), 2.0 * 1500);
  EXPECT_DOUBLE_EQ(stranding.Compute(NodeView{40000, 0, gpus, 0}), 0);  // CPU for every GPU.
}

TEST(Fgd, AvoidsSplittingAWholeGpuForASharingPod) {
  // Workload: mostly whole-GPU pods, some 400-milli sharing pods.
  std::vector<PodRequest> workload = Repeat(Pod(1, 1000), 7);
  for (const auto& p : Repeat(Pod(1, 400), 3)) workload.push_back(p);
  Cluster c;
  const NodeId idle = c.AddNode(Node("idle", 2));
  const NodeId shared = c.AddNode(Node("shared", 2));
  Use(c, shared, 1, 500);  // GPU 1 has 500 free: a fragment for whole-GPU pods already.
  auto fgd = MakeFgdPolicy(workload);
  Rng rng(1);
  auto a = PlacePod(c, Pod(1, 400), *fgd, rng);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->node, shared);
  EXPECT_EQ(a->gpus, std::vector<int>{1});
  // Placing it on the idle node would turn 1000 whole milli into a 600 fragment: the score says so.
  EXPECT_LT(fgd->Score(c, idle, Pod(1, 400)).score, fgd->Score(c, shared, Pod(1, 400)).score);
}

TEST(Fgd, ScoreIsTheTruncatedSigmoid) {
  EXPECT_DOUBLE_EQ(FgdScore(0), 50);
  EXPECT_DOUBLE_EQ(FgdScore(-1000), 26);  // 100 / (1 + e) = 26.89
  EXPECT_DOUBLE_EQ(FgdScore(2000), 88);   // 100 / (1 + e^-2) = 88.08
}

TEST(FragPack, KeepsCpuNextToIdleGpus) {
  // Typical task: 1 GPU with 10 CPU. Node "tight" has 4 idle GPUs and 30 CPU, "roomy" 4 idle GPUs and 64 CPU.
  // A 15-CPU pod without GPUs leaves one more task able to run on either node, so FGD sees no difference
  // and BestFit prefers the fuller "tight"; FragPack sees that "tight" could then feed only 1.5 of its GPUs.
  std::vector<PodRequest> workload = Repeat(Pod(1, 1000, 10000), 4);
  Cluster c;
  const NodeId tight = c.AddNode(Node("tight", 4, 30000));
  const NodeId roomy = c.AddNode(Node("roomy", 4, 64000));
  const PodRequest cpu_pod = Pod(0, 0, 15000);
  auto fgd = MakeFgdPolicy(workload);
  EXPECT_EQ(fgd->Score(c, tight, cpu_pod).score, fgd->Score(c, roomy, cpu_pod).score);
  FragPackOptions no_stranding;
  no_stranding.cpu_stranding_weight = 0;
  auto plain = MakeFragPackPolicy(workload, no_stranding);
  EXPECT_GT(plain->Score(c, tight, cpu_pod).score, plain->Score(c, roomy, cpu_pod).score);
  auto policy = MakeFragPackPolicy(workload);
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    Rng rng(seed);
    auto a = PlacePod(c, cpu_pod, *policy, rng);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->node, roomy);
  }
}

TEST(FragPack, SharedGpuFirstOptionUsesAPartlyUsedGpu) {
  std::vector<PodRequest> workload = Repeat(Pod(1, 1000), 5);
  for (const auto& p : Repeat(Pod(1, 300), 5)) workload.push_back(p);
  Cluster c;
  c.AddNode(Node("idle", 4));
  const NodeId partly = c.AddNode(Node("partly", 4));
  Use(c, partly, 3, 650);  // 350 free on GPU 3.
  FragPackOptions o;
  o.shared_gpu_first = true;
  auto policy = MakeFragPackPolicy(workload, o);
  Rng rng(1);
  auto a = PlacePod(c, Pod(1, 300), *policy, rng);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->node, partly);
  EXPECT_EQ(a->gpus, std::vector<int>{3});
  // Opening a fresh GPU on the idle node ranks below any partly used GPU.
  EXPECT_LT(policy->Score(c, 0, Pod(1, 300)).score, -1e11);
}

TEST(FragPack, BreaksEqualGradientsTowardTheFullerNode) {
  // Only whole-GPU tasks in the workload: a 1-GPU pod changes fragmentation equally on both nodes
  // (no fragment either way), so BestFit decides.
  std::vector<PodRequest> workload = Repeat(Pod(1, 1000), 4);
  Cluster c;
  c.AddNode(Node("emptier", 8));
  const NodeId fuller = c.AddNode(Node("fuller", 8));
  for (int g = 0; g < 4; ++g) Use(c, fuller, g, kMilliPerGpu);
  auto policy = MakeFragPackPolicy(workload);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Rng rng(seed);
    auto a = PlacePod(c, Pod(1, 1000), *policy, rng);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->node, fuller);
  }
}

}  // namespace
}  // namespace gangplank::engine::policies
