// FitCheck decides from node summaries what Cluster decides from specs and states: on 10,000 random
// clusters (models, taints, labels, cordons, whole and shared GPUs held and released) every node's
// summary equals one made afresh, each shape's free GPU milli equals its nodes' sum, and FitCheck's
// Eligible, HasCapacity and Fits equal the Cluster's for random requests on every node.
#include "engine/fit_check.h"
#include "engine/short_string_hash.h"

#include <gtest/gtest.h>

#include <random>

namespace gangplank::engine {
namespace {

class RandomCluster {
 public:
  explicit RandomCluster(std::uint32_t seed) : rng_(seed) {}

  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[std::uniform_int_distribution<size_t>(0, items.size() - 1)(rng_)];
  }
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Int(1, 100) <= percent; }

  NodeSpec Node(int i) {
    NodeSpec s;
    s.name = "node-" + std::to_string(i);
    s.gpu_count = Int(0, 8);
    s.gpu_model = Pick<std::string>({"", "A100", "H100", "T4"});
    s.capacity = {Int(1, 4) * 16000, Int(1, 4) * 65536};
    if (Chance(50)) s.labels["zone"] = Pick<std::string>({"a", "b"});
    if (Chance(30)) s.taints.push_back({"dedicated", Pick<std::string>({"", "ml"}), Pick<std::string>(kEffects)});
    s.unschedulable = Chance(10);
    return s;
  }

  PodRequest Request() {
    PodRequest r;
    r.host = {Int(0, 8) * 4000, Int(0, 8) * 16384};
    r.gpu_count = Chance(20) ? 0 : Int(1, 4);
    r.gpu_milli = kMilliPerGpu;
    if (r.gpu_count == 1 && Chance(50)) r.gpu_milli = Int(1, 10) * 100;
    if (Chance(40)) r.gpu_models = {Pick<std::string>({"A100", "H100", "T4", "V100", ""})};
    if (Chance(20)) r.gpu_models.push_back(Pick<std::string>({"A100", "H100"}));
    if (Chance(25)) r.node_selector["zone"] = Pick<std::string>({"a", "b"});
    if (Chance(30)) r.tolerations.push_back({"dedicated", Pick<std::string>({"Equal", "Exists"}), "ml", Pick<std::string>({"", "NoSchedule"})});
    return r;
  }

  // Holds, releases and cordons at random, as informers and plans would.
  void Churn(Cluster& c, int steps) {
    std::vector<Allocation> held;
    for (int i = 0; i < steps; ++i) {
      const NodeId n = Int(0, c.size() - 1);
      if (Chance(10)) {
        c.SetUnschedulable(n, !c.spec(n).unschedulable);
      } else if (!held.empty() && Chance(30)) {
        const size_t k = std::uniform_int_distribution<size_t>(0, held.size() - 1)(rng_);
        c.Release(held[k]);
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        PodRequest r = Request();
        r.host = {r.host.cpu_milli / 4, r.host.memory_mib / 4};
        Allocation a = MakeAllocation(n, r, DefaultGpuChoice(c.state(n), r));
        if (r.WantsGpu() && static_cast<int>(a.gpus.size()) != r.gpu_count) continue;
        if (!c.CheckAssign(a).empty()) continue;
        c.Assign(a);
        held.push_back(std::move(a));
      }
    }
  }

 private:
  inline static const std::vector<std::string> kEffects = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
  std::mt19937 rng_;
};

void ExpectSummariesExact(const Cluster& c) {
  std::vector<std::int64_t> shape_free(static_cast<size_t>(c.shape_count()), 0);
  for (NodeId n = 0; n < c.size(); ++n) {
    const NodeSummary& s = c.summary(n);
    const NodeSummary fresh = Summarize(c.spec(n), c.state(n), s);
    EXPECT_EQ(s.free_cpu_milli, c.state(n).free.cpu_milli);
    EXPECT_EQ(s.free_memory_mib, c.state(n).free.memory_mib);
    EXPECT_EQ(s.free_gpu_milli, fresh.free_gpu_milli);
    EXPECT_EQ(s.fully_free_gpus, c.state(n).FullyFreeGpus());
    EXPECT_EQ(s.largest_free_share, fresh.largest_free_share);
    EXPECT_EQ(s.unschedulable, c.spec(n).unschedulable);
    EXPECT_EQ(s.gpu_count, c.spec(n).gpu_count);
    EXPECT_EQ(s.blocking_taints, fresh.blocking_taints);
    EXPECT_EQ(s.version, c.version(n));
    EXPECT_EQ(s.name_hash, ShortStringHash(c.spec(n).name));
    EXPECT_EQ(s.model_id, c.ModelId(c.spec(n).gpu_model));
    shape_free[static_cast<size_t>(s.shape_id)] += c.state(n).TotalFreeGpuMilli();
  }
  for (int shape = 0; shape < c.shape_count(); ++shape) {
    EXPECT_EQ(c.shape_free_gpu_milli(shape), shape_free[static_cast<size_t>(shape)]);
  }
}

TEST(FitCheck, DecidesLikeTheClusterOnRandomClusters) {
  int fits = 0, checks = 0;
  for (std::uint32_t seed = 0; seed < 10000; ++seed) {
    RandomCluster random(seed);
    Cluster c;
    const int nodes = random.Int(1, 8);
    for (int i = 0; i < nodes; ++i) c.AddNode(random.Node(i));
    random.Churn(c, random.Int(0, 40));
    ExpectSummariesExact(c);
    for (int k = 0; k < 4; ++k) {
      const PodRequest r = random.Request();
      const FitCheck check(c, r);
      for (NodeId n = 0; n < c.size(); ++n) {
        ASSERT_EQ(check.Eligible(n), c.Eligible(n, r)) << "seed " << seed << " node " << n;
        ASSERT_EQ(check.HasCapacity(n), c.HasCapacity(n, r)) << "seed " << seed << " node " << n;
        ASSERT_EQ(check.Fits(n), c.Fits(n, r)) << "seed " << seed << " node " << n;
        fits += c.Fits(n, r) ? 1 : 0;
        ++checks;
      }
    }
    if (HasFailure()) return;
  }
  // Both answers are common, so the comparison means something.
  EXPECT_GT(fits, checks / 10);
  EXPECT_LT(fits, checks * 9 / 10);
}

TEST(FitCheck, ModelsNoNodeHasAllowNothing) {
  Cluster c;
  NodeSpec s;
  s.name = "n";
  s.gpu_count = 2;
  s.gpu_model = "A100";
  s.capacity = {8000, 8192};
  const NodeId n = c.AddNode(s);
  PodRequest r;
  r.gpu_count = 1;
  r.gpu_milli = kMilliPerGpu;
  r.gpu_models = {"V100"};
  EXPECT_FALSE(FitCheck(c, r).Fits(n));
  r.gpu_models.push_back("A100");
  EXPECT_TRUE(FitCheck(c, r).Fits(n));
  EXPECT_EQ(c.ModelId("V100"), -1);
}

TEST(Cluster, ShapesKeepTheirNodesFreeGpuMilli) {
  Cluster c;
  NodeSpec s;
  s.gpu_count = 4;
  s.gpu_model = "A100";
  s.capacity = {8000, 8192};
  s.name = "a";
  const NodeId a = c.AddNode(s);
  s.name = "b";
  const NodeId b = c.AddNode(s);
  s.name = "c";
  s.capacity.cpu_milli = 16000;  // Another shape.
  const NodeId other = c.AddNode(s);
  EXPECT_EQ(c.summary(a).shape_id, c.summary(b).shape_id);
  EXPECT_NE(c.summary(a).shape_id, c.summary(other).shape_id);
  EXPECT_EQ(c.shape_free_gpu_milli(c.summary(a).shape_id), 8000);
  const Allocation held{b, {1000, 1024}, {0, 2}, 600};
  c.Assign(held);
  EXPECT_EQ(c.shape_free_gpu_milli(c.summary(a).shape_id), 6800);
  EXPECT_EQ(c.summary(b).largest_free_share, kMilliPerGpu);
  EXPECT_EQ(c.summary(b).fully_free_gpus, 2);
  c.Release(held);
  EXPECT_EQ(c.shape_free_gpu_milli(c.summary(a).shape_id), 8000);
  EXPECT_EQ(c.shape_free_gpu_milli(c.summary(other).shape_id), 4000);
}

}  // namespace
}  // namespace gangplank::engine
