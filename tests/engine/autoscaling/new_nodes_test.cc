// The nodes an autoscaler must add for a waiting gang: all of the gang's new nodes in one domain, no
// more than the members left over after the domain's free GPUs, and a clear no when a node is too small.
#include <gtest/gtest.h>

#include "engine/autoscaling/new_nodes.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using testing::SmallCluster;

GangRequest Gang(int members, int gpus) {
  GangRequest g;
  g.name = "g";
  g.queue = "a";
  for (int i = 0; i < members; ++i) g.members.push_back(testing::Gpus(gpus));
  return g;
}

NewNodesQuestion InRacks(std::vector<std::string> racks) {
  NewNodesQuestion q;
  q.domain_key = "rack";
  q.domain_values = std::move(racks);
  return q;
}

// Takes `gpus` whole GPUs of node `n`.
void Use(Cluster& cluster, NodeId n, int gpus) {
  Allocation a;
  a.node = n;
  for (int i = 0; i < gpus; ++i) a.gpus.push_back(i);
  a.milli_per_gpu = kMilliPerGpu;
  cluster.Assign(a);
}

TEST(NewNodes, AnEmptyPoolGetsOneNodePerEightGpuMemberInTheFirstDomain) {
  Cluster empty({"zone", "rack"});
  std::string why;
  auto nodes = PlanNewNodes(empty, Gang(4, 8), InRacks({"k0", "k1"}), why);
  ASSERT_TRUE(nodes) << why;
  EXPECT_EQ(nodes->count(), 4);
  EXPECT_EQ(nodes->domain_value, "k0");
}

TEST(NewNodes, SmallMembersArePackedOntoAsFewNodesAsHoldThem) {
  Cluster empty({"zone", "rack"});
  std::string why;
  auto nodes = PlanNewNodes(empty, Gang(5, 3), InRacks({"k0"}), why);  // 15 GPUs: 2 per node, 3 nodes.
  ASSERT_TRUE(nodes) << why;
  EXPECT_EQ(nodes->count(), 3);
  EXPECT_EQ(nodes->members[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(nodes->members[2], (std::vector<int>{4}));
}

TEST(NewNodes, TheDomainWithTheMostFreeGpusNeedsTheFewestNewNodes) {
  Cluster cluster = SmallCluster(2, 2);  // k0-n0 k0-n1 k1-n0 k1-n1, all free.
  Use(cluster, 0, 8);
  Use(cluster, 1, 8);  // k0 full; k1 has two free nodes.
  std::string why;
  auto nodes = PlanNewNodes(cluster, Gang(3, 8), InRacks({"k0", "k1", "k2"}), why);
  ASSERT_TRUE(nodes) << why;
  EXPECT_EQ(nodes->domain_value, "k1");
  EXPECT_EQ(nodes->count(), 1) << "two members on k1's free nodes, one new node";
}

TEST(NewNodes, GpusPromisedThisRoundAreNotCountedFree) {
  Cluster cluster = SmallCluster(1, 2);
  NewNodesQuestion q = InRacks({"k0"});
  q.taken[0] = 8;
  std::string why;
  auto nodes = PlanNewNodes(cluster, Gang(2, 8), q, why);
  ASSERT_TRUE(nodes) << why;
  EXPECT_EQ(nodes->count(), 1);
}

TEST(NewNodes, CordonedNodesHoldNothing) {
  Cluster cluster({"zone", "rack"});
  NodeSpec spec;
  spec.name = "cordoned";
  spec.capacity = HostResources{64000, 512 * 1024};
  spec.gpu_count = 8;
  spec.labels = {{"zone", "z0"}, {"rack", "k0"}};
  spec.unschedulable = true;
  cluster.AddNode(spec);
  std::string why;
  auto nodes = PlanNewNodes(cluster, Gang(1, 8), InRacks({"k0"}), why);
  ASSERT_TRUE(nodes) << why;
  EXPECT_EQ(nodes->count(), 1);
}

TEST(NewNodes, WithoutDomainsExistingFreeGpusAnywhereCount) {
  Cluster cluster = SmallCluster(2, 1);
  std::string why;
  auto nodes = PlanNewNodes(cluster, Gang(3, 8), NewNodesQuestion{}, why);
  ASSERT_TRUE(nodes) << why;
  EXPECT_EQ(nodes->domain_value, "");
  EXPECT_EQ(nodes->count(), 1);
}

TEST(NewNodes, AMemberLargerThanANewNodeIsRefusedWithWhy) {
  Cluster empty({"zone", "rack"});
  std::string why;
  EXPECT_FALSE(PlanNewNodes(empty, Gang(2, 16), InRacks({"k0"}), why));
  EXPECT_EQ(why, "a member asks for 16 GPUs; a node the autoscaler adds has 8");
  GangRequest cpu_only = Gang(1, 0);
  cpu_only.members[0].gpu_milli = 0;
  EXPECT_FALSE(PlanNewNodes(empty, cpu_only, InRacks({"k0"}), why));
  EXPECT_EQ(why, "the gang asks for no GPUs");
}

}  // namespace
}  // namespace gangplank::engine
