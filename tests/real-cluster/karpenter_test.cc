// Autoscaled GPU pools on the real control plane with the real autoscaler beside it: Karpenter v1.14.0 and
// its KWOK cloud provider (scripts/real-cluster.sh --karpenter), whose NodeClaims become KWOK nodes of
// 8 GPUs, and the cluster's default-scheduler, which runs gangplank's placeholder pods. Each test has its
// own NodePool, labelling its nodes with the test's case label (which its GPUPool selects) and offering
// NVLink cliques c0 and c1.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "cache/feed/gangplank_resources.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

const kube::ResourceDescriptor kNodePools{"karpenter.sh", "v1", "nodepools", "NodePool", false};
const kube::ResourceDescriptor kNodeClaims{"karpenter.sh", "v1", "nodeclaims", "NodeClaim", false};
constexpr const char* kClique = "gangplank.io/clique";

class KarpenterOnRealCluster : public RealClusterTest {
 public:
  static void SetUpTestSuite() { StartControlPlane({"--karpenter", "--default-scheduler"}); }

 protected:
  void TearDown() override {
    if (!node_pool_.empty()) {
      // Deleting a NodePool deletes its NodeClaims, and Karpenter its nodes.
      client().Remove(kNodePools, "", node_pool_);
      EXPECT_TRUE(WaitFor([&] { return NodeClaims().empty(); }, std::chrono::seconds(120)))
          << "NodePool " << node_pool_ << " left NodeClaims behind";
    }
    RealClusterTest::TearDown();
  }

  // This test's NodePool: nodes labelled with its case label, in clique c0 or c1, at most `gpus` GPUs in
  // all, empty or underused nodes consolidated after `consolidate_after`.
  void NodePool(int gpus, const std::string& consolidate_after = "30s") {
    node_pool_ = "np-" + ns();
    client().Create(
        kNodePools, "",
        Json{{"apiVersion", "karpenter.sh/v1"},
             {"kind", "NodePool"},
             {"metadata", {{"name", node_pool_}}},
             {"spec",
              {{"template",
                {{"metadata", {{"labels", {{"gangplank.test/case", ns()}}}}},
                 {"spec",
                  {{"nodeClassRef", {{"group", "karpenter.kwok.sh"}, {"kind", "KWOKNodeClass"}, {"name", "default"}}},
                   {"expireAfter", "Never"},
                   {"requirements",
                    Json::array({{{"key", kClique}, {"operator", "In"}, {"values", {"c0", "c1"}}},
                                 {{"key", "karpenter.sh/capacity-type"}, {"operator", "In"}, {"values", {"on-demand"}}}})}}}}},
               {"disruption", {{"consolidationPolicy", "WhenEmptyOrUnderutilized"}, {"consolidateAfter", consolidate_after}}},
               {"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}});
  }

  void SetNodePoolLimit(int gpus) {
    client().Patch(kNodePools, "", node_pool_, kube::PatchType::kMerge,
                   Json{{"spec", {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}});
  }

  // A GPUPool of this test's nodes, autoscaled by its NodePool, with `extra` merged into its spec.
  void AutoscaledPool(const Json& extra = Json::object()) {
    Json spec{{"topologyLevels", {"topology.kubernetes.io/zone", kClique, "kubernetes.io/hostname"}},
              {"autoscaling",
               {{"enabled", true},
                {"domainLabel", kClique},
                {"domains", {"c0", "c1"}},
                {"nodeSelector", {{"karpenter.sh/nodepool", node_pool_}}}}}};
    spec.merge_patch(extra);
    Pool("autoscaled-" + ns(), spec);
  }

  std::vector<Json> NodeClaims() {
    kube::ListOptions mine;
    mine.label_selector = "karpenter.sh/nodepool=" + node_pool_;
    return client().List(kNodeClaims, "", mine).value("items", Json::array()).get<std::vector<Json>>();
  }

  std::vector<Json> Placeholders() {
    kube::ListOptions o;
    o.label_selector = "gangplank.io/capacity-for";
    return client().List(kube::resources::Pods(), "gangplank-system", o).value("items", Json::array()).get<std::vector<Json>>();
  }

  std::string Reason(const std::string& pod) { return GangCondition(pod).value("reason", ""); }

  // Seconds pass with `condition` holding throughout (checked every half second).
  bool HoldsFor(int seconds, const std::function<bool()>& condition) {
    for (int i = 0; i < seconds * 2; ++i) {
      if (!condition()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return true;
  }

  std::string node_pool_;
};

TEST_F(KarpenterOnRealCluster, AnEmptyPoolGetsExactlyTheNodesOfAWaitingGangAllInOneCliqueAndAdmitsItWhole) {
  NodePool(64);
  AutoscaledPool();
  Queue("team-a");
  CreateGang("train", 4, PodSpec().Gpus(8).Queue("team-a"));
  const auto pods = Names("train", 4);
  ASSERT_TRUE(WaitFor([&] { return AllBound(pods); }, std::chrono::seconds(120))) << Logs();

  EXPECT_EQ(NodeClaims().size(), 4u) << "four members of 8 GPUs need four 8-GPU nodes, no more";
  const std::string clique = LabelOf(NodeOf(pods[0]), kClique);
  EXPECT_TRUE(clique == "c0" || clique == "c1") << clique;
  ExpectOnOwnPlannedNodesIn(pods, kClique, clique);
  for (const auto& p : pods) {
    EXPECT_EQ(AnnotationOf(p, "karpenter.sh/do-not-disrupt"), "true") << p << ": its node may be consolidated away alone";
  }
  EXPECT_EQ(Reason(pods[0]), "Admitted");
  EXPECT_TRUE(WaitFor([&] { return Placeholders().empty(); })) << "placeholders left behind";
  EXPECT_TRUE(HoldsFor(10, [&] { return NodeClaims().size() == 4; })) << "more nodes were asked for than the gang needs";
}

TEST_F(KarpenterOnRealCluster, AGangOverItsQueuesLimitAsksForNoNode) {
  NodePool(64);
  AutoscaledPool();
  Queue("team-a", Json{{"pools", Json::array({{{"name", "autoscaled-" + ns()}, {"limitGPUs", 16}}})}});
  CreateGang("big", 4, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { return Reason("big-0") == "QueueAtLimit"; })) << GangCondition("big-0").dump() << Logs();
  EXPECT_TRUE(HoldsFor(10, [&] { return NodeClaims().empty() && Placeholders().empty(); }))
      << "nodes were bought beyond the queue's limit";
  EXPECT_TRUE(Gated("big-0"));
}

TEST_F(KarpenterOnRealCluster, ARequestTheAutoscalerCannotServeIsReportedAndAskedAgainUntilServed) {
  NodePool(16);  // Two of the four nodes the gang needs.
  AutoscaledPool(Json{{"autoscaling", {{"provisionTimeoutSeconds", 15}}}});
  Queue("team-a");
  CreateGang("train", 4, PodSpec().Gpus(8).Queue("team-a"));
  const auto pods = Names("train", 4);
  ASSERT_TRUE(WaitFor([&] { return Reason(pods[0]) == "AwaitingNodes"; })) << GangCondition(pods[0]).dump() << Logs();
  ASSERT_TRUE(WaitFor([&] { return Reason(pods[0]) == "NodesNotProvisioned"; }, std::chrono::seconds(90)))
      << GangCondition(pods[0]).dump() << Logs();
  EXPECT_TRUE(WaitFor([&] { return Said("NodesNotProvisioned", "not all within 15 s; still asking"); }));
  EXPECT_FALSE(AllBound(pods));
  EXPECT_LE(NodeClaims().size(), 2u) << "the NodePool's limit was passed";

  SetNodePoolLimit(64);
  ASSERT_TRUE(WaitFor([&] { return AllBound(pods); }, std::chrono::seconds(150))) << GangCondition(pods[0]).dump() << Logs();
  ExpectOnOwnPlannedNodesIn(pods, kClique, LabelOf(NodeOf(pods[0]), kClique));
  EXPECT_EQ(NodeClaims().size(), 4u);
}

TEST_F(KarpenterOnRealCluster, ConsolidationTakesNoMemberOfARunningGangAloneAndIdleNodesGoOnceGangsEnd) {
  NodePool(64, "5s");
  // The members the test deletes restart nothing: the rest stay where they are.
  AutoscaledPool(Json{{"faultRecovery", {{"policy", "Ignore"}}}});
  Queue("team-a");
  CreateGang("half", 4, PodSpec().Gpus(4).Queue("team-a"));
  const auto pods = Names("half", 4);
  ASSERT_TRUE(WaitFor([&] { return AllBound(pods); }, std::chrono::seconds(120))) << Logs();
  ASSERT_EQ(NodeClaims().size(), 2u) << "four 4-GPU members pack onto two 8-GPU nodes";
  // One member of each node goes: two half-empty nodes whose pods would fit on one.
  std::map<std::string, std::string> goes, stays;  // Node -> the member deleted from it, and the one left.
  for (const auto& p : pods) (goes.contains(NodeOf(p)) ? stays : goes)[NodeOf(p)] = p;
  ASSERT_EQ(goes.size(), 2u);
  ASSERT_EQ(stays.size(), 2u);
  for (const auto& [node, pod] : goes) client().Remove(kube::resources::Pods(), ns(), pod);
  EXPECT_TRUE(HoldsFor(45, [&] {
    if (NodeClaims().size() != 2) return false;
    for (const auto& [node, pod] : stays) {
      if (NodeOf(pod) != node || !Running(pod)) return false;
    }
    return true;
  })) << "consolidation took a member of the running gang";

  // Once the gang ends its nodes are idle, and Karpenter removes them.
  for (const auto& [node, pod] : stays) client().Remove(kube::resources::Pods(), ns(), pod);
  EXPECT_TRUE(WaitFor([&] { return NodeClaims().empty(); }, std::chrono::seconds(120))) << "idle nodes were kept";
}

}  // namespace
}  // namespace gangplank::real_cluster
