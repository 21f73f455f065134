// The driver's decisions without any process: in-tree filters, the failure message, node selection,
// candidacy and the events that wake waiting pods.
#include <gtest/gtest.h>

#include "tools/scheduler-driver/cluster_events.h"
#include "tools/scheduler-driver/fit_error.h"
#include "tools/scheduler-driver/node_fit.h"
#include "tools/scheduler-driver/node_selection.h"
#include "tools/scheduler-driver/pod_candidacy.h"

namespace gangplank::scheduler_driver {
namespace {

kube::Node GpuNode(int gpus) {
  kube::Node node;
  node.meta.name = "n";
  node.meta.labels.Add("zone", "a");
  node.allocatable = {{"cpu", 8000}, {"memory", 64000}, {"nvidia.com/gpu", gpus * 1000}, {"pods", 3000}};
  return node;
}

kube::Pod GpuPod(int gpus) {
  kube::Pod pod;
  pod.meta.name = "p";
  pod.meta.namespace_ = "ml";
  pod.scheduler_name = "gangplank";
  pod.phase = "Pending";
  pod.requests = {{"cpu", 1000}, {"nvidia.com/gpu", gpus * 1000}};
  return pod;
}

TEST(InTreeFilter, ResourcesAndPodSlotsCountWhatTheNodeHolds) {
  const kube::Node node = GpuNode(8);
  NodeUsage used;
  EXPECT_TRUE(InTreeFilter(GpuPod(8), node, used).empty());
  used.Add(GpuPod(6));
  EXPECT_EQ(InTreeFilter(GpuPod(4), node, used), std::vector<std::string>{"Insufficient nvidia.com/gpu"});
  EXPECT_TRUE(InTreeFilter(GpuPod(2), node, used).empty());
  kube::Pod greedy = GpuPod(2);
  greedy.requests = {{"cpu", 9000}, {"memory", 65000}, {"nvidia.com/gpu", 4000}};
  EXPECT_EQ(InTreeFilter(greedy, node, used),
            (std::vector<std::string>{"Insufficient cpu", "Insufficient memory", "Insufficient nvidia.com/gpu"}));
  used.Add(GpuPod(0));
  used.Add(GpuPod(0));
  EXPECT_EQ(InTreeFilter(GpuPod(0), node, used), std::vector<std::string>{"Too many pods"});
  // Resources the driver leaves to the extender (GPU shares) never fail here.
  kube::Pod share = GpuPod(0);
  share.requests = {{"gangplank.io/gpu-milli", 500}};
  EXPECT_TRUE(InTreeFilter(share, GpuNode(0), NodeUsage{}).empty());
}

TEST(InTreeFilter, CordonTaintsAndNodeSelectorComeFirstInTheFrameworksOrder) {
  kube::Node node = GpuNode(8);
  kube::Pod pod = GpuPod(1);
  node.unschedulable = true;
  EXPECT_EQ(InTreeFilter(pod, node, {}), std::vector<std::string>{"node(s) were unschedulable"});
  pod.tolerations.push_back({"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"});
  EXPECT_TRUE(InTreeFilter(pod, node, {}).empty());

  node.taints.push_back({"spot", "true", "NoExecute", ""});
  node.taints.push_back({"soft", "x", "PreferNoSchedule", ""});  // Scoring only: never filters.
  EXPECT_EQ(InTreeFilter(pod, node, {}), std::vector<std::string>{"node(s) had untolerated taint {spot: true}"});
  pod.tolerations.push_back({"spot", "Equal", "false", "NoExecute"});
  EXPECT_FALSE(InTreeFilter(pod, node, {}).empty()) << "wrong value";
  pod.tolerations.push_back({"spot", "Equal", "true", ""});  // An empty effect matches every effect.
  EXPECT_TRUE(InTreeFilter(pod, node, {}).empty());

  pod.node_selector.Add("zone", "b");
  EXPECT_EQ(InTreeFilter(pod, node, {}), std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
  kube::Pod everywhere = GpuPod(1);
  everywhere.tolerations.push_back({"", "Exists", "", ""});
  EXPECT_TRUE(InTreeFilter(everywhere, node, {}).empty());
}

TEST(FitDiagnosis, ReadsAsKubeSchedulersFitError) {
  FitDiagnosis d;
  d.Add("gpu-0", {"Insufficient cpu", "Insufficient nvidia.com/gpu"});
  d.Add("gpu-1", {"Insufficient nvidia.com/gpu"});
  d.Add("gpu-2", {"queue team-a at its limit"});
  d.Add("gpu-3", {"queue team-a at its limit"});
  EXPECT_EQ(d.Message(5), "0/5 nodes are available: 1 Insufficient cpu, 2 Insufficient nvidia.com/gpu, 2 queue team-a at its limit.");
  EXPECT_EQ(FitDiagnosis{}.Message(0), "0/0 nodes are available:");
}

TEST(SelectHost, ScoreTimesWeightTimesTenAndTheLowestNameAmongEquals) {
  const std::vector<std::string> feasible{"c", "a", "b"};
  auto totals = TotalScores(feasible, {{"a", 3}, {"b", 7}, {"c", 7}, {"elsewhere", 10}}, 5);
  EXPECT_EQ(totals, (std::map<std::string, std::int64_t>{{"a", 150}, {"b", 350}, {"c", 350}}));
  EXPECT_EQ(SelectHost(totals), "b");
  EXPECT_EQ(SelectHost(TotalScores(feasible, {}, 5)), "a") << "no scores: every node 0";
  EXPECT_EQ(SelectHost(TotalScores(feasible, {{"c", 11}, {"a", -1}}, 1)), "c") << "no clamping";
  EXPECT_THROW(SelectHost({}), std::invalid_argument);
}

TEST(Candidacy, ProfileGatesNodeDeletionAndPhase) {
  kube::Pod pod = GpuPod(1);
  EXPECT_TRUE(IsSchedulingCandidate(pod, "gangplank"));
  EXPECT_FALSE(IsSchedulingCandidate(pod, "default-scheduler"));
  pod.phase = "";
  EXPECT_TRUE(IsSchedulingCandidate(pod, "gangplank")) << "the API server defaults the phase to Pending";
  pod.scheduling_gates = {"gangplank.io/admission"};
  EXPECT_FALSE(IsSchedulingCandidate(pod, "gangplank"));
  pod.scheduling_gates.clear();
  pod.meta.deletion_timestamp = "2026-01-01T00:00:00Z";
  EXPECT_FALSE(IsSchedulingCandidate(pod, "gangplank"));
  pod.meta.deletion_timestamp.clear();
  pod.node_name = "n";
  EXPECT_FALSE(IsSchedulingCandidate(pod, "gangplank"));
  EXPECT_TRUE(HoldsNodeResources(pod));
  pod.phase = "Succeeded";
  EXPECT_FALSE(HoldsNodeResources(pod));
}

TEST(Candidacy, PriorityThenAgeThenName) {
  std::vector<QueueOrder> order{{0, "2026-01-01T00:00:02Z", "ml/b"},
                                {5, "2026-01-01T00:00:09Z", "ml/z"},
                                {0, "2026-01-01T00:00:01Z", "ml/c"},
                                {0, "2026-01-01T00:00:02Z", "ml/a"}};
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order[0].key, "ml/z");
  EXPECT_EQ(order[1].key, "ml/c");
  EXPECT_EQ(order[2].key, "ml/a");
  EXPECT_EQ(order[3].key, "ml/b");
}

TEST(ClusterEvents, WhatWakesWaitingPods) {
  kube::Pod before = GpuPod(1);
  kube::Pod after = before;
  after.conditions.Add("PodScheduled", "False");
  EXPECT_FALSE(SchedulingRelevantChange(before, after)) << "status writes never wake a pod";
  after.meta.annotations.Add("gangplank.io/planned-node", "gpu-3");
  EXPECT_TRUE(SchedulingRelevantChange(before, after));
  after = before;
  after.scheduling_gates = {"x"};
  EXPECT_TRUE(SchedulingRelevantChange(before, after));

  kube::Pod bound = GpuPod(1);
  bound.node_name = "n";
  bound.phase = "Running";
  kube::Pod done = bound;
  done.phase = "Failed";
  EXPECT_TRUE(FreesNodeResources(&bound, nullptr));
  EXPECT_TRUE(FreesNodeResources(&bound, &done));
  EXPECT_FALSE(FreesNodeResources(&bound, &bound));
  EXPECT_FALSE(FreesNodeResources(&before, nullptr)) << "an unbound pod held nothing";

  kube::Node node = GpuNode(8);
  kube::Node changed = node;
  EXPECT_TRUE(NodeMayAdmitMore(nullptr, node));
  EXPECT_FALSE(NodeMayAdmitMore(&node, changed));
  changed.conditions.Add("Ready", "True");
  EXPECT_FALSE(NodeMayAdmitMore(&node, changed)) << "heartbeats do not count";
  changed.unschedulable = true;
  EXPECT_TRUE(NodeMayAdmitMore(&node, changed));
}

}  // namespace
}  // namespace gangplank::scheduler_driver
