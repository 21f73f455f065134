// Property test: for random clusters and gangs, a plan either places at least the minimum number of
// members with no overcommit (ApplyGangPlan succeeds and the books balance) or changes nothing; and
// planning itself never changes the cluster.
#include <gtest/gtest.h>

#include <set>

#include "engine/gang/gang_planner.h"
#include "tests/engine/gang/test_cluster.h"

namespace gangplank::engine {
namespace {

struct Snapshot {
  std::vector<NodeState> states;
  std::int64_t allocated = 0;
};

Snapshot Take(const Cluster& cluster) {
  Snapshot s;
  for (NodeId n = 0; n < cluster.size(); ++n) s.states.push_back(cluster.state(n));
  s.allocated = cluster.allocated_gpu_milli();
  return s;
}

bool Same(const Snapshot& a, const Snapshot& b) {
  if (a.allocated != b.allocated || a.states.size() != b.states.size()) return false;
  for (size_t i = 0; i < a.states.size(); ++i) {
    if (!(a.states[i].free == b.states[i].free) || a.states[i].gpu_free != b.states[i].gpu_free) return false;
  }
  return true;
}

Cluster RandomCluster(Rng& rng) {
  Cluster cluster({"zone", "row", "rack"});
  const int nodes = 1 + static_cast<int>(rng.Below(40));
  for (int i = 0; i < nodes; ++i) {
    NodeSpec spec;
    spec.name = "n" + std::to_string(i);
    spec.capacity = HostResources{static_cast<std::int64_t>(8000 + rng.Below(56000)), 256 * 1024};
    spec.gpu_count = static_cast<int>(rng.Below(9));
    spec.gpu_model = rng.Below(5) == 0 ? "V100" : "A100";
    const std::string zone = "z" + std::to_string(rng.Below(2));
    const std::string row = zone + "r" + std::to_string(rng.Below(2));
    const std::string rack = row + "k" + std::to_string(rng.Below(3));
    spec.labels = {{"zone", zone}, {"row", row}};
    if (rng.Below(10) != 0) spec.labels["rack"] = rack;  // Some nodes lack the rack label.
    spec.unschedulable = rng.Below(15) == 0;
    cluster.AddNode(spec);
  }
  // Random existing load, including GPU-sharing pods.
  for (int i = 0; i < nodes * 3; ++i) {
    const NodeId n = static_cast<NodeId>(rng.Below(static_cast<std::uint64_t>(nodes)));
    PodRequest r = testing::WholeGpus(1 + static_cast<int>(rng.Below(4)));
    r.host = HostResources{static_cast<std::int64_t>(rng.Below(8000)), 1024};
    if (rng.Below(3) == 0) {
      r.gpu_count = 1;
      r.gpu_milli = static_cast<MilliGpu>(100 + rng.Below(800));
    }
    if (cluster.HasCapacity(n, r)) cluster.Assign(MakeAllocation(n, r, DefaultGpuChoice(cluster.state(n), r)));
  }
  return cluster;
}

GangRequest RandomGang(Rng& rng, int i) {
  GangRequest gang;
  gang.name = "g" + std::to_string(i);
  const int members = 1 + static_cast<int>(rng.Below(8));
  for (int m = 0; m < members; ++m) {
    PodRequest r = testing::WholeGpus(1 + static_cast<int>(rng.Below(8)));
    r.host = HostResources{static_cast<std::int64_t>(rng.Below(30000)), 1024};
    if (rng.Below(5) == 0) {
      r.gpu_count = 1;
      r.gpu_milli = static_cast<MilliGpu>(100 + rng.Below(900));
    }
    if (rng.Below(10) == 0) r.gpu_models = {"V100"};
    gang.members.push_back(r);
  }
  if (rng.Below(4) == 0) gang.min_members = 1 + static_cast<int>(rng.Below(static_cast<std::uint64_t>(members)));
  const char* levels[] = {"", "zone", "row", "rack"};
  gang.required_level = levels[rng.Below(4)];
  if (rng.Below(3) == 0) gang.preferred_level = levels[rng.Below(4)];
  return gang;
}

TEST(GangAtomicity, RandomClustersAndGangsPlaceAllOrNothing) {
  Rng rng(20261121);
  testing::LeastFreePolicy policy;
  int placed = 0, refused = 0;
  for (int round = 0; round < 400; ++round) {
    Cluster cluster = RandomCluster(rng);
    for (int g = 0; g < 5; ++g) {
      const GangRequest gang = RandomGang(rng, g);
      const Snapshot before = Take(cluster);
      const GangPlan plan = PlanGang(cluster, gang, policy, rng);
      ASSERT_TRUE(Same(before, Take(cluster))) << "planning changed the cluster, round " << round;
      if (!plan.placed) {
        EXPECT_TRUE(plan.allocations.empty());
        EXPECT_FALSE(plan.reason.empty());
        ++refused;
        continue;
      }
      ++placed;
      ASSERT_GE(static_cast<int>(plan.allocations.size()), gang.MinMembers());
      std::set<int> members;
      std::int64_t milli = 0;
      for (const MemberAllocation& m : plan.allocations) {
        EXPECT_TRUE(members.insert(m.member).second) << "member placed twice";
        const PodRequest& r = gang.members[m.member];
        EXPECT_TRUE(cluster.Eligible(m.allocation.node, r));
        EXPECT_EQ(static_cast<int>(m.allocation.gpus.size()), r.gpu_count);
        milli += r.TotalGpuMilli();
      }
      if (!gang.required_level.empty()) {
        const int level = cluster.topology().LevelIndex(gang.required_level);
        std::set<DomainId> domains;
        for (const MemberAllocation& m : plan.allocations) {
          domains.insert(cluster.topology().DomainOf(m.allocation.node, level));
        }
        EXPECT_EQ(domains.size(), 1u);
        EXPECT_NE(*domains.begin(), kNoDomain);
      }
      ASSERT_NO_THROW(ApplyGangPlan(cluster, plan)) << "plan overcommits, round " << round;
      EXPECT_EQ(cluster.allocated_gpu_milli(), before.allocated + milli);
    }
  }
  // The generator must exercise both outcomes, or the test proves nothing.
  EXPECT_GT(placed, 200);
  EXPECT_GT(refused, 200);
}

}  // namespace
}  // namespace gangplank::engine
