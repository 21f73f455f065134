// Termination notices as the clouds and their tools mark nodes (the list in cache/objects/termination_notice.h).
#include "cache/objects/termination_notice.h"

#include <gtest/gtest.h>

#include "cache/objects/convert.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::cache {
namespace {

NodeInfo Tainted(const std::string& key, std::map<std::string, std::string> labels = {}) {
  NodeInfo n = testing::GpuNode("n", 8, "A100", std::move(labels));
  n.taints.push_back({key, "", "NoSchedule"});
  return n;
}

TEST(TerminationNotice, EachToolsTaintIsANoticeWithItsLeadTime) {
  struct Case {
    std::string taint, source;
    double lead;
  };
  for (const Case& c : std::vector<Case>{{"aws-node-termination-handler/spot-itn", "aws-node-termination-handler", 120},
                                         {"karpenter.sh/disrupted", "karpenter", 120},
                                         {"karpenter.sh/disruption", "karpenter", 120},
                                         {"cloud.google.com/impending-node-termination", "gke", 30}}) {
    const NoticeReading r = ReadTerminationNotice(Tainted(c.taint));
    ASSERT_TRUE(r.notice) << c.taint;
    EXPECT_EQ(r.notice->source, c.source);
    EXPECT_EQ(r.notice->signal, "taint " + c.taint);
    EXPECT_DOUBLE_EQ(r.notice->lead_seconds, c.lead);
    EXPECT_FALSE(r.notice->terminate_at);
  }
}

TEST(TerminationNotice, AzuresRemediatorTaintCountsOnlyOnSpotNodes) {
  EXPECT_FALSE(ReadTerminationNotice(Tainted("remediator.aks.microsoft.com/unschedulable")).notice);
  // A node its GPU pool calls spot counts without the label.
  EXPECT_TRUE(ReadTerminationNotice(Tainted("remediator.aks.microsoft.com/unschedulable"), /*known_spot=*/true).notice);
  const NoticeReading r = ReadTerminationNotice(
      Tainted("remediator.aks.microsoft.com/unschedulable", {{"kubernetes.azure.com/scalesetpriority", "spot"}}));
  ASSERT_TRUE(r.notice);
  EXPECT_EQ(r.notice->source, "aks");
  EXPECT_DOUBLE_EQ(r.notice->lead_seconds, 30);
}

TEST(TerminationNotice, GkesImpendingTerminationCondition) {
  NodeInfo n = testing::GpuNode("n", 8, "A100", {{"cloud.google.com/gke-spot", "true"}});
  n.conditions["ImpendingNodeTermination"] = "False";
  EXPECT_FALSE(ReadTerminationNotice(n).notice);
  n.conditions["ImpendingNodeTermination"] = "True";
  const NoticeReading r = ReadTerminationNotice(n);
  ASSERT_TRUE(r.notice);
  EXPECT_EQ(r.notice->source, "gke");
  EXPECT_EQ(r.notice->signal, "condition ImpendingNodeTermination");
}

TEST(TerminationNotice, TheTerminateAtAnnotationGivesTheExactTime) {
  NodeInfo n = testing::GpuNode("n", 8);
  n.annotations["gangplank.io/terminate-at"] = "2027-01-15T08:02:00Z";
  const NoticeReading r = ReadTerminationNotice(n);
  ASSERT_TRUE(r.notice);
  EXPECT_EQ(r.notice->source, "annotation");
  EXPECT_DOUBLE_EQ(*r.notice->terminate_at, 1800000120);
}

TEST(TerminationNotice, AMalformedTerminateAtIsIgnoredWithAWarning) {
  for (const std::string bad : {"tomorrow", "", "2027-13-45T99:00:00Z", "1800000120"}) {
    NodeInfo n = testing::GpuNode("n", 8);
    n.annotations["gangplank.io/terminate-at"] = bad;
    const NoticeReading r = ReadTerminationNotice(n);
    EXPECT_FALSE(r.notice) << bad;
    EXPECT_NE(r.warning.find("is not an RFC 3339 time"), std::string::npos) << bad;
    EXPECT_FALSE(ToNodeSpec(n).unschedulable) << bad;  // Ignored: the node keeps taking pods.
  }
  // A malformed annotation does not hide a real notice.
  NodeInfo n = Tainted("karpenter.sh/disrupted");
  n.annotations["gangplank.io/terminate-at"] = "soon";
  const NoticeReading r = ReadTerminationNotice(n);
  ASSERT_TRUE(r.notice);
  EXPECT_EQ(r.notice->source, "karpenter");
  EXPECT_FALSE(r.warning.empty());
}

TEST(TerminationNotice, UnrelatedTaintsAreNoNoticeAndANoticedNodeTakesNoNewPods) {
  EXPECT_FALSE(ReadTerminationNotice(Tainted("nvidia.com/gpu")).notice);
  EXPECT_FALSE(ToNodeSpec(Tainted("nvidia.com/gpu")).unschedulable);
  EXPECT_TRUE(ToNodeSpec(Tainted("aws-node-termination-handler/spot-itn")).unschedulable);
}

TEST(TerminationNotice, SpotNodesByTheCloudsLabels) {
  EXPECT_FALSE(IsSpotNode(testing::GpuNode("n", 8)));
  for (const auto& [k, v] : std::map<std::string, std::string>{{"karpenter.sh/capacity-type", "spot"},
                                                                {"cloud.google.com/gke-spot", "true"},
                                                                {"cloud.google.com/gke-preemptible", "true"},
                                                                {"kubernetes.azure.com/scalesetpriority", "spot"},
                                                                {"eks.amazonaws.com/capacityType", "SPOT"}}) {
    EXPECT_TRUE(IsSpotNode(testing::GpuNode("n", 8, "A100", {{k, v}}))) << k;
  }
}

}  // namespace
}  // namespace gangplank::cache
