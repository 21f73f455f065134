// Randomized properties every policy must keep: no overcommit, books that balance, determinism per seed,
// and FastScore agreeing with Score.
#include <gtest/gtest.h>

#include <map>

#include "engine/place_pod.h"
#include "engine/policies/registry.h"
#include "test_cluster.h"

namespace gangplank::engine::policies {
namespace {

using testing::Node;
using testing::Pod;

Cluster RandomCluster(Rng& rng) {
  Cluster c;
  const std::vector<std::string> models{"T4", "V100"};
  const int nodes = 6 + static_cast<int>(rng.Below(10));
  for (int i = 0; i < nodes; ++i) {
    const int gpus = std::vector<int>{1, 2, 4, 8}[rng.Below(4)];
    c.AddNode(Node("n" + std::to_string(i), gpus, 16000 + 8000 * static_cast<std::int64_t>(rng.Below(8)),
                   65536 + 32768 * static_cast<std::int64_t>(rng.Below(4)), models[rng.Below(2)]));
  }
  return c;
}

PodRequest RandomPod(Rng& rng) {
  const std::vector<MilliGpu> shares{100, 250, 470, 500, 810};
  PodRequest p;
  switch (rng.Below(4)) {
    case 0: p = Pod(0, 0, 1000 + 1000 * static_cast<std::int64_t>(rng.Below(8))); break;
    case 1: p = Pod(1, shares[rng.Below(shares.size())], 2000); break;
    case 2: p = Pod(1, 1000, 4000); break;
    default: p = Pod(std::vector<int>{2, 4, 8}[rng.Below(3)], 1000, 8000); break;
  }
  if (p.WantsGpu() && rng.Below(5) == 0) p.gpu_models = {"T4"};
  return p;
}

std::vector<PodRequest> Workload() {
  Rng rng(99);
  std::vector<PodRequest> w;
  for (int i = 0; i < 200; ++i) w.push_back(RandomPod(rng));
  return w;
}

struct Live {
  Allocation allocation;
  PodRequest request;
};

// Runs a random place/release sequence; checks the books after every step; returns the placements.
std::vector<Allocation> Churn(const std::string& policy_name, std::uint64_t seed) {
  Rng setup(seed);
  Cluster c = RandomCluster(setup);
  auto policy = MakePolicy(policy_name, Workload(), seed);
  Rng rng(seed * 7 + 1);
  std::vector<Live> live;
  std::vector<Allocation> placements;
  for (int step = 0; step < 300; ++step) {
    if (!live.empty() && rng.Below(3) == 0) {
      const size_t k = rng.Below(live.size());
      c.Release(live[k].allocation);
      policy->OnReleased(live[k].allocation, live[k].request);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      const PodRequest pod = RandomPod(rng);
      if (auto a = PlacePod(c, pod, *policy, rng)) {
        EXPECT_TRUE(c.Fits(a->node, pod)) << policy_name;
        EXPECT_EQ(static_cast<int>(a->gpus.size()), pod.WantsGpu() ? pod.gpu_count : 0) << policy_name;
        c.Assign(*a);  // Throws on overcommit.
        policy->OnAssigned(*a, pod);
        live.push_back({*a, pod});
        placements.push_back(*a);
      }
    }
    // The cluster's totals equal the sum of live allocations, per node and overall.
    std::int64_t gpu = 0;
    std::map<NodeId, std::pair<std::int64_t, std::int64_t>> host;
    for (const Live& l : live) {
      gpu += static_cast<std::int64_t>(l.allocation.gpus.size()) * l.allocation.milli_per_gpu;
      host[l.allocation.node].first += l.allocation.host.cpu_milli;
      host[l.allocation.node].second += l.allocation.host.memory_mib;
    }
    EXPECT_EQ(c.allocated_gpu_milli(), gpu) << policy_name;
    for (NodeId n = 0; n < c.size(); ++n) {
      EXPECT_EQ(c.state(n).free.cpu_milli, c.spec(n).capacity.cpu_milli - host[n].first) << policy_name;
      EXPECT_EQ(c.state(n).free.memory_mib, c.spec(n).capacity.memory_mib - host[n].second) << policy_name;
      for (MilliGpu f : c.state(n).gpu_free) {
        EXPECT_GE(f, 0);
        EXPECT_LE(f, kMilliPerGpu);
      }
    }
  }
  EXPECT_GT(placements.size(), 100u) << policy_name << ": the churn should place most pods";
  return placements;
}

class EveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPolicy, NeverOvercommitsAndTheBooksBalance) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) Churn(GetParam(), seed);
}

TEST_P(EveryPolicy, SameSeedSamePlacements) { EXPECT_EQ(Churn(GetParam(), 11), Churn(GetParam(), 11)); }

TEST_P(EveryPolicy, FastScoreAgreesWithScore) {
  Rng setup(5);
  Cluster c = RandomCluster(setup);
  auto policy = MakePolicy(GetParam(), Workload(), 5);
  Rng rng(6);
  for (int step = 0; step < 60; ++step) {
    const PodRequest pod = RandomPod(rng);
    for (NodeId n = 0; n < c.size(); ++n) {
      if (!c.Fits(n, pod)) continue;
      const double fast = policy->FastScore(c, n, pod);
      const NodeScore full = policy->Score(c, n, pod);
      EXPECT_EQ(fast, full.score) << GetParam() << " node " << n;
      EXPECT_EQ(static_cast<int>(full.gpus.size()), pod.WantsGpu() ? pod.gpu_count : 0) << GetParam();
    }
    if (auto a = PlacePod(c, pod, *policy, rng)) {
      c.Assign(*a);
      policy->OnAssigned(*a, pod);
    }
  }
}

// The batch that ranks many nodes for one request (the extender's prioritize) scores as one call per
// node would, on a cluster that changes between requests (so memoised scores go stale).
TEST_P(EveryPolicy, FastScoresAgreesWithFastScore) {
  Rng setup(7);
  Cluster c = RandomCluster(setup);
  auto batch = MakePolicy(GetParam(), Workload(), 5);
  auto single = MakePolicy(GetParam(), Workload(), 5);
  Rng rng(8);
  for (int step = 0; step < 60; ++step) {
    const PodRequest pod = RandomPod(rng);
    std::vector<NodeId> fitting;
    for (NodeId n = 0; n < c.size(); ++n) {
      if (c.Fits(n, pod)) fitting.push_back(n);
    }
    std::vector<double> scores{-1, -2, -3};  // Replaced, whatever it held.
    batch->FastScores(c, fitting, pod, scores);
    ASSERT_EQ(scores.size(), fitting.size()) << GetParam();
    for (size_t i = 0; i < fitting.size(); ++i) {
      EXPECT_EQ(scores[i], single->FastScore(c, fitting[i], pod)) << GetParam() << " node " << fitting[i];
    }
    if (auto a = PlacePod(c, pod, *single, rng)) {
      c.Assign(*a);
      batch->OnAssigned(*a, pod);
      single->OnAssigned(*a, pod);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, EveryPolicy, ::testing::ValuesIn(PolicyNames()),
                         [](const auto& info) { return info.param; });

TEST(RandomPolicy, DifferentSeedsPlaceDifferently) { EXPECT_NE(Churn("random", 21), Churn("random", 22)); }

TEST(Registry, ListsAllSevenAndRejectsUnknownNames) {
  EXPECT_EQ(PolicyNames(), (std::vector<std::string>{"random", "dotprod", "gpuclustering", "gpupacking", "bestfit",
                                                     "fgd", "fragpack"}));
  for (const auto& name : PolicyNames()) EXPECT_EQ(MakePolicy(name, Workload())->Name(), name);
  EXPECT_EQ(MakePolicy("fgd-bf", Workload())->Name(), "fgd-bf");
  EXPECT_EQ(FindPolicy("fgd-bf").display_name, "FGD + BestFit ties");
  try {
    MakePolicy("tetris", Workload());
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown policy 'tetris'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("fgd"), std::string::npos);
  }
}

// A policy that hides the fast path of another, to compare PlacePod's two paths.
class SlowPath final : public ScoringPolicy {
 public:
  explicit SlowPath(std::unique_ptr<ScoringPolicy> inner) : inner_(std::move(inner)) {}
  std::string_view Name() const override { return inner_->Name(); }
  NodeScore Score(const Cluster& c, NodeId n, const PodRequest& r) override { return inner_->Score(c, n, r); }

 private:
  std::unique_ptr<ScoringPolicy> inner_;
};

TEST(PlacePod, FastPathChoosesLikeTheFullPath) {
  for (const std::string name : {"bestfit", "fgd", "fragpack", "dotprod", "gpupacking"}) {
    Rng setup(8);
    Cluster fast_cluster = RandomCluster(setup);
    Cluster slow_cluster = fast_cluster;
    auto fast = MakePolicy(name, Workload());
    SlowPath slow(MakePolicy(name, Workload()));
    Rng fast_rng(9), slow_rng(9), pods(10);
    for (int step = 0; step < 80; ++step) {
      const PodRequest pod = RandomPod(pods);
      auto a = PlacePod(fast_cluster, pod, *fast, fast_rng);
      auto b = PlacePod(slow_cluster, pod, slow, slow_rng);
      ASSERT_EQ(a.has_value(), b.has_value()) << name;
      if (!a) continue;
      EXPECT_EQ(*a, *b) << name << " step " << step;
      fast_cluster.Assign(*a);
      slow_cluster.Assign(*b);
    }
  }
}

}  // namespace
}  // namespace gangplank::engine::policies
