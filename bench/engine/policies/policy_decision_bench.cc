// One placement decision (PlacePod over all 1213 openb GPU nodes) per policy, on a cluster loaded to about
// 70% GPU allocation. Each decision is followed by applying and releasing the chosen allocation, so one node
// changes between decisions as in a replay and memoising policies cannot answer everything from cache.
// Baseline in the same run: a no-op policy (every node scores 0 through the fast path), i.e. the cost of
// filtering the nodes alone. The summary prints each policy's median decision time and its ratio to it,
// with PlacePod's random ties and with the openb replay's node-order tie rule (node_order_placement.h).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/cluster.h"
#include "engine/place_pod.h"
#include "engine/policies/registry.h"
#include "engine/random.h"
#include "simulator/frag/frag_replay.h"
#include "simulator/frag/node_order_placement.h"
#include "simulator/openb/openb_loader.h"

namespace {

using namespace gangplank;

class NoOpPolicy final : public engine::ScoringPolicy {
 public:
  std::string_view Name() const override { return "noop"; }
  engine::NodeScore Score(const engine::Cluster& c, engine::NodeId n, const engine::PodRequest& r) override {
    return engine::NodeScore{0, engine::DefaultGpuChoice(c.state(n), r)};
  }
  bool HasFastScore() const override { return true; }
  double FastScore(const engine::Cluster&, engine::NodeId, const engine::PodRequest&) override { return 0; }
};

struct Fixture {
  engine::Cluster cluster;
  std::vector<engine::PodRequest> workload;  // The trace, for typical-task policies.
  std::vector<engine::PodRequest> probes;    // Pods to decide about, in replay order.
};

// The openb cluster filled to ~70% GPU allocation by the BestFit policy (a neutral, reproducible state).
const Fixture& LoadedCluster() {
  static const Fixture fixture = [] {
    Fixture f;
    const std::string dir = std::string(GANGPLANK_DATA_DIR) + "/openb/";
    for (auto& n : simulator::openb::LoadNodes(dir + "openb_node_list_gpu_node.csv")) f.cluster.AddNode(n);
    for (auto& p : simulator::openb::LoadPods(dir + "openb_pod_list_default.csv")) f.workload.push_back(p.request);
    const auto order = simulator::frag::ArrivalOrder(f.workload, f.cluster.total_gpu_milli(), 1.3, 42);
    auto filler = engine::policies::MakePolicy("bestfit", f.workload);
    engine::Rng rng(7);
    size_t i = 0;
    for (; i < order.size() && f.cluster.allocated_gpu_milli() < f.cluster.total_gpu_milli() * 7 / 10; ++i) {
      if (auto a = engine::PlacePod(f.cluster, f.workload[order[i]], *filler, rng)) f.cluster.Assign(*a);
    }
    for (; i < order.size() && f.probes.size() < 2000; ++i) f.probes.push_back(f.workload[order[i]]);
    return f;
  }();
  return fixture;
}

std::unique_ptr<engine::ScoringPolicy> Make(const std::string& name, const Fixture& f) {
  if (name == "noop") return std::make_unique<NoOpPolicy>();
  return engine::policies::MakePolicy(name, f.workload, 1);
}

// One decision plus apply/release of its result; returns whether a node was found. With `ranks`, ties go
// by node order as in the openb replay; without, PlacePod draws at random.
bool Decide(engine::Cluster& cluster, const engine::PodRequest& pod, engine::ScoringPolicy& policy,
            engine::Rng& rng, const std::vector<std::uint32_t>* ranks = nullptr) {
  auto a = ranks ? simulator::frag::PlaceWithNodeOrderTies(cluster, pod, policy, *ranks)
                 : engine::PlacePod(cluster, pod, policy, rng);
  if (!a) return false;
  cluster.Assign(*a);
  policy.OnAssigned(*a, pod);
  cluster.Release(*a);
  policy.OnReleased(*a, pod);
  return true;
}

void BM_Decision(benchmark::State& state, const std::string& name) {
  const Fixture& f = LoadedCluster();
  engine::Cluster cluster = f.cluster;
  auto policy = Make(name, f);
  engine::Rng rng(3);
  size_t k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Decide(cluster, f.probes[k], *policy, rng));
    k = (k + 1) % f.probes.size();
  }
  state.counters["nodes"] = cluster.size();
  state.counters["alloc_pct"] = 100.0 * static_cast<double>(cluster.allocated_gpu_milli()) /
                                static_cast<double>(cluster.total_gpu_milli());
}

// Median of individually timed decisions, after one warm-up pass over the probes.
double MedianMicros(const std::string& name, bool node_order) {
  const Fixture& f = LoadedCluster();
  engine::Cluster cluster = f.cluster;
  auto policy = Make(name, f);
  engine::Rng rng(3);
  const std::vector<std::uint32_t> ranks = simulator::frag::NodeTieRanks(cluster.size(), 42);
  const std::vector<std::uint32_t>* tie_ranks = node_order ? &ranks : nullptr;
  for (const auto& p : f.probes) Decide(cluster, p, *policy, rng, tie_ranks);
  std::vector<double> micros;
  for (int round = 0; round < 3; ++round) {
    for (const auto& p : f.probes) {
      const auto t0 = std::chrono::steady_clock::now();
      Decide(cluster, p, *policy, rng, tie_ranks);
      micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::nth_element(micros.begin(), micros.begin() + static_cast<std::ptrdiff_t>(micros.size() / 2), micros.end());
  return micros[micros.size() / 2];
}

std::vector<std::string> Names() {
  std::vector<std::string> names{"noop"};
  for (const auto& n : engine::policies::PolicyNames()) names.push_back(n);
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  for (const std::string& name : Names()) {
    benchmark::RegisterBenchmark(("decision/" + name).c_str(), BM_Decision, name)->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  const Fixture& f = LoadedCluster();
  std::printf("\nplacement decision on %d openb nodes at %.1f%% GPU allocation (median of %zu decisions)\n",
              f.cluster.size(),
              100.0 * static_cast<double>(f.cluster.allocated_gpu_milli()) / static_cast<double>(f.cluster.total_gpu_milli()),
              3 * f.probes.size());
  const double base = MedianMicros("noop", false);
  const double base_ordered = MedianMicros("noop", true);
  std::printf("%-16s %14s %8s %16s %8s\n", "policy", "random ties us", "ratio", "node-order us", "ratio");
  std::printf("%-16s %14.2f %8.2f %16.2f %8.2f\n", "noop (baseline)", base, 1.0, base_ordered, 1.0);
  for (const std::string& name : engine::policies::PolicyNames()) {
    const double m = MedianMicros(name, false);
    const double o = MedianMicros(name, true);
    std::printf("%-16s %14.2f %8.2f %16.2f %8.2f\n", name.c_str(), m, m / base, o, o / base_ordered);
  }
  return 0;
}
