// End to end on the real control plane: consolidation. Each of two nodes is half held by the pod of a
// ReplicaSet of team-b; team-a's 8-GPU pod waits though 8 GPUs are free. With
// spec.preemption.consolidation on, the operator evicts one of those pods (Event Consolidation), its
// ReplicaSet makes it again, the new pod runs in the other node's hole, and the 8-GPU pod starts on the
// node it left.
#include <gtest/gtest.h>

#include <set>

#include "tests/operator/e2e/support/operator_cluster.h"

namespace gangplank::op::testing {
namespace {

class ConsolidationEndToEnd : public OperatorCluster {
 protected:
  // A ReplicaSet of one 4-GPU pod of team-b, labelled app=<name>.
  void ReplicaSet(const std::string& name) {
    Json pod = PodObject(name, PodOptions().Queue("team-b").Gpus(4).Label("app", name));
    Json template_ = {{"metadata", {{"labels", pod["metadata"]["labels"]}}}, {"spec", pod["spec"]}};
    const Json set = {{"apiVersion", "apps/v1"},
                      {"kind", "ReplicaSet"},
                      {"metadata", {{"name", name}}},
                      {"spec", {{"replicas", 1}, {"selector", {{"matchLabels", {{"app", name}}}}}, {"template", template_}}}};
    client().Create(kube::ResourceDescriptor{"apps", "v1", "replicasets", "ReplicaSet", true}, ns(), set);
  }

  // The bound pods of both ReplicaSets, by name, with their nodes.
  std::map<std::string, std::string> Evals() {
    std::map<std::string, std::string> out;
    for (const Json& p : Pods("app in (eval-a,eval-b)")) {
      const std::string node = p.value("/spec/nodeName"_json_pointer, std::string());
      if (!node.empty() && !p["metadata"].contains("deletionTimestamp")) out[p["metadata"]["name"]] = node;
    }
    return out;
  }
};

TEST_F(ConsolidationEndToEnd, ALonePodIsMovedIntoAHoleSoAWholeNodePodStarts) {
  Node("n0");
  Node("n1");
  Pool("pool", Json::parse(R"({"preemption":{"reclaim":false,"minWaitSeconds":1,"minRuntimeSeconds":1,
      "consolidation":{"enabled":true}}})"));
  Queue("team-a");
  Queue("team-b");
  StartOperator();
  // Other schedulers' pods hold half of each node, so the ReplicaSets' pods land one a node.
  Occupy("block-0", "n0", 4);
  Occupy("block-1", "n1", 4);
  ReplicaSet("eval-a");
  ReplicaSet("eval-b");
  ASSERT_TRUE(WaitFor([&] { return Evals().size() == 2; })) << Logs();
  std::set<std::string> nodes;
  for (const auto& [pod, node] : Evals()) nodes.insert(node);
  ASSERT_EQ(nodes, (std::set<std::string>{"n0", "n1"}));
  client().Remove(kube::resources::Pods(), ns(), "block-0");
  client().Remove(kube::resources::Pods(), ns(), "block-1");

  Submit(PodObject("big", PodOptions().Queue("team-a").Gpus(8)));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"big"}); }, std::chrono::seconds(90))) << GangCondition("big").dump() << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("Consolidation", "it fits on free GPUs elsewhere"); })) << Logs();
  // The moved pod came back, and both now share the node the 8-GPU pod does not use.
  const std::string other = NodeOf("big") == "n0" ? "n1" : "n0";
  ASSERT_TRUE(WaitFor([&] {
    const auto evals = Evals();
    return evals.size() == 2 && evals.begin()->second == other && evals.rbegin()->second == other;
  })) << Logs();
  EXPECT_EQ(OperatorMetric("gangplank_operator_evictions_total"), 1) << "one move, nothing else";
}

}  // namespace
}  // namespace gangplank::op::testing
