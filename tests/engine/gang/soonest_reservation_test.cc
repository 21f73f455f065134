// Where a waiting gang reserves nodes: the domain expected to hold it soonest, not the one with the
// most free GPUs now.
#include "engine/gang/soonest_reservation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/engine/gang/test_cluster.h"

namespace gangplank::engine::testing {
namespace {

using ::testing::UnorderedElementsAre;

constexpr double kNow = 1000;

// Two racks of two 8-GPU nodes; every node runs something (one GPU), free when free_at says.
struct Busy {
  Cluster cluster = MakeCluster(1, 1, 2, 2);
  std::vector<double> free_at = std::vector<double>(4, kNow);
  Busy() {
    for (NodeId n = 0; n < cluster.size(); ++n) Occupy(cluster, cluster.spec(n).name, 1);
  }
  NodeId Node(const std::string& name) const { return cluster.Find(name); }
  void FreeAt(const std::string& name, double t) { free_at[Node(name)] = t; }
  // Free times of k0-n0, k0-n1, k1-n0, k1-n1.
  void FreeAt(double k0n0, double k0n1, double k1n0, double k1n1) {
    FreeAt("z0-r0-k0-n0", k0n0);
    FreeAt("z0-r0-k0-n1", k0n1);
    FreeAt("z0-r0-k1-n0", k1n0);
    FreeAt("z0-r0-k1-n1", k1n1);
  }
};

TEST(SoonestReservation, TakesTheRackWhoseNodesAreFreeFirst) {
  Busy b;
  b.FreeAt(9000, 9000, 2000, 3000);
  const SoonestReservation r = ChooseSoonestReservation(b.cluster, UniformGang("g", 2, 8), b.free_at, kNow);
  EXPECT_THAT(r.nodes, UnorderedElementsAre(b.Node("z0-r0-k1-n0"), b.Node("z0-r0-k1-n1")));
  EXPECT_EQ(r.start, 3000);
  EXPECT_EQ(DomainName(b.cluster, r.nodes), "rack=z0-r0-k1");
}

TEST(SoonestReservation, GoesWiderOnlyWhenThatIsStrictlyEarlier) {
  Busy b;
  b.FreeAt(2000, 9000, 2500, 9500);
  SoonestReservation r = ChooseSoonestReservation(b.cluster, UniformGang("g", 2, 8), b.free_at, kNow);
  EXPECT_THAT(r.nodes, UnorderedElementsAre(b.Node("z0-r0-k0-n0"), b.Node("z0-r0-k1-n0")));
  EXPECT_EQ(r.start, 2500);
  EXPECT_EQ(r.level, 1);  // The row: both racks.
  EXPECT_EQ(DomainName(b.cluster, r.nodes), "row=z0-r0");
  // Equally soon in one rack: the rack.
  b.FreeAt("z0-r0-k0-n1", 2500);
  r = ChooseSoonestReservation(b.cluster, UniformGang("g", 2, 8), b.free_at, kNow);
  EXPECT_EQ(r.level, 2);
  EXPECT_THAT(r.nodes, UnorderedElementsAre(b.Node("z0-r0-k0-n0"), b.Node("z0-r0-k0-n1")));
}

TEST(SoonestReservation, MembersThatFitNowAreReadyNowAndCordonedNodesAreSkipped) {
  Busy b;
  for (NodeId n = 0; n < b.cluster.size(); ++n) b.free_at[n] = 5000;
  // A 4-GPU member fits beside the one busy GPU now; only the 8-GPU member waits.
  GangRequest g = UniformGang("g", 1, 8);
  g.members.push_back(WholeGpus(4));
  EXPECT_EQ(ChooseSoonestReservation(b.cluster, g, b.free_at, kNow).start, 5000);
  EXPECT_EQ(ExpectedStartOn(b.cluster, UniformGang("h", 1, 4), {b.Node("z0-r0-k0-n0")}, b.free_at, kNow), kNow);
  // Cordoned (another reservation): never chosen.
  b.FreeAt("z0-r0-k1-n1", 1500);
  b.cluster.SetUnschedulable(b.Node("z0-r0-k1-n1"), true);
  const SoonestReservation r = ChooseSoonestReservation(b.cluster, UniformGang("g", 1, 8), b.free_at, kNow);
  EXPECT_THAT(r.nodes, ::testing::Not(::testing::Contains(b.Node("z0-r0-k1-n1"))));
  EXPECT_EQ(r.start, 5000);
}

TEST(SoonestReservation, NothingWhenNoDomainCanEverHoldTheGang) {
  Busy b;
  EXPECT_TRUE(ChooseSoonestReservation(b.cluster, UniformGang("g", 5, 8), b.free_at, kNow).nodes.empty());
  EXPECT_TRUE(ChooseSoonestReservation(b.cluster, UniformGang("g", 1, 16), b.free_at, kNow).nodes.empty());
  EXPECT_EQ(ChooseSoonestReservation(b.cluster, UniformGang("g", 4, 8), b.free_at, kNow).nodes.size(), 4u);
  EXPECT_EQ(DomainName(b.cluster, {}), "the pool");
}

}  // namespace
}  // namespace gangplank::engine::testing
