#include <gtest/gtest.h>

#include <algorithm>

#include "engine/policies/registry.h"
#include "extender/decisions/preempt.h"
#include "extender/decisions/prioritize.h"
#include "cache/objects/convert.h"
#include "cache/state/cluster_state.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::extender {
namespace {

using cache::testing::GpuNode;
using cache::testing::GpuPod;

std::map<std::string, std::int64_t> Scores(const cache::ClusterState& state, const cache::PodInfo& pod,
                                           const std::vector<std::string_view>& names, const std::string& policy = "bestfit") {
  const engine::PodRequest request = cache::ToPodRequest(pod);
  auto p = engine::policies::MakePolicy(policy, {});
  std::map<std::string, std::int64_t> out;
  state.Read([&](const cache::StateView& v) {
    for (const auto& hp : PrioritizeNodes(v, pod, request, names, *p)) out[std::string(hp.host)] = hp.score;
  });
  return out;
}

TEST(Prioritize, ScoresAreEngineOrderMappedToZeroToTen) {
  cache::ClusterState state;
  for (const char* n : {"empty", "half", "full"}) state.UpsertNode(GpuNode(n, 8));
  state.UpsertPod(GpuPod("h", {.node = "half", .gpus = 4}));
  state.UpsertPod(GpuPod("f", {.node = "full", .gpus = 8}));
  const auto s = Scores(state, GpuPod("p", {.gpus = 2}), {"empty", "half", "full", "ghost"});
  EXPECT_EQ(s.at("full"), 0);   // Does not fit.
  EXPECT_EQ(s.at("ghost"), 0);  // Unknown.
  EXPECT_EQ(s.at("half"), 10);  // Best fit: the fuller node.
  EXPECT_EQ(s.at("empty"), 0);
  for (const auto& [host, score] : Scores(state, GpuPod("p", {.gpus = 1}), {"empty", "half"}, "fragpack")) {
    EXPECT_GE(score, 0) << host;
    EXPECT_LE(score, 10) << host;
  }
}

TEST(Prioritize, PinnedPodScoresOnlyItsPlannedNode) {
  cache::ClusterState state;
  state.UpsertNode(GpuNode("a", 8));
  state.UpsertNode(GpuNode("b", 8));
  const auto s = Scores(state, GpuPod("p", {.planned = "b", .gpus = 1}), {"a", "b"});
  EXPECT_EQ(s.at("a"), 0);
  EXPECT_EQ(s.at("b"), 10);
}

TEST(Prioritize, GangMembersPreferTheRackOfTheirGang) {
  cache::ClusterState state({"zone", "rack"});
  state.UpsertNode(GpuNode("r1-a", 8, "A100", {{"zone", "z"}, {"rack", "r1"}}));
  state.UpsertNode(GpuNode("r1-b", 8, "A100", {{"zone", "z"}, {"rack", "r1"}}));
  state.UpsertNode(GpuNode("r2-a", 8, "A100", {{"zone", "z"}, {"rack", "r2"}}));
  state.UpsertNode(GpuNode("far", 8, "A100", {{"zone", "y"}, {"rack", "r9"}}));
  state.UpsertPod(GpuPod("g-0", {.node = "r1-a", .gang = "g", .gpus = 8}));
  const auto s = Scores(state, GpuPod("g-1", {.gang = "g", .gpus = 8}), {"r1-b", "r2-a", "far"});
  EXPECT_GT(s.at("r1-b"), s.at("r2-a"));
  EXPECT_GT(s.at("r2-a"), s.at("far"));
}

PreemptVerdicts Preempt(const cache::ClusterState& state, const cache::PodInfo& pod, NodeVictimsMap candidates) {
  const engine::PodRequest request = cache::ToPodRequest(pod);
  return state.Read([&](const cache::StateView& v) { return SelectVictims(v, pod, request, candidates); });
}

TEST(Preempt, GangMembersOnTheSameNodeAreAddedHighestPriorityFirst) {
  cache::ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("g-0", {.node = "n1", .gang = "g", .gpus = 4, .priority = 5}));
  state.UpsertPod(GpuPod("g-1", {.node = "n1", .gang = "g", .gpus = 4, .priority = 7}));
  const PreemptVerdicts v = Preempt(state, GpuPod("urgent", {.gpus = 4, .priority = 100}), {{"n1", {{"uid-g-0"}, 1}}});
  ASSERT_EQ(v.result.node_to_meta_victims.count("n1"), 1u) ;
  EXPECT_EQ(v.result.node_to_meta_victims.at("n1").uids, (std::vector<std::string_view>{"uid-g-1", "uid-g-0"}));
  EXPECT_EQ(v.result.node_to_meta_victims.at("n1").num_pdb_violations, 1);
}

TEST(Preempt, VictimSetThatWouldSplitAGangAcrossNodesIsDropped) {
  cache::ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertNode(GpuNode("n2", 8));
  state.UpsertPod(GpuPod("g-0", {.node = "n1", .gang = "g", .gpus = 8}));
  state.UpsertPod(GpuPod("g-1", {.node = "n2", .gang = "g", .gpus = 8}));
  state.UpsertPod(GpuPod("solo", {.node = "n2", .gpus = 0}));
  const PreemptVerdicts v = Preempt(state, GpuPod("urgent", {.gpus = 8}), {{"n1", {{"uid-g-0"}, 0}}});
  EXPECT_TRUE(v.result.node_to_meta_victims.empty());
  EXPECT_EQ(v.dropped.at("n1"), "would split gang ml/g: member ml/g-1 runs on another node");
}

TEST(Preempt, VictimSetThatTakesAQueueBelowItsGuaranteeIsDropped) {
  cache::ClusterState state;
  state.SetPools({cache::testing::WholeClusterPool()});
  state.SetQueues({cache::UniformQueue("team-b", 8), cache::UniformQueue("team-c", 0)});
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertNode(GpuNode("n2", 8));
  state.UpsertPod(GpuPod("b0", {.node = "n1", .queue = "team-b", .gpus = 8}));
  state.UpsertPod(GpuPod("c0", {.node = "n2", .queue = "team-c", .gpus = 8}));
  const PreemptVerdicts v =
      Preempt(state, GpuPod("urgent", {.queue = "team-a", .gpus = 8}), {{"n1", {{"uid-b0"}, 0}}, {"n2", {{"uid-c0"}, 0}}});
  EXPECT_EQ(v.dropped.at("n1"), "would take queue team-b below its guarantee of 8 GPUs in pool pool (to 0)");
  ASSERT_EQ(v.result.node_to_meta_victims.size(), 1u);
  EXPECT_EQ(v.result.node_to_meta_victims.at("n2").uids, (std::vector<std::string_view>{"uid-c0"}));
}

// The operator admits a pod whose own label and namespace name no queue into --default-queue; the
// extender, given the same default, must count it there too and keep that queue's guarantee.
TEST(Preempt, VictimSetThatTakesTheDefaultQueueBelowItsGuaranteeIsDropped) {
  cache::ClusterState state;
  state.SetQueueRules(cache::QueueResolver("default"));
  state.SetPools({cache::testing::WholeClusterPool()});
  state.SetQueues({cache::UniformQueue("default", 8), cache::UniformQueue("team-c", 0)});
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertNode(GpuNode("n2", 8));
  state.UpsertPod(GpuPod("d0", {.node = "n1", .gpus = 8}));  // No queue label; namespace ml names none.
  state.UpsertPod(GpuPod("c0", {.node = "n2", .queue = "team-c", .gpus = 8}));
  const PreemptVerdicts v =
      Preempt(state, GpuPod("urgent", {.queue = "team-a", .gpus = 8}), {{"n1", {{"uid-d0"}, 0}}, {"n2", {{"uid-c0"}, 0}}});
  ASSERT_EQ(v.result.node_to_meta_victims.count("n1"), 0u) << "a victim of the default queue was kept below its guarantee";
  EXPECT_EQ(v.dropped.at("n1"), "would take queue default below its guarantee of 8 GPUs in pool pool (to 0)");
  ASSERT_EQ(v.result.node_to_meta_victims.size(), 1u);
  EXPECT_EQ(v.result.node_to_meta_victims.at("n2").uids, (std::vector<std::string_view>{"uid-c0"}));
}

TEST(Preempt, VictimsThatDoNotMakeRoomAreDropped) {
  cache::ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("a", {.node = "n1", .gpus = 4}));
  state.UpsertPod(GpuPod("b", {.planned = "n1", .gpus = 4}));  // A reservation the scheduler cannot evict.
  const PreemptVerdicts v = Preempt(state, GpuPod("urgent", {.gpus = 8}), {{"n1", {{"uid-a"}, 0}}, {"ghost", {{"x"}, 0}}});
  EXPECT_TRUE(v.result.node_to_meta_victims.empty());
  EXPECT_EQ(v.dropped.at("n1"), "evicting these victims does not make room for the pod");
  EXPECT_EQ(v.dropped.at("ghost"), "node is not in gangplank's cache");
}

}  // namespace
}  // namespace gangplank::extender
