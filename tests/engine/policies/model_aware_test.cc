// FragPack's model-aware parts: the usable-share measure and the scarce-model charge.
#include <gtest/gtest.h>

#include "engine/place_pod.h"
#include "engine/policies/fgd/fgd.h"
#include "engine/policies/frag_pack/frag_pack.h"
#include "engine/policies/frag_pack/node_kind_scarcity.h"
#include "engine/policies/fragmentation/node_fragmentation.h"
#include "test_cluster.h"

namespace gangplank::engine::policies {
namespace {

using testing::Node;
using testing::Pod;
using testing::Use;

PodRequest OnModel(PodRequest p, const std::string& model) {
  p.gpu_models = {model};
  return p;
}

// What a one-GPU pod is charged per milli it takes on `node`.
double OneGpuPressure(NodeKindScarcity& scarcity, const Cluster& c, NodeId node) {
  return scarcity.Charge(c, node, Pod(1, 1000)) / kMilliPerGpu;
}

// 80 unconstrained one-GPU pods, 20 that need the rare model: 20% of the demand is captive to Rare.
std::vector<PodRequest> Workload() {
  std::vector<PodRequest> pods(80, Pod(1, 1000));
  for (int i = 0; i < 20; ++i) pods.push_back(OnModel(Pod(1, 1000), "Rare"));
  return pods;
}

TEST(NodeFragmentation, UsableShareOnlyIgnoresTasksThatCannotUseTheModel) {
  // Half the workload needs A100, half runs anywhere and needs 600 milli.
  std::vector<TaskType> tasks{TaskType{1000, 0, 1, 1000, {"A100"}, 0.5}, TaskType{1000, 0, 1, 600, {}, 0.5}};
  FragmentationModel paper(tasks);
  FragmentationModel usable(tasks, {.usable_share_only = true});
  std::vector<MilliGpu> gpus{1000, 400};
  const int v100 = paper.ModelIndex("V100");
  usable.ModelIndex("V100");
  // The paper counts all 1400 free milli for the A100 task plus the 400 fragment for the other.
  EXPECT_DOUBLE_EQ(paper.Compute(NodeView{64000, 0, gpus, v100}), 0.5 * 1400 + 0.5 * 400);
  EXPECT_DOUBLE_EQ(usable.Compute(NodeView{64000, 0, gpus, v100}), 0.5 * 400);
  // On the A100 node both tasks can run: the two measures agree.
  const int a100 = paper.ModelIndex("A100");
  usable.ModelIndex("A100");
  EXPECT_DOUBLE_EQ(paper.Compute(NodeView{64000, 0, gpus, a100}), usable.Compute(NodeView{64000, 0, gpus, a100}));
}

TEST(NodeKindScarcity, PressureIsCaptiveDemandOverFreeShareAndRisesAsTheKindFills) {
  Cluster c;
  const NodeId rare = c.AddNode(Node("rare", 2, 64000, 262144, "Rare"));
  const NodeId common = c.AddNode(Node("common", 8, 64000, 262144, "Common"));
  const NodeId cpu_only = c.AddNode(Node("cpu", 0, 64000, 262144, ""));
  for (bool by_shape : {false, true}) {
    Cluster fresh = c;
    NodeKindScarcity scarcity(Workload(), by_shape);
    // Rare holds 2 of 10 free GPUs and 20% of the demand needs it: pressure 0.2 / 0.2 = 1.
    EXPECT_DOUBLE_EQ(OneGpuPressure(scarcity, fresh, rare), 1.0);
    EXPECT_DOUBLE_EQ(OneGpuPressure(scarcity, fresh, common), 0.0);  // Nothing needs Common alone.
    EXPECT_DOUBLE_EQ(OneGpuPressure(scarcity, fresh, cpu_only), 0.0);
    for (int g = 0; g < 6; ++g) Use(fresh, common, g, kMilliPerGpu);
    // Now Rare holds 2 of 4 free GPUs: 0.2 / 0.5.
    EXPECT_DOUBLE_EQ(OneGpuPressure(scarcity, fresh, rare), 0.4);
    Use(fresh, rare, 0, 500);
    EXPECT_DOUBLE_EQ(OneGpuPressure(scarcity, fresh, rare), 0.2 * 3.5 / 1.5);
  }
}

TEST(NodeKindScarcity, SharesDemandOverTheKindsThatHoldItByTheirGpus) {
  Cluster c;
  const NodeId a = c.AddNode(Node("a", 5, 64000, 262144, "A"));
  const NodeId b = c.AddNode(Node("b", 5, 64000, 262144, "B"));
  const NodeId other = c.AddNode(Node("c", 10, 64000, 262144, "C"));
  std::vector<PodRequest> pods(6, Pod(1, 1000));
  PodRequest either = Pod(1, 1000);
  either.gpu_models = {"A", "B", "Z"};  // Z is not in the cluster.
  for (int i = 0; i < 4; ++i) pods.push_back(either);
  NodeKindScarcity scarcity(pods);
  // 40% of the demand can use A or B (5 GPUs each): 20% each, over a quarter of the free capacity each.
  EXPECT_DOUBLE_EQ(OneGpuPressure(scarcity, c, a), 0.8);
  EXPECT_DOUBLE_EQ(OneGpuPressure(scarcity, c, b), 0.8);
  EXPECT_DOUBLE_EQ(OneGpuPressure(scarcity, c, other), 0.0);
  // A pod every kind can hold depends on none.
  NodeKindScarcity anywhere(std::vector<PodRequest>(3, Pod(1, 1000)));
  EXPECT_DOUBLE_EQ(OneGpuPressure(anywhere, c, a), 0.0);
}

TEST(NodeKindScarcity, BySizeTheLargestPodsDependOnTheNodesThatCanStillHoldThem) {
  Cluster c;
  const NodeId big = c.AddNode(Node("big", 8, 128000, 262144, "V100"));
  const NodeId broken = c.AddNode(Node("big-used", 8, 128000, 262144, "V100"));
  const NodeId small = c.AddNode(Node("small", 8, 32000, 262144, "V100"));
  Use(c, broken, 0, 500);
  // Half the demand is 8-GPU pods with 100 CPU: only the two big nodes can hold them (16 GPUs of 24).
  std::vector<PodRequest> pods(8, Pod(1, 1000));
  pods.push_back(Pod(8, 1000, 100000));
  NodeKindScarcity by_shape(pods, /*by_node_shape=*/true);
  // Pressure 0.5 over the big kind's share of the free GPUs (15.5 of 23.5). A one-GPU pod on the idle big
  // node leaves no room for them: it destroys all 8 whole GPUs for them, not just the one it takes.
  const double pressure = 0.5 * 23.5 / 15.5;
  EXPECT_DOUBLE_EQ(by_shape.Charge(c, big, Pod(1, 1000)), pressure * 8000);
  EXPECT_DOUBLE_EQ(by_shape.Charge(c, broken, Pod(1, 1000)), 0.0);  // They no longer fit there.
  EXPECT_DOUBLE_EQ(by_shape.Charge(c, small, Pod(1, 1000)), 0.0);
  // A sharing pod opens one of the idle node's GPUs: that breaks the node for them all the same.
  EXPECT_DOUBLE_EQ(by_shape.Charge(c, big, Pod(1, 300)), pressure * 8000);
  // One of them placed there takes the node too (every node such a pod could use costs it alike).
  EXPECT_DOUBLE_EQ(by_shape.Charge(c, big, Pod(8, 1000, 100000)), pressure * 8000);
  // Told apart by model only, the three nodes are one kind and nothing is captive.
  NodeKindScarcity by_model(pods, false);
  EXPECT_DOUBLE_EQ(by_model.Charge(c, big, Pod(1, 1000)), 0.0);
}

TEST(NodeKindScarcity, ChargesNothingForPodsWithoutGpusOnNodesTheyDoNotBreak) {
  Cluster c;
  const NodeId rare = c.AddNode(Node("rare", 2, 64000, 262144, "Rare"));
  c.AddNode(Node("common", 8, 64000, 262144, "Common"));
  NodeKindScarcity scarcity(Workload());
  EXPECT_DOUBLE_EQ(scarcity.Charge(c, rare, Pod(0, 0, 8000)), 0.0);
}

TEST(FragPack, KeepsTheScarceModelForThePodsThatNeedIt) {
  Cluster c;
  const NodeId rare = c.AddNode(Node("rare", 2, 64000, 262144, "Rare"));
  const NodeId common = c.AddNode(Node("common", 8, 64000, 262144, "Common"));
  auto policy = MakeFragPackPolicy(Workload());
  FragPackOptions no_scarcity;
  no_scarcity.scarcity_weight = 0;
  auto blind = MakeFragPackPolicy(Workload(), no_scarcity);
  const PodRequest anywhere = Pod(1, 1000);
  // Without the charge the two placements look alike and the fuller node after placement (the 2-GPU
  // one) wins the tie; with it the unconstrained pod leaves Rare alone.
  EXPECT_GT(blind->Score(c, rare, anywhere).score, blind->Score(c, common, anywhere).score);
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    Rng rng(seed);
    auto a = PlacePod(c, anywhere, *policy, rng);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->node, common);
  }
  // The pod that needs Rare still goes there (it has no other choice).
  Rng rng(1);
  auto a = PlacePod(c, OnModel(Pod(1, 1000), "Rare"), *policy, rng);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->node, rare);
}

TEST(FragPack, UsableShareMeasureStopsHerdingPodsOntoRareModels) {
  // 20% of the tasks may run on Common only. The paper's measure counts every free Rare milli as fragment
  // for them, so any pod placed on Rare "removes" fragmentation and the measure herds pods there; counting
  // free GPUs only for the tasks that can use them sees the same effect on both nodes.
  std::vector<PodRequest> workload(80, Pod(1, 500));
  for (int i = 0; i < 20; ++i) workload.push_back(OnModel(Pod(1, 500), "Common"));
  Cluster c;
  const NodeId rare = c.AddNode(Node("rare", 2, 64000, 262144, "Rare"));
  const NodeId common = c.AddNode(Node("common", 2, 64000, 262144, "Common"));
  FragPackOptions measure_only;
  measure_only.scarcity_weight = 0;
  measure_only.best_fit_tie_break = false;
  FragPackOptions paper_measure = measure_only;
  paper_measure.usable_share_only = false;
  auto usable = MakeFragPackPolicy(workload, measure_only);
  auto paper = MakeFragPackPolicy(workload, paper_measure);
  const PodRequest pod = Pod(1, 500);
  EXPECT_DOUBLE_EQ(usable->Score(c, rare, pod).score, usable->Score(c, common, pod).score);
  EXPECT_GT(paper->Score(c, rare, pod).score, paper->Score(c, common, pod).score);
}

}  // namespace
}  // namespace gangplank::engine::policies
