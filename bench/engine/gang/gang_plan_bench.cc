// Planning a 64-GPU gang (8 pods x 8 GPUs) on a 5000-node, 8-GPU-per-node pool with four topology levels
// (zone > block > rack > hostname) at realistic partial load. Baselines in the same run: placing one
// 8-GPU pod with PlacePod over the same 5000 nodes, and planning an 8-GPU one-pod gang. Prints the
// median times and their ratios; the target is a 64-GPU plan within 5 ms median.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "bench/engine/loaded_pool.h"
#include "bench/median_reporter.h"
#include "engine/cluster.h"
#include "engine/gang/gang_planner.h"
#include "engine/place_pod.h"
#include "engine/policies/registry.h"

namespace gangplank::engine {
namespace {

using bench::Gpus;
using bench::kNodes;
using bench::MakeLoadedPool;

GangRequest Gang(int pods, int gpus) {
  GangRequest g;
  g.name = "bench";
  g.queue = "q";
  for (int i = 0; i < pods; ++i) g.members.push_back(Gpus(gpus));
  return g;
}

struct Fixture {
  Cluster cluster = MakeLoadedPool();
  std::unique_ptr<ScoringPolicy> policy = policies::MakePolicy("bestfit", {});
};

Fixture& Shared() {
  static Fixture fixture;  // Built once; benchmarks never change it (planning restores the cluster).
  return fixture;
}

void BM_PlanGang64Gpus(benchmark::State& state) {
  Fixture& f = Shared();
  Rng rng(1);
  const GangRequest gang = Gang(8, 8);
  for (auto _ : state) {
    GangPlan plan = PlanGang(f.cluster, gang, *f.policy, rng);
    if (!plan.placed) state.SkipWithError(plan.reason.c_str());
    benchmark::DoNotOptimize(plan);
  }
}

void BM_PlanGang8Gpus(benchmark::State& state) {
  Fixture& f = Shared();
  Rng rng(1);
  const GangRequest gang = Gang(1, 8);
  for (auto _ : state) {
    GangPlan plan = PlanGang(f.cluster, gang, *f.policy, rng);
    benchmark::DoNotOptimize(plan);
  }
}

void BM_PlacePod8GpusBaseline(benchmark::State& state) {
  Fixture& f = Shared();
  Rng rng(1);
  const PodRequest pod = Gpus(8);
  for (auto _ : state) {
    auto allocation = PlacePod(f.cluster, pod, *f.policy, rng);
    benchmark::DoNotOptimize(allocation);
  }
}

BENCHMARK(BM_PlanGang64Gpus)->Unit(benchmark::kMicrosecond)->Repetitions(7)->ReportAggregatesOnly(true);
BENCHMARK(BM_PlanGang8Gpus)->Unit(benchmark::kMicrosecond)->Repetitions(7)->ReportAggregatesOnly(true);
BENCHMARK(BM_PlacePod8GpusBaseline)->Unit(benchmark::kMicrosecond)->Repetitions(7)->ReportAggregatesOnly(true);

}  // namespace
}  // namespace gangplank::engine

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  gangplank::bench::MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const double gang64 = reporter.Median("BM_PlanGang64Gpus");
  const double gang8 = reporter.Median("BM_PlanGang8Gpus");
  const double pod = reporter.Median("BM_PlacePod8GpusBaseline");
  std::printf("\n64-GPU gang plan on %d nodes, 4 topology levels: median %.1f us (target <= 5000 us: %s)\n",
              gangplank::engine::kNodes, gang64, gang64 > 0 && gang64 <= 5000 ? "met" : "NOT met");
  if (pod > 0) {
    std::printf("ratio 64-GPU gang plan / one 8-GPU PlacePod over the same nodes: %.2f\n", gang64 / pod);
    std::printf("ratio 8-GPU one-pod gang plan / one 8-GPU PlacePod: %.2f\n", gang8 / pod);
  }
  benchmark::Shutdown();
  return 0;
}
