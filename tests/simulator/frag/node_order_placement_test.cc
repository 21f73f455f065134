// The tie rule of the FGD paper's simulator: equal best scores go to the first node of a seeded random
// node order, fixed for the whole replay.
#include "simulator/frag/node_order_placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "engine/policies/gpu_clustering/gpu_clustering.h"
#include "engine/policies/registry.h"
#include "simulator/frag/frag_replay.h"

namespace gangplank::simulator::frag {
namespace {

engine::NodeSpec Node(const std::string& name, int gpus, std::int64_t cpu) {
  engine::NodeSpec n;
  n.name = name;
  n.capacity = {cpu, 262144};
  n.gpu_count = gpus;
  n.gpu_model = "V100";
  return n;
}

engine::PodRequest Pod(int gpus, engine::MilliGpu milli, std::int64_t cpu) {
  engine::PodRequest p;
  p.host = {cpu, 1024};
  p.gpu_count = gpus;
  p.gpu_milli = gpus > 0 ? milli : 0;
  return p;
}

TEST(NodeTieRanks, IsASeededPermutation) {
  const auto ranks = NodeTieRanks(50, 7);
  std::vector<std::uint32_t> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t i = 0; i < 50; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_EQ(ranks, NodeTieRanks(50, 7));
  EXPECT_NE(ranks, NodeTieRanks(50, 8));
  EXPECT_TRUE(NodeTieRanks(0, 1).empty());
  EXPECT_THROW(NodeTieRanks(-1, 1), std::invalid_argument);
}

// GpuClustering scores every node 0 for a CPU-only pod, so every placement below is a tie among the nodes
// with room. Three 16-CPU nodes ranked n1 < n2 < n0: four 4-CPU pods all go to n1 (the lowest rank) until
// its CPU is spent, the fifth to n2, and none to n0. Random ties would have spread them.
TEST(PlaceWithNodeOrderTies, EqualScoresGoToTheLowestRankUntilItIsFull) {
  engine::Cluster c;
  for (const char* name : {"n0", "n1", "n2"}) c.AddNode(Node(name, 2, 16000));
  const std::vector<std::uint32_t> ranks{2, 0, 1};
  engine::policies::GpuClusteringPolicy policy;
  std::vector<engine::NodeId> picks;
  for (int i = 0; i < 5; ++i) {
    auto a = PlaceWithNodeOrderTies(c, Pod(0, 0, 4000), policy, ranks);
    ASSERT_TRUE(a);
    c.Assign(*a);
    picks.push_back(a->node);
  }
  EXPECT_EQ(picks, (std::vector<engine::NodeId>{1, 1, 1, 1, 2}));
}

// A higher score still beats a lower rank. BestFit (trunc(100 * (1 - 0.5 cpu_left/128000 - 0.5
// gpu_left/8000))) for a 1-GPU, 4-CPU pod: the 2-GPU node n0 scores trunc(100 * (1 - 0.5 * 12/128 -
// 0.5 * 1/8)) = 89, the 1-GPU node n1 scores trunc(100 * (1 - 0.5 * 4/128)) = 98, so n1 wins although
// n0 ranks first. The pod gets GPU 0 there.
TEST(PlaceWithNodeOrderTies, HigherScoreBeatsRankAndGpusComeFromThePolicy) {
  engine::Cluster c;
  c.AddNode(Node("n0", 2, 16000));
  c.AddNode(Node("n1", 1, 8000));
  auto policy = engine::policies::MakePolicy("bestfit", {});
  auto a = PlaceWithNodeOrderTies(c, Pod(1, 1000, 4000), *policy, {0, 1});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->node, 1);
  EXPECT_EQ(a->gpus, (std::vector<int>{0}));
}

TEST(PlaceWithNodeOrderTies, NothingFitsAndBadRanksFail) {
  engine::Cluster c;
  c.AddNode(Node("n0", 1, 8000));
  auto policy = engine::policies::MakePolicy("fgd", {Pod(1, 1000, 4000)});
  EXPECT_FALSE(PlaceWithNodeOrderTies(c, Pod(2, 1000, 4000), *policy, {0}));
  EXPECT_THROW(PlaceWithNodeOrderTies(c, Pod(1, 1000, 4000), *policy, {}), std::invalid_argument);
}

// Two 2-GPU, 8-CPU nodes under GpuClustering, trace order, no top-up (4000 milli requested = capacity):
// two CPU-only 4-CPU pods (score 0 everywhere: ties), then two 2-GPU pods needing all 8 CPUs of a node.
// Node-order ties put both CPU pods on the lowest-ranked node, so the other node takes the first GPU pod
// and only the second fails: 2000 of 4000 milli allocated, 50%, for every seed. Random ties split the CPU
// pods between the nodes half the time, and then both GPU pods fail (0%).
TEST(FragReplayTies, NodeOrderKeepsTiesOnOneNodeWhereRandomSpreadsThem) {
  const std::vector<engine::NodeSpec> nodes{Node("a", 2, 8000), Node("b", 2, 8000)};
  const std::vector<engine::PodRequest> pods{Pod(0, 0, 4000), Pod(0, 0, 4000), Pod(2, 1000, 8000),
                                             Pod(2, 1000, 8000)};
  int random_split = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto ordered =
        RunFragReplay(nodes, pods, "gpuclustering", seed, 1.0, ArrivalMode::kTraceOrder, TieBreak::kNodeOrder);
    EXPECT_EQ(ordered.pods_failed, 1) << seed;
    EXPECT_DOUBLE_EQ(ordered.curve.back().allocated_percent, 50.0) << seed;
    auto random =
        RunFragReplay(nodes, pods, "gpuclustering", seed, 1.0, ArrivalMode::kTraceOrder, TieBreak::kRandom);
    if (random.curve.back().allocated_percent == 0.0) ++random_split;
  }
  EXPECT_GT(random_split, 0);
  EXPECT_LT(random_split, 20);
}

}  // namespace
}  // namespace gangplank::simulator::frag
