// End to end on the real control plane: spot reclaim with reclaimPolicy Evict. A termination notice on
// a node that runs no gang member evicts that node's pods only; the gang beside it is not asked to
// checkpoint. (The gang-level cases, checkpoint and whole-gang eviction, are ReclaimOnRealCluster in
// tests/real-cluster.)
#include <gtest/gtest.h>

#include <thread>

#include "tests/operator/e2e/support/operator_cluster.h"

namespace gangplank::op::testing {
namespace {

class SpotEndToEnd : public OperatorCluster {
 protected:
  // What the AWS Node Termination Handler does on a spot interruption notice (with TAINT_NODE=true).
  void InterruptionNotice(const std::string& node) {
    client().Patch(kube::resources::Nodes(), "", node, kube::PatchType::kMerge,
                   Json{{"spec", {{"taints", Json::array({{{"key", "aws-node-termination-handler/spot-itn"},
                                                            {"effect", "NoSchedule"}}})}}}});
  }
  PodOptions options_ = PodOptions().Queue("team-a");
};

TEST_F(SpotEndToEnd, ANoticeOnANodeWithoutGangMembersDrainsOnlyThatNodesPods) {
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i));
  Pool("pool", Json::parse(R"({"spot":{"reclaimPolicy":"Evict"}})"));
  Queue("team-a");
  StartOperator();
  SubmitGang("pair", 2, options_);
  Submit(PodObject("solo", options_));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"pair-0", "pair-1", "solo"}); })) << Logs();
  InterruptionNotice(NodeOf("solo"));
  ASSERT_TRUE(WaitFor([&] { return !Pod("solo"); })) << Logs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_TRUE(AllBound({"pair-0", "pair-1"}));
  EXPECT_EQ(AnnotationOf("pair-0", "gangplank.io/checkpoint-requested"), "");
  EXPECT_TRUE(Said("SpotReclaimed", "evict on notice"));
}

}  // namespace
}  // namespace gangplank::op::testing
