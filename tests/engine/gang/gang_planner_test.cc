#include "engine/gang/gang_planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "engine/gang/largest_gang.h"
#include "tests/engine/gang/test_cluster.h"

namespace gangplank::engine {
namespace {

using ::testing::HasSubstr;
using testing::LeastFreePolicy;
using testing::MakeCluster;
using testing::Occupy;
using testing::UniformGang;

std::set<DomainId> DomainsUsed(const Cluster& cluster, const GangPlan& plan, int level) {
  std::set<DomainId> used;
  for (const MemberAllocation& m : plan.allocations) used.insert(cluster.topology().DomainOf(m.allocation.node, level));
  return used;
}

std::string RackOf(const Cluster& cluster, const GangPlan& plan, size_t i) {
  return cluster.spec(plan.allocations.at(i).allocation.node).labels.at("rack");
}

TEST(GangPlanner, SmallGangGoesIntoOneRack) {
  Cluster cluster = MakeCluster(1, 2, 2, 4);
  LeastFreePolicy policy;
  Rng rng(1);
  const GangPlan plan = PlanGang(cluster, UniformGang("g", 2, 8), policy, rng);
  ASSERT_TRUE(plan.placed) << plan.reason;
  EXPECT_EQ(plan.level, 2);  // rack
  EXPECT_EQ(plan.allocations.size(), 2u);
  EXPECT_EQ(DomainsUsed(cluster, plan, 2).size(), 1u);
  EXPECT_EQ(cluster.allocated_gpu_milli(), 0) << "planning must not change the cluster";
}

TEST(GangPlanner, GangWiderThanARackTakesTheNarrowestRowAndFewestRacks) {
  Cluster cluster = MakeCluster(2, 2, 2, 4);
  LeastFreePolicy policy;
  Rng rng(1);
  const GangPlan plan = PlanGang(cluster, UniformGang("g", 6, 8), policy, rng);
  ASSERT_TRUE(plan.placed) << plan.reason;
  EXPECT_EQ(plan.level, 1);  // row: 8 nodes; a rack has only 4
  EXPECT_EQ(DomainsUsed(cluster, plan, 1).size(), 1u);
  EXPECT_EQ(DomainsUsed(cluster, plan, 2).size(), 2u);
}

TEST(GangPlanner, GangLargerThanAnyZoneSpansThePool) {
  Cluster cluster = MakeCluster(2, 1, 1, 4);
  LeastFreePolicy policy;
  Rng rng(1);
  const GangPlan plan = PlanGang(cluster, UniformGang("g", 6, 8), policy, rng);
  ASSERT_TRUE(plan.placed) << plan.reason;
  EXPECT_EQ(plan.level, -1);
  EXPECT_EQ(plan.domain, kNoDomain);
  EXPECT_EQ(DomainsUsed(cluster, plan, 0).size(), 2u);
}

TEST(GangPlanner, RequiredLevelRefusesAWiderPlacementAndSaysWhy) {
  Cluster cluster = MakeCluster(1, 1, 2, 4);
  Occupy(cluster, "z0-r0-k1-n0", 1);  // rack k1 now offers 3 whole free nodes, k0 offers 4
  LeastFreePolicy policy;
  Rng rng(1);
  GangRequest gang = UniformGang("big", 5, 8);
  gang.required_level = "rack";
  const std::int64_t before = cluster.allocated_gpu_milli();
  const GangPlan plan = PlanGang(cluster, gang, policy, rng);
  EXPECT_FALSE(plan.placed);
  EXPECT_TRUE(plan.allocations.empty());
  EXPECT_EQ(plan.reason, "gang big needs 5 nodes with 8 free GPUs in one rack; best rack z0/z0-r0/z0-r0-k0 has 4 (32 free GPUs)");
  EXPECT_EQ(cluster.allocated_gpu_milli(), before);
}

TEST(GangPlanner, PreferredLevelFallsBackWiderAndReportsIt) {
  Cluster cluster = MakeCluster(1, 1, 2, 4);
  LeastFreePolicy policy;
  Rng rng(1);
  GangRequest gang = UniformGang("big", 5, 8);
  gang.preferred_level = "rack";
  const GangPlan plan = PlanGang(cluster, gang, policy, rng);
  ASSERT_TRUE(plan.placed) << plan.reason;
  EXPECT_FALSE(plan.preferred_met);
  EXPECT_EQ(plan.level, 1);
  EXPECT_THAT(plan.reason, HasSubstr("no single rack can hold gang big"));

  GangRequest small = UniformGang("small", 3, 8);
  small.preferred_level = "rack";
  const GangPlan fits = PlanGang(cluster, small, policy, rng);
  ASSERT_TRUE(fits.placed);
  EXPECT_TRUE(fits.preferred_met);
  EXPECT_EQ(fits.level, 2);
}

TEST(GangPlanner, RequiredLevelIsMetByANarrowerDomain) {
  Cluster cluster = MakeCluster(1, 2, 2, 4);
  LeastFreePolicy policy;
  Rng rng(1);
  GangRequest gang = UniformGang("g", 2, 8);
  gang.required_level = "zone";
  const GangPlan plan = PlanGang(cluster, gang, policy, rng);
  ASSERT_TRUE(plan.placed);
  EXPECT_EQ(plan.level, 2);
}

TEST(GangPlanner, PrefersAnAlreadyBrokenRackOverAFreeOne) {
  Cluster cluster = MakeCluster(1, 1, 2, 4);
  Occupy(cluster, "z0-r0-k1-n0", 8);
  Occupy(cluster, "z0-r0-k1-n1", 8);
  LeastFreePolicy policy;
  Rng rng(1);
  const GangPlan plan = PlanGang(cluster, UniformGang("g", 2, 8), policy, rng);
  ASSERT_TRUE(plan.placed);
  EXPECT_EQ(RackOf(cluster, plan, 0), "z0-r0-k1");
  EXPECT_EQ(RackOf(cluster, plan, 1), "z0-r0-k1");
}

TEST(GangPlanner, AvoidsBreakingAFullyFreeRow) {
  // Row r0: rack k0 full, rack k1 free. Row r1: entirely free. A 2-node gang fits in r0-k1 or in either
  // rack of r1; taking r1 would break a whole free row, so it must go to r0-k1.
  Cluster cluster = MakeCluster(1, 2, 2, 4);
  for (int n = 0; n < 4; ++n) Occupy(cluster, "z0-r0-k0-n" + std::to_string(n), 8);
  LeastFreePolicy policy;
  Rng rng(1);
  const GangPlan plan = PlanGang(cluster, UniformGang("g", 2, 8), policy, rng);
  ASSERT_TRUE(plan.placed);
  EXPECT_EQ(RackOf(cluster, plan, 0), "z0-r0-k1");
}

TEST(GangPlanner, BestFitAmongBrokenRacks) {
  Cluster cluster = MakeCluster(1, 1, 2, 4);
  Occupy(cluster, "z0-r0-k0-n0", 8);  // k0: 3 free nodes
  for (int n = 0; n < 3; ++n) Occupy(cluster, "z0-r0-k1-n" + std::to_string(n), 8);  // k1: 1 free node
  LeastFreePolicy policy;
  Rng rng(1);
  const GangPlan plan = PlanGang(cluster, UniformGang("g", 1, 8), policy, rng);
  ASSERT_TRUE(plan.placed);
  EXPECT_EQ(cluster.spec(plan.allocations[0].allocation.node).name, "z0-r0-k1-n3");
}

TEST(GangPlanner, ReportsWhatThePoolLacks) {
  Cluster cluster = MakeCluster(1, 1, 1, 4);
  Occupy(cluster, "z0-r0-k0-n0", 2);
  LeastFreePolicy policy;
  Rng rng(1);
  const GangPlan plan = PlanGang(cluster, UniformGang("g", 4, 8), policy, rng);
  EXPECT_FALSE(plan.placed);
  EXPECT_EQ(plan.reason, "gang g needs 4 nodes with 8 free GPUs in the pool; the pool has 3 (30 free GPUs)");
}

TEST(GangPlanner, MinMembersPlacesWhatFitsAboveTheMinimum) {
  Cluster cluster = MakeCluster(1, 1, 1, 3);
  LeastFreePolicy policy;
  Rng rng(1);
  GangRequest gang = UniformGang("elastic", 5, 8);
  gang.min_members = 2;
  const GangPlan plan = PlanGang(cluster, gang, policy, rng);
  ASSERT_TRUE(plan.placed) << plan.reason;
  EXPECT_EQ(plan.allocations.size(), 3u);
  gang.min_members = 4;
  EXPECT_FALSE(PlanGang(cluster, gang, policy, rng).placed);
}

TEST(GangPlanner, OnlyEligibleNodesCount) {
  Cluster cluster = MakeCluster(1, 1, 2, 2);
  LeastFreePolicy policy;
  Rng rng(1);
  GangRequest gang = UniformGang("sel", 2, 8);
  for (PodRequest& m : gang.members) m.node_selector = {{"rack", "z0-r0-k1"}};
  GangPlan plan = PlanGang(cluster, gang, policy, rng);
  ASSERT_TRUE(plan.placed);
  EXPECT_EQ(RackOf(cluster, plan, 0), "z0-r0-k1");
  EXPECT_EQ(RackOf(cluster, plan, 1), "z0-r0-k1");
  gang.members.push_back(gang.members[0]);
  plan = PlanGang(cluster, gang, policy, rng);
  EXPECT_FALSE(plan.placed);
  for (PodRequest& m : gang.members) m.gpu_models = {"H100"};
  plan = PlanGang(cluster, gang, policy, rng);
  EXPECT_FALSE(plan.placed);
  EXPECT_THAT(plan.reason, HasSubstr("no node is eligible"));
}

TEST(GangPlanner, CpuShortageIsFoundByPlacementNotByTheAggregates) {
  Cluster cluster = MakeCluster(1, 1, 1, 2);
  LeastFreePolicy policy;
  Rng rng(1);
  GangRequest gang = UniformGang("cpu", 2, 4);
  for (PodRequest& m : gang.members) m.host.cpu_milli = 40000;  // two do not fit on one 64-core node
  GangPlan plan = PlanGang(cluster, gang, policy, rng);
  ASSERT_TRUE(plan.placed);
  EXPECT_NE(plan.allocations[0].allocation.node, plan.allocations[1].allocation.node);
  gang.members.push_back(gang.members[0]);
  plan = PlanGang(cluster, gang, policy, rng);
  EXPECT_FALSE(plan.placed);
  EXPECT_THAT(plan.reason, HasSubstr("did not fit there"));
}

TEST(GangPlanner, SharingMembersAndMixedSizes) {
  Cluster cluster = MakeCluster(1, 1, 1, 2);
  LeastFreePolicy policy;
  Rng rng(1);
  GangRequest gang = UniformGang("mix", 1, 8);
  PodRequest share = testing::WholeGpus(1);
  share.gpu_milli = 300;
  gang.members.push_back(share);
  gang.members.push_back(testing::WholeGpus(3));
  const GangPlan plan = PlanGang(cluster, gang, policy, rng);
  ASSERT_TRUE(plan.placed) << plan.reason;
  ASSERT_EQ(plan.allocations.size(), 3u);
  EXPECT_EQ(plan.allocations[1].allocation.milli_per_gpu, 300);
  ApplyGangPlan(cluster, plan);
  EXPECT_EQ(cluster.allocated_gpu_milli(), 11300);
}

TEST(GangPlanner, InvalidGangAndUnknownLevel) {
  Cluster cluster = MakeCluster(1, 1, 1, 1);
  LeastFreePolicy policy;
  Rng rng(1);
  GangRequest empty;
  empty.name = "e";
  EXPECT_THAT(PlanGang(cluster, empty, policy, rng).reason, HasSubstr("has no members"));
  GangRequest gang = UniformGang("g", 1, 1);
  gang.required_level = "block";
  EXPECT_THAT(PlanGang(cluster, gang, policy, rng).reason, HasSubstr("'block'"));
}

TEST(GangPlanner, ApplyingAStalePlanChangesNothing) {
  Cluster cluster = MakeCluster(1, 1, 1, 2);
  LeastFreePolicy policy;
  Rng rng(1);
  const GangPlan plan = PlanGang(cluster, UniformGang("g", 2, 8), policy, rng);
  ASSERT_TRUE(plan.placed);
  Occupy(cluster, cluster.spec(plan.allocations[1].allocation.node).name, 1);
  const std::int64_t before = cluster.allocated_gpu_milli();
  EXPECT_THROW(ApplyGangPlan(cluster, plan), std::logic_error);
  EXPECT_EQ(cluster.allocated_gpu_milli(), before);
}

// Counts the notifications a stateful policy gets; planning must leave them balanced.
class CountingPolicy : public LeastFreePolicy {
 public:
  bool HasFastScore() const override { return true; }
  void OnAssigned(const Allocation&, const PodRequest&) override { ++assigned; }
  void OnReleased(const Allocation&, const PodRequest&) override { ++released; }
  int assigned = 0, released = 0;
};

TEST(GangPlanner, PolicyHearsOfTentativeAssignmentsInPairs) {
  Cluster cluster = MakeCluster(1, 1, 2, 4);
  CountingPolicy policy;
  Rng rng(1);
  const GangPlan plan = PlanGang(cluster, UniformGang("g", 6, 8), policy, rng);
  ASSERT_TRUE(plan.placed);
  EXPECT_EQ(policy.assigned, 6);
  EXPECT_EQ(policy.released, 6);
  const GangPlan refused = PlanGang(cluster, UniformGang("h", 9, 8), policy, rng);
  EXPECT_FALSE(refused.placed);
  EXPECT_EQ(policy.assigned, policy.released);
}

TEST(LargestPlaceableGangs, PerLevelMaximumOfFreeWholeGpus) {
  Cluster cluster = MakeCluster(1, 2, 2, 2);  // 8 nodes, 64 GPUs
  Occupy(cluster, "z0-r0-k0-n0", 8);
  Occupy(cluster, "z0-r0-k0-n1", 3);
  Occupy(cluster, "z0-r1-k0-n0", 1);
  cluster.SetUnschedulable(cluster.Find("z0-r1-k1-n1"), true);
  const std::vector<LargestGang> largest = LargestPlaceableGangs(cluster);
  ASSERT_EQ(largest.size(), 4u);
  EXPECT_EQ(largest[0].level_key, "pool");
  EXPECT_EQ(largest[0].free_gpus, 64 - 8 - 3 - 1 - 8);
  EXPECT_EQ(largest[0].free_nodes, 4);
  EXPECT_EQ(largest[1].level_key, "zone");
  EXPECT_EQ(largest[1].free_gpus, 44);
  EXPECT_EQ(largest[2].level_key, "row");
  EXPECT_EQ(largest[2].free_gpus, 23);  // r1: 7 + 8 + 8 (n1 of k1 cordoned); r0: 0 + 5 + 16 = 21
  EXPECT_EQ(cluster.topology().ValueOf(largest[2].domain), "z0-r1");
  EXPECT_EQ(largest[2].free_nodes, 2);
  EXPECT_EQ(largest[3].level_key, "rack");
  EXPECT_EQ(largest[3].free_gpus, 16);
  EXPECT_EQ(largest[3].free_nodes, 2);
}

TEST(LargestPlaceableGangs, CountsOnlyTheNodesAGangMayUse) {
  Cluster cluster = MakeCluster(1, 2, 2, 2);  // 8 nodes, 64 GPUs
  Occupy(cluster, "z0-r0-k0-n1", 3);
  cluster.SetUnschedulable(cluster.Find("z0-r1-k1-n1"), true);
  // The gang may use rack z0-r0-k0 and z0-r1-k1 only (say, by GPU model); the cordoned node never counts.
  std::vector<char> usable(8, 0);
  for (const char* n : {"z0-r0-k0-n0", "z0-r0-k0-n1", "z0-r1-k1-n0", "z0-r1-k1-n1"}) usable[cluster.Find(n)] = 1;
  const std::vector<LargestGang> largest = LargestPlaceableGangs(cluster, usable);
  ASSERT_EQ(largest.size(), 4u);
  EXPECT_EQ(largest[0].free_gpus, 8 + 5 + 8);
  EXPECT_EQ(largest[0].free_nodes, 2);
  EXPECT_EQ(largest[2].free_gpus, 13);  // Row z0-r0 (the usable rack only); row z0-r1 has 8.
  EXPECT_EQ(cluster.topology().ValueOf(largest[2].domain), "z0-r0");
  EXPECT_EQ(largest[3].free_gpus, 13);
  EXPECT_EQ(largest[3].free_nodes, 1);
  EXPECT_EQ(LargestPlaceableGangs(cluster, std::vector<char>(8, 0))[0].free_gpus, 0);
}

}  // namespace
}  // namespace gangplank::engine
