// The extender binding pods itself (the chart's extender.bindVerb=bind): the real kube-scheduler hands
// each pod to the extender's bind verb, which creates the Binding through the real API server with only
// the chart's RBAC (pods/binding); each pod lands on its planned node, and KWOK runs it.
#include <gtest/gtest.h>

#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

class BindVerbOnRealCluster : public RealClusterTest {
 public:
  static void SetUpTestSuite() {
    StartControlPlane({"--chart-set", "extender.bindVerb=bind", "--extender-arg", "--bind-verb=bind"});
  }
};

TEST_F(BindVerbOnRealCluster, KubeSchedulerHandsEveryPodToTheExtendersBindVerbWhichBindsItOnItsPlannedNode) {
  Node("n0", 8);
  Node("n1", 8);
  Pool("pool");
  Queue("team-a");
  Create(PodObject("via-bind-a", PodSpec().Gpus(6).Queue("team-a")));
  Create(PodObject("via-bind-b", PodSpec().Gpus(6).Queue("team-a")));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"via-bind-a", "via-bind-b"}); })) << Logs();
  EXPECT_NE(NodeOf("via-bind-a"), NodeOf("via-bind-b")) << "both 6-GPU pods were put on the same 8-GPU node";
  EXPECT_EQ(NodeOf("via-bind-a"), PlannedNodeOf("via-bind-a"));
  EXPECT_EQ(NodeOf("via-bind-b"), PlannedNodeOf("via-bind-b"));
  EXPECT_EQ(cluster().ExtenderMetric("gangplank_extender_requests_total", {"verb=\"bind\"", "code=\"200\""}), 2) << "kube-scheduler bound without the extender's bind verb\n" << Logs();
  EXPECT_TRUE(WaitFor([&] { return Running("via-bind-a") && Running("via-bind-b"); }));
}

}  // namespace
}  // namespace gangplank::real_cluster
