// The operator's table of nodes under notice: first sightings kept, changes reported, warnings once.
#include "operator/spot/node_notices.h"

#include <gtest/gtest.h>

#include "tests/cache/support/state_builders.h"

namespace gangplank::op {
namespace {

cache::NodeInfo Node(const std::string& taint = "") {
  cache::NodeInfo n = cache::testing::GpuNode("n1", 8);
  if (!taint.empty()) n.taints.push_back({taint, "", "NoSchedule"});
  return n;
}

TEST(NodeNotices, ANoticeWithoutATimeIsMeasuredFromItsFirstSighting) {
  NodeNotices notices;
  EXPECT_FALSE(notices.Observe(Node(), 100).changed);
  const auto first = notices.Observe(Node("aws-node-termination-handler/spot-itn"), 200);
  EXPECT_TRUE(first.changed);
  ASSERT_TRUE(first.started);
  EXPECT_DOUBLE_EQ(first.started->terminate_at, 320);
  // Seen again later (a heartbeat): same deadline, nothing new.
  const auto again = notices.Observe(Node("aws-node-termination-handler/spot-itn"), 260);
  EXPECT_FALSE(again.changed);
  EXPECT_FALSE(again.started);
  EXPECT_DOUBLE_EQ(notices.Snapshot()->at("n1").terminate_at, 320);
  // The notice goes (a rebalance that did not happen): the node is free again.
  EXPECT_TRUE(notices.Observe(Node(), 270).changed);
  EXPECT_TRUE(notices.Snapshot()->empty());
}

TEST(NodeNotices, AnAnnotationThatMovesChangesTheDeadline) {
  NodeNotices notices;
  cache::NodeInfo n = Node();
  n.annotations["gangplank.io/terminate-at"] = "2027-01-15T08:02:00Z";
  EXPECT_TRUE(notices.Observe(n, 0).started);
  n.annotations["gangplank.io/terminate-at"] = "2027-01-15T08:05:00Z";
  const auto moved = notices.Observe(n, 10);
  EXPECT_TRUE(moved.changed);
  EXPECT_FALSE(moved.started);
  EXPECT_DOUBLE_EQ(notices.Snapshot()->at("n1").terminate_at, 1800000300);
}

TEST(NodeNotices, AMalformedValueIsReportedOncePerValue) {
  NodeNotices notices;
  cache::NodeInfo n = Node();
  n.annotations["gangplank.io/terminate-at"] = "in five minutes";
  const auto first = notices.Observe(n, 0);
  EXPECT_NE(first.warning.find("in five minutes"), std::string::npos);
  EXPECT_FALSE(first.changed);
  EXPECT_TRUE(notices.Observe(n, 1).warning.empty());
  n.annotations["gangplank.io/terminate-at"] = "soon";
  EXPECT_FALSE(notices.Observe(n, 2).warning.empty());
  EXPECT_TRUE(notices.Snapshot()->empty());
}

TEST(NodeNotices, ADeletedNodeLeavesTheTable) {
  NodeNotices notices;
  notices.Observe(Node("karpenter.sh/disrupted"), 0);
  const auto before = notices.Snapshot();
  EXPECT_TRUE(notices.Remove("n1"));
  EXPECT_FALSE(notices.Remove("n1"));
  EXPECT_TRUE(notices.Snapshot()->empty());
  EXPECT_EQ(before->size(), 1u);  // A snapshot taken earlier is unchanged.
}

}  // namespace
}  // namespace gangplank::op
