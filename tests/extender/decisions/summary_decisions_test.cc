// Filter and prioritize decide from the engine's node summaries (engine::FitCheck); on 10,000 random
// cluster states their verdicts, reasons and scores must be exactly what the full engine checks
// (Cluster::Fits on specs and per-GPU states) give: every node that fits passes and is scored by the
// policy, every other node is rejected with ExplainNoFit's reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "cache/objects/convert.h"
#include "cache/state/cluster_state.h"
#include "engine/policies/registry.h"
#include "extender/decisions/filter.h"
#include "extender/decisions/prioritize.h"
#include "extender/decisions/reasons.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::extender {
namespace {

class RandomState {
 public:
  explicit RandomState(std::uint32_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Int(1, 100) <= percent; }
  std::string Pick(const std::vector<std::string>& items) { return items[static_cast<size_t>(Int(0, static_cast<int>(items.size()) - 1))]; }

  cache::NodeInfo Node(int i) {
    cache::NodeInfo n = cache::testing::GpuNode("n" + std::to_string(i), Int(0, 8), Pick({"A100", "H100", "T4"}));
    n.allocatable[0].second = std::to_string(Int(1, 4) * 8);  // cpu
    if (Chance(40)) n.labels["zone"] = Pick({"a", "b"});
    if (Chance(25)) n.taints.push_back({"dedicated", "ml", Pick({"NoSchedule", "PreferNoSchedule", "NoExecute"})});
    n.unschedulable = Chance(10);
    return n;
  }

  cache::testing::PodOptions Held(const std::string& node) {
    cache::testing::PodOptions o;
    o.node = node;
    o.cpu = std::to_string(Int(1, 6));
    o.gpus = Int(0, 3);
    if (Chance(40)) o.gpu_milli = Int(1, 9) * 100;
    return o;
  }

  cache::PodInfo Pending() {
    cache::testing::PodOptions o;
    o.cpu = std::to_string(Int(1, 16));
    o.gpus = Int(0, 4);
    if (Chance(30)) o.gpu_milli = Int(1, 10) * 100;
    if (Chance(40)) o.models = Chance(50) ? Pick({"A100", "H100", "T4", "V100"}) : "A100|H100";
    cache::PodInfo p = cache::testing::GpuPod("pending", o);
    if (Chance(20)) p.node_selector["zone"] = Pick({"a", "b"});
    if (Chance(30)) p.tolerations.push_back({"dedicated", "Exists", "", ""});
    return p;
  }

 private:
  std::mt19937 rng_;
};

// The full engine's verdicts, as filter and prioritize gave them before node summaries.
void ExpectFullVerdicts(const cache::StateView& view, const engine::PodRequest& request,
                        const std::vector<std::string_view>& names, const FilterVerdicts& filter,
                        const std::vector<HostPriority>& scores, engine::ScoringPolicy& reference, std::uint32_t seed) {
  const engine::Cluster& cluster = view.cluster();
  std::vector<size_t> passed;
  std::vector<double> raw(names.size(), 0);
  std::vector<bool> fits(names.size(), false);
  double lo = 0, hi = 0;
  bool any = false;
  for (size_t i = 0; i < names.size(); ++i) {
    const engine::NodeId id = view.FindNode(names[i]);
    if (id == engine::kNoNode) continue;
    if (!cluster.Fits(id, request)) {
      const std::string* reason = (filter.failed.Find(names[i]) ? filter.failed : filter.unresolvable).Find(names[i]);
      ASSERT_NE(reason, nullptr) << "seed " << seed << " node " << names[i];
      EXPECT_EQ(*reason, ExplainNoFit(view, id, request).reason) << "seed " << seed;
      continue;
    }
    passed.push_back(i);
    fits[i] = true;
    raw[i] = reference.FastScore(cluster, id, request);
    lo = any ? std::min(lo, raw[i]) : raw[i];
    hi = any ? std::max(hi, raw[i]) : raw[i];
    any = true;
  }
  EXPECT_EQ(filter.passed, passed) << "seed " << seed;
  ASSERT_EQ(scores.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const double unit = hi > lo ? (raw[i] - lo) / (hi - lo) : 1.0;
    const std::int64_t expected = fits[i] ? std::lround(unit * static_cast<double>(kMaxExtenderPriority)) : 0;
    EXPECT_EQ(scores[i].score, expected) << "seed " << seed << " node " << names[i];
  }
}

TEST(SummaryDecisions, EqualTheFullEngineChecksOnRandomClusterStates) {
  size_t passed = 0, judged = 0;
  for (std::uint32_t seed = 0; seed < 10000; ++seed) {
    RandomState random(seed);
    cache::ClusterState state;
    const int nodes = random.Int(1, 6);
    std::vector<std::string> owned;
    for (int i = 0; i < nodes; ++i) {
      state.UpsertNode(random.Node(i));
      owned.push_back("n" + std::to_string(i));
      for (int k = random.Int(0, 4); k > 0; --k) {
        state.UpsertPod(cache::testing::GpuPod("h" + std::to_string(i) + "-" + std::to_string(k), random.Held(owned.back())));
      }
    }
    owned.push_back("ghost");
    const std::vector<std::string_view> names(owned.begin(), owned.end());
    const cache::PodInfo pod = random.Pending();
    const engine::PodRequest request = cache::ToPodRequest(pod);
    state.Read([&](const cache::StateView& view) {
      const auto workload = view.HeldRequests(1000);
      auto policy = engine::policies::MakePolicy("fragpack", workload);
      auto reference = engine::policies::MakePolicy("fragpack", workload);
      const FilterVerdicts filter = FilterNodes(view, pod, request, names);
      const std::vector<HostPriority> scores = PrioritizeNodes(view, pod, request, names, *policy);
      ExpectFullVerdicts(view, request, names, filter, scores, *reference, seed);
      passed += filter.passed.size();
      judged += names.size() - 1;
    });
    if (HasFailure()) return;
  }
  EXPECT_GT(passed, judged / 10) << "both verdicts are common, so the comparison means something";
  EXPECT_LT(passed, judged * 9 / 10);
}

}  // namespace
}  // namespace gangplank::extender
