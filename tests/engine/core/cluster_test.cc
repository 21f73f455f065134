#include "engine/cluster.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gangplank::engine {
namespace {

NodeSpec GpuNode(const std::string& name, int gpus, const std::string& model = "V100") {
  NodeSpec s;
  s.name = name;
  s.capacity = {64000, 262144};
  s.gpu_count = gpus;
  s.gpu_model = model;
  return s;
}

PodRequest Gpus(int count, MilliGpu milli = kMilliPerGpu) {
  PodRequest r;
  r.host = {4000, 8192};
  r.gpu_count = count;
  r.gpu_milli = milli;
  return r;
}

TEST(Cluster, AssignAndReleaseBalanceExactly) {
  Cluster c;
  NodeId n = c.AddNode(GpuNode("n0", 4));
  Allocation a = MakeAllocation(n, Gpus(2), DefaultGpuChoice(c.state(n), Gpus(2)));
  c.Assign(a);
  EXPECT_EQ(c.state(n).FullyFreeGpus(), 2);
  EXPECT_EQ(c.allocated_gpu_milli(), 2000);
  EXPECT_EQ(c.state(n).free.cpu_milli, 60000);
  c.Release(a);
  EXPECT_EQ(c.state(n).FullyFreeGpus(), 4);
  EXPECT_EQ(c.allocated_gpu_milli(), 0);
  EXPECT_EQ(c.state(n).free, c.spec(n).capacity);
}

TEST(Cluster, ChangeCountMovesWithEveryNodeChange) {
  Cluster c;
  const std::uint64_t empty = c.change_count();
  const NodeId n = c.AddNode(GpuNode("a", 2));
  EXPECT_GT(c.change_count(), empty);
  Allocation a = MakeAllocation(n, Gpus(1), {0});
  std::uint64_t before = c.change_count();
  c.Assign(a);
  EXPECT_GT(c.change_count(), before);
  before = c.change_count();
  c.Release(a);
  EXPECT_GT(c.change_count(), before);
  before = c.change_count();
  c.SetUnschedulable(n, true);
  EXPECT_GT(c.change_count(), before);
  before = c.change_count();
  EXPECT_FALSE(c.Fits(n, Gpus(1)));  // Reading changes nothing.
  EXPECT_EQ(c.change_count(), before);
}

TEST(Cluster, RefusesGpuOvercommit) {
  Cluster c;
  NodeId n = c.AddNode(GpuNode("n0", 1));
  c.Assign(MakeAllocation(n, Gpus(1, 600), {0}));
  EXPECT_FALSE(c.HasCapacity(n, Gpus(1, 500)));
  EXPECT_TRUE(c.HasCapacity(n, Gpus(1, 400)));
  EXPECT_THROW(c.Assign(MakeAllocation(n, Gpus(1, 500), {0})), std::logic_error);
  EXPECT_EQ(c.state(n).gpu_free[0], 400);
}

TEST(Cluster, RefusesRepeatedGpuAndDoubleRelease) {
  Cluster c;
  NodeId n = c.AddNode(GpuNode("n0", 2));
  EXPECT_EQ(c.CheckAssign(MakeAllocation(n, Gpus(2), {0, 0})), "GPU listed twice");
  Allocation a = MakeAllocation(n, Gpus(1), {1});
  c.Assign(a);
  c.Release(a);
  EXPECT_THROW(c.Release(a), std::logic_error);
}

TEST(Cluster, EligibilityHonoursModelSelectorAndTaints) {
  Cluster c;
  NodeSpec s = GpuNode("n0", 8, "A100");
  s.labels["pool"] = "train";
  s.taints.push_back({"nvidia.com/gpu", "present", "NoSchedule"});
  NodeId n = c.AddNode(s);
  PodRequest r = Gpus(1);
  EXPECT_FALSE(c.Eligible(n, r)) << "untolerated taint";
  r.tolerations.push_back({"nvidia.com/gpu", "Exists", "", ""});
  EXPECT_TRUE(c.Eligible(n, r));
  r.gpu_models = {"V100"};
  EXPECT_FALSE(c.Eligible(n, r));
  r.gpu_models = {"V100", "A100"};
  r.node_selector["pool"] = "infer";
  EXPECT_FALSE(c.Eligible(n, r));
  r.node_selector["pool"] = "train";
  EXPECT_TRUE(c.Eligible(n, r));
  c.SetUnschedulable(n, true);
  EXPECT_FALSE(c.Eligible(n, r));
}

TEST(Cluster, SharingPodTakesTheFullestGpuThatFits) {
  Cluster c;
  NodeId n = c.AddNode(GpuNode("n0", 3));
  c.Assign(MakeAllocation(n, Gpus(1, 300), {0}));
  c.Assign(MakeAllocation(n, Gpus(1, 600), {2}));
  EXPECT_EQ(DefaultGpuChoice(c.state(n), Gpus(1, 400)), std::vector<int>{2});
  EXPECT_EQ(DefaultGpuChoice(c.state(n), Gpus(1, 500)), std::vector<int>{0});
  EXPECT_TRUE(DefaultGpuChoice(c.state(n), Gpus(3)).empty());
}

TEST(Cluster, LabelsChangeInPlaceOnlyWithinTheNodesDomains) {
  Cluster c({"zone", "rack"});
  NodeSpec s = GpuNode("a", 8);
  s.labels = {{"zone", "z1"}};
  const NodeId n = c.AddNode(s);
  PodRequest os = Gpus(1);
  os.node_selector["kubernetes.io/os"] = "linux";
  EXPECT_FALSE(c.Eligible(n, os));
  const std::uint64_t version = c.version(n);
  c.SetLabels(n, {{"zone", "z1"}, {"kubernetes.io/os", "linux"}});
  EXPECT_TRUE(c.Eligible(n, os)) << "a selector on the new label sees it";
  EXPECT_GT(c.version(n), version) << "policies' per-node memos must see the change";
  EXPECT_EQ(c.topology().DomainsAt(0).size(), 1u);
  EXPECT_THROW(c.SetLabels(n, {{"zone", "z2"}}), std::logic_error) << "another zone";
  EXPECT_THROW(c.SetLabels(n, {{"zone", "z1"}, {"rack", "r1"}}), std::logic_error) << "a rack it was in none of";
  EXPECT_THROW(c.SetLabels(n, {}), std::logic_error) << "out of its zone";
  EXPECT_EQ(c.spec(n).labels.at("kubernetes.io/os"), "linux") << "a refused change changes nothing";
}

TEST(Topology, DomainsAreScopedByTheirParents) {
  Cluster c({"zone", "rack"});
  NodeSpec a = GpuNode("a", 8), b = GpuNode("b", 8), d = GpuNode("d", 8);
  a.labels = {{"zone", "z1"}, {"rack", "r1"}};
  b.labels = {{"zone", "z2"}, {"rack", "r1"}};
  d.labels = {{"zone", "z1"}};
  c.AddNode(a);
  c.AddNode(b);
  c.AddNode(d);
  const Topology& t = c.topology();
  EXPECT_EQ(t.DomainOf(0, 0), t.DomainOf(2, 0));
  EXPECT_NE(t.DomainOf(0, 1), t.DomainOf(1, 1)) << "rack r1 in two zones is two racks";
  EXPECT_EQ(t.DomainOf(2, 1), kNoDomain);
  EXPECT_EQ(t.ParentOf(t.DomainOf(0, 1)), t.DomainOf(0, 0));
  EXPECT_EQ(t.DomainsAt(1).size(), 2u);
}

}  // namespace
}  // namespace gangplank::engine
