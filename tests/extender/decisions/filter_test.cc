#include "extender/decisions/filter.h"

#include <gtest/gtest.h>

#include "cache/objects/convert.h"
#include "cache/state/cluster_state.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::extender {
namespace {

using cache::testing::GpuNode;
using cache::testing::GpuPod;
using cache::testing::PodOptions;

FilterVerdicts RunFilter(const cache::ClusterState& state, const cache::PodInfo& pod, std::vector<std::string_view> names) {
  const engine::PodRequest request = cache::ToPodRequest(pod);
  return state.Read([&](const cache::StateView& v) { return FilterNodes(v, pod, request, names); });
}

std::vector<std::string> Passed(const FilterVerdicts& v, const std::vector<std::string_view>& names) {
  std::vector<std::string> out;
  for (size_t i : v.passed) out.emplace_back(names[i]);
  return out;
}

TEST(Filter, PinnedPodPassesOnlyOnItsPlannedNode) {
  cache::ClusterState state;
  for (const char* n : {"n1", "n2", "n3"}) state.UpsertNode(GpuNode(n, 8));
  const cache::PodInfo pod = GpuPod("member-0", {.planned = "n2", .gpus = 8});
  state.UpsertPod(pod);  // The informer has seen the plan: n2's 8 GPUs are reserved for this pod.
  const std::vector<std::string_view> names{"n1", "n2", "n3"};
  const FilterVerdicts v = RunFilter(state, pod, names);
  EXPECT_EQ(Passed(v, names), (std::vector<std::string>{"n2"}));
  EXPECT_TRUE(v.failed.empty());
  EXPECT_EQ(v.unresolvable.at("n1"), "pod is planned for node n2 by gangplank's admission plan");
  EXPECT_EQ(v.unresolvable.size(), 2u);
}

// A tenant's pod naming another team's queue (or with a priority above the queue's) passes no node, and
// kube-scheduler is told preemption cannot help.
TEST(Filter, APodWhoseNamespaceMayNotUseItsQueueIsRefusedEveryNode) {
  cache::ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  cache::QueueConfig team_a = cache::UniformQueue("team-a", 0);
  team_a.namespaces = std::vector<std::string>{"team-a"};
  team_a.max_priority = 100;
  state.SetQueues({team_a});
  const std::vector<std::string_view> names{"n1"};
  FilterVerdicts v = RunFilter(state, GpuPod("intruder", {.queue = "team-a", .gpus = 1}), names);  // Namespace ml.
  EXPECT_TRUE(v.passed.empty());
  EXPECT_EQ(v.unresolvable.at("n1"), "namespace ml may not use queue team-a (not in its spec.namespaces)");
  EXPECT_EQ(v.kinds, (std::vector<std::string_view>{"queue_forbidden"}));

  cache::PodInfo own = GpuPod("own", {.queue = "team-a", .gpus = 1});
  own.namespace_ = "team-a";
  EXPECT_EQ(RunFilter(state, own, names).passed.size(), 1u);
  own.priority = 1000;
  EXPECT_EQ(RunFilter(state, own, names).unresolvable.at("n1"), "priority 1000 is above queue team-a's maxPriority of 100");
}

TEST(Filter, PinnedPodNotYetInTheCacheStillNeedsRoomOnItsNode) {
  cache::ClusterState state;
  state.UpsertNode(GpuNode("n1", 4));
  state.UpsertPod(GpuPod("other", {.node = "n1", .gpus = 2}));
  const std::vector<std::string_view> names{"n1"};
  const FilterVerdicts v = RunFilter(state, GpuPod("late", {.planned = "n1", .gpus = 4}), names);
  EXPECT_TRUE(v.passed.empty());
  EXPECT_EQ(v.failed.at("n1"), "needs 4 free GPUs, node has 2");
}

TEST(Filter, CapacityReservedForOtherPlannedPodsIsOffLimits) {
  cache::ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertNode(GpuNode("n2", 8));
  state.UpsertPod(GpuPod("planned-a", {.planned = "n1", .gpus = 5}));
  state.UpsertPod(GpuPod("running", {.node = "n2", .gpus = 5}));
  const std::vector<std::string_view> names{"n1", "n2"};
  const FilterVerdicts v = RunFilter(state, GpuPod("newcomer", {.gpus = 4}), names);
  EXPECT_TRUE(v.passed.empty());
  // n1: only reservations stand in the way, preemption cannot help.
  EXPECT_EQ(v.unresolvable.at("n1"), "needs 4 free GPUs, node has 3 (5 more reserved for planned pods)");
  // n2: evicting the running pod would make room.
  EXPECT_EQ(v.failed.at("n2"), "needs 4 free GPUs, node has 3");
}

TEST(Filter, GpuModelAndPerGpuFit) {
  cache::ClusterState state;
  state.UpsertNode(GpuNode("a100", 8, "A100"));
  state.UpsertNode(GpuNode("t4", 8, "T4"));
  state.UpsertNode(GpuNode("small", 2, "A100"));
  state.UpsertNode(GpuNode("shared", 1, "A100"));
  state.UpsertPod(GpuPod("half", {.node = "shared", .gpus = 0, .gpu_milli = 700}));
  const std::vector<std::string_view> names{"a100", "t4", "small", "shared"};
  const FilterVerdicts whole = RunFilter(state, GpuPod("w", {.gpus = 4, .models = "A100|H100"}), names);
  EXPECT_EQ(Passed(whole, names), (std::vector<std::string>{"a100"}));
  EXPECT_EQ(whole.unresolvable.at("t4"), "node has GPU model T4, pod allows only A100|H100");
  EXPECT_EQ(whole.unresolvable.at("small"), "needs 4 GPUs, node has only 2 in total");
  const FilterVerdicts share = RunFilter(state, GpuPod("s", {.gpus = 0, .gpu_milli = 500}), names);
  EXPECT_EQ(Passed(share, names), (std::vector<std::string>{"a100", "t4", "small"}));
  EXPECT_EQ(share.failed.at("shared"), "needs 500 milli-GPU on one GPU, the most free on any GPU is 300");
}

TEST(Filter, QueueAtItsLimitRejectsEveryNode) {
  cache::ClusterState state;
  state.SetPools({cache::testing::WholeClusterPool()});
  state.SetQueues({cache::UniformQueue("team-a", 16, 64)});
  for (int i = 0; i < 8; ++i) state.UpsertNode(GpuNode("n" + std::to_string(i), 8));
  for (int i = 0; i < 8; ++i) {
    state.UpsertPod(GpuPod("r" + std::to_string(i), {.node = "n" + std::to_string(i), .queue = "team-a", .gpus = i < 7 ? 8 : 7}));
  }
  state.UpsertNode(GpuNode("spare", 8));
  const std::vector<std::string_view> names{"spare"};
  const FilterVerdicts over = RunFilter(state, GpuPod("more", {.queue = "team-a", .gpus = 2}), names);
  EXPECT_TRUE(over.passed.empty());
  EXPECT_EQ(over.unresolvable.at("spare"), "queue team-a at its limit of 64 GPUs in pool pool (uses 63, pod needs 2)");
  EXPECT_EQ(over.kinds, (std::vector<std::string_view>{"queue_limit"}));
  EXPECT_EQ(RunFilter(state, GpuPod("fits", {.queue = "team-a", .gpus = 1}), names).passed.size(), 1u);
  EXPECT_EQ(RunFilter(state, GpuPod("other-queue", {.queue = "team-b", .gpus = 8}), names).passed.size(), 1u);
}

// Quotas are per pool: a queue that lists pools may use only those, and nodes outside every pool have
// no quota at all.
TEST(Filter, QueueQuotasApplyPerPool) {
  cache::ClusterState state;
  cache::PoolConfig a100 = cache::testing::WholeClusterPool("a100");
  a100.gpu_model = "A100";
  cache::PoolConfig h100 = cache::testing::WholeClusterPool("h100");
  h100.gpu_model = "H100";
  state.SetPools({a100, h100});
  cache::QueueConfig team = cache::UniformQueue("team-a", 0);
  team.any_pool.reset();
  team.pools["a100"] = cache::PoolQuota{0, 8};
  state.SetQueues({team});
  state.UpsertNode(GpuNode("a-1", 8, "A100"));
  state.UpsertNode(GpuNode("a-2", 8, "A100"));
  state.UpsertNode(GpuNode("h-1", 8, "H100"));
  state.UpsertNode(GpuNode("t-1", 8, "T4"));  // In no pool.
  state.UpsertPod(GpuPod("r", {.node = "a-1", .queue = "team-a", .gpus = 6}));
  const std::vector<std::string_view> names{"a-2", "h-1", "t-1"};
  const FilterVerdicts v = RunFilter(state, GpuPod("more", {.queue = "team-a", .gpus = 4}), names);
  EXPECT_EQ(v.unresolvable.at("a-2"), "queue team-a at its limit of 8 GPUs in pool a100 (uses 6, pod needs 4)");
  EXPECT_EQ(v.unresolvable.at("h-1"), "queue team-a may not use GPU pool h100");
  EXPECT_EQ(Passed(v, names), (std::vector<std::string>{"t-1"}));
}

// Design: "A pod names its queue with the label gangplank.io/queue (default: its namespace's label)".
TEST(Filter, UnlabelledPodIsChargedToItsNamespacesQueue) {
  cache::ClusterState state;
  state.SetPools({cache::testing::WholeClusterPool()});
  state.SetQueues({cache::UniformQueue("team-a", 0, 16)});
  state.UpsertNode(GpuNode("busy", 8));
  state.UpsertNode(GpuNode("spare", 8));
  // Running before the namespace is known: no queue yet, then charged to team-a once it is labelled.
  state.UpsertPod(GpuPod("running", {.node = "busy", .gpus = 8}));
  const std::vector<std::string_view> names{"spare"};
  const cache::PodInfo unlabelled = GpuPod("more", {.gpus = 8});  // Namespace "ml", no queue label.
  EXPECT_EQ(RunFilter(state, unlabelled, names).passed.size(), 1u);
  state.SetNamespaceQueue("ml", "team-a");
  state.Read([](const cache::StateView& v) { EXPECT_EQ(v.QueueUsageMilli("team-a"), 8000); });
  EXPECT_EQ(RunFilter(state, unlabelled, names).passed.size(), 1u);  // 8 + 8 = 16: at the limit, not over.
  state.UpsertPod(GpuPod("second", {.node = "spare", .gpus = 1}));   // Arrives after the label: charged too.
  state.UpsertNode(GpuNode("third", 8));
  const std::vector<std::string_view> third{"third"};
  const FilterVerdicts over = RunFilter(state, unlabelled, third);
  EXPECT_TRUE(over.passed.empty());
  EXPECT_EQ(over.unresolvable.at("third"), "queue team-a at its limit of 16 GPUs in pool pool (uses 9, pod needs 8)");
  // The pod's own label wins over the namespace's, even an empty one (explicitly no queue).
  EXPECT_EQ(RunFilter(state, GpuPod("own", {.queue = "team-b", .gpus = 8}), third).passed.size(), 1u);
  cache::PodInfo opted_out = unlabelled;
  opted_out.labels["gangplank.io/queue"] = "";
  EXPECT_EQ(RunFilter(state, opted_out, third).passed.size(), 1u);
  // Label removed (or namespace deleted): its pods are no longer charged to team-a.
  state.SetNamespaceQueue("ml", "");
  state.Read([](const cache::StateView& v) { EXPECT_EQ(v.QueueUsageMilli("team-a"), 0); });
  EXPECT_EQ(RunFilter(state, unlabelled, third).passed.size(), 1u);
}

// With a default queue (--default-queue, as the operator's), a pod naming no queue is held to its limit.
TEST(Filter, PodNamingNoQueueIsHeldToTheDefaultQueuesLimit) {
  cache::ClusterState state;
  state.SetQueueRules(cache::QueueResolver("default"));
  state.SetPools({cache::testing::WholeClusterPool()});
  state.SetQueues({cache::UniformQueue("default", 0, 8)});
  state.UpsertNode(GpuNode("busy", 8));
  state.UpsertNode(GpuNode("spare", 8));
  state.UpsertPod(GpuPod("running", {.node = "busy", .gpus = 4}));
  const FilterVerdicts over = RunFilter(state, GpuPod("more", {.gpus = 8}), {"spare"});
  EXPECT_TRUE(over.passed.empty());
  EXPECT_EQ(over.unresolvable.at("spare"), "queue default at its limit of 8 GPUs in pool pool (uses 4, pod needs 8)");
  EXPECT_EQ(RunFilter(state, GpuPod("own", {.queue = "team-b", .gpus = 8}), {"spare"}).passed.size(), 1u);
}

TEST(Filter, NamespaceQueueDoesNotMoveLabelledPods) {
  cache::ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("own", {.node = "n1", .queue = "team-b", .gpus = 2}));
  state.UpsertPod(GpuPod("plain", {.node = "n1", .gpus = 3}));
  state.SetNamespaceQueue("ml", "team-a");
  state.SetNamespaceQueue("other", "team-c");
  state.Read([](const cache::StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("team-b"), 2000);
    EXPECT_EQ(v.QueueUsageMilli("team-a"), 3000);
    EXPECT_EQ(v.QueueUsageMilli("team-c"), 0);
    EXPECT_EQ(v.NamespaceQueue("ml"), "team-a");
    EXPECT_EQ(v.NamespaceQueue("unknown"), "");
  });
  state.SetNamespaceQueue("ml", "team-c");  // Relabelled: usage moves with it.
  state.Read([](const cache::StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("team-a"), 0);
    EXPECT_EQ(v.QueueUsageMilli("team-c"), 3000);
  });
}

TEST(Filter, StaticMismatchesAreUnresolvableAndUnknownNodesResolvable) {
  cache::ClusterState state;
  cache::NodeInfo tainted = GpuNode("tainted", 8);
  tainted.taints = {{"dedicated", "infer", "NoSchedule"}};
  cache::NodeInfo cordoned = GpuNode("cordoned", 8);
  cordoned.unschedulable = true;
  state.UpsertNode(tainted);
  state.UpsertNode(cordoned);
  state.UpsertNode(GpuNode("labelled", 8, "A100", {{"pool", "b"}}));
  cache::PodInfo pod = GpuPod("p", {.gpus = 1});
  pod.node_selector = {{"pool", "a"}};
  const std::vector<std::string_view> names{"tainted", "cordoned", "labelled", "ghost"};
  FilterVerdicts v = RunFilter(state, pod, names);
  EXPECT_EQ(v.unresolvable.at("cordoned"), "node is cordoned (unschedulable)");
  EXPECT_EQ(v.unresolvable.at("tainted"), "node lacks label pool (pod's nodeSelector wants a)");
  EXPECT_EQ(v.unresolvable.at("labelled"), "node label pool is b, pod's nodeSelector wants a");
  EXPECT_EQ(v.failed.at("ghost"), "node is not in gangplank's cache yet");
  pod.node_selector.clear();
  v = RunFilter(state, pod, names);
  EXPECT_EQ(v.unresolvable.at("tainted"), "node has taint dedicated=infer:NoSchedule that the pod does not tolerate");
  pod.tolerations = {{"dedicated", "Equal", "infer", "NoSchedule"}};
  v = RunFilter(state, pod, names);
  EXPECT_EQ(Passed(v, names), (std::vector<std::string>{"tainted", "labelled"}));
}

}  // namespace
}  // namespace gangplank::extender
