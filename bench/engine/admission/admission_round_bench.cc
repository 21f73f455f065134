// One admission round of a 5000-node, four-level pool at ~70% load (bench/engine/loaded_pool.h) with
// 1000 waiting gangs in 7 queues: half single pods of 1-8 GPUs, 40% 2-4 x 8-GPU gangs, 10% 64-GPU
// gangs (~18k GPUs asked for, ~12k free). The running pods (one gang each, hourly checkpoints) are 70%
// queue q0's, far above its share, so with reclaim on the round also picks victims. Baseline in the same
// run: planning one 64-GPU gang on the same pool, the unit of work a round repeats.
// Incremental: one more gang (two 8-GPU pods) arrives; the operator's per-event round plans only it
// (plan_only) with the holdings it keeps (held), against a full round over the same 1001 gangs.
// Prints medians, their ratios and the round's outcome.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "bench/engine/loaded_pool.h"
#include "bench/median_reporter.h"
#include "engine/admission/admission_round.h"
#include "engine/gang/gang_planner.h"
#include "engine/policies/registry.h"

namespace gangplank::engine {
namespace {

constexpr int kQueues = 8;
constexpr int kWaiting = 1000;

std::string Name(const char* prefix, int i) {
  std::string s(prefix);
  s.append(std::to_string(i));
  return s;
}

GangRequest Gang(const std::string& name, const std::string& queue, int pods, int gpus) {
  GangRequest g;
  g.name = name;
  g.queue = queue;
  for (int i = 0; i < pods; ++i) g.members.push_back(bench::Gpus(gpus));
  return g;
}

struct Fixture {
  Fixture() {
    std::vector<Allocation> placed;
    cluster = bench::MakeLoadedPool(&placed);
    Rng rng(7);
    input.now = 100000;
    for (int q = 0; q < kQueues; ++q) {
      AdmissionQueue queue;
      queue.name = Name("q", q);
      queue.weight = 1.0 + q % 3;
      queue.guaranteed = 500.0 * (q % 2);
      input.queues.push_back(std::move(queue));
    }
    // Running pods belong to queues unevenly (queue 0 holds the most), so some queues are above their
    // share and reclaim has victims.
    for (size_t i = 0; i < placed.size(); ++i) {
      RunningGang r;
      r.name = Name("run-", static_cast<int>(i));
      r.queue = Name("q", static_cast<int>(rng.Below(10) < 7 ? 0 : rng.Below(kQueues)));
      r.start = static_cast<double>(rng.Below(90000));
      r.last_checkpoint = input.now - static_cast<double>(rng.Below(3600));  // Hourly checkpoints.
      r.allocations = {placed[i]};
      input.running.push_back(std::move(r));
    }
    for (int i = 0; i < kWaiting; ++i) {
      const std::uint64_t kind = rng.Below(100);
      const int pods = kind < 50 ? 1 : kind < 90 ? 2 + static_cast<int>(rng.Below(3)) : 8;
      const int gpus = kind < 50 ? 1 << rng.Below(4) : 8;
      WaitingGang w;
      w.request = Gang(Name("wait-", i), Name("q", 1 + static_cast<int>(rng.Below(kQueues - 1))), pods, gpus);
      w.arrival = static_cast<double>(rng.Below(100000));
      w.request.priority = static_cast<int>(rng.Below(3));
      input.waiting.push_back(std::move(w));
    }
  }
  Cluster cluster;
  AdmissionInput input;
  std::unique_ptr<ScoringPolicy> policy = policies::MakePolicy("bestfit", {});
};

// The fixture's input with one new gang waiting; `incremental`: planning only it, holdings given.
AdmissionInput WithNewGang(const AdmissionInput& base, bool incremental) {
  AdmissionInput input = base;
  WaitingGang w;
  w.request = Gang("new", "q3", 2, 8);
  w.arrival = input.now;
  input.waiting.push_back(std::move(w));
  if (incremental) {
    input.plan_only = std::vector<int>{static_cast<int>(input.waiting.size()) - 1};
    input.held = HeldByQueue(input);
  }
  return input;
}

Fixture& Shared() {
  static Fixture fixture;  // Built once; rounds restore the cluster, so every iteration sees the same state.
  return fixture;
}

AdmissionConfig Config(bool reclaim) {
  AdmissionConfig c;
  c.reclaim.enabled = reclaim;
  c.reclaim.min_wait_seconds = 0;
  return c;
}

void RunRound(benchmark::State& state, bool reclaim) {
  Fixture& f = Shared();
  const AdmissionConfig config = Config(reclaim);
  size_t admitted = 0, evicted = 0;
  for (auto _ : state) {
    Rng rng(1);
    AdmissionDecision d = DecideAdmission(f.cluster, f.input, config, *f.policy, rng);
    admitted = d.admitted.size();
    evicted = d.reclaims.size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["admitted"] = static_cast<double>(admitted);
  state.counters["evicted"] = static_cast<double>(evicted);
}

void BM_AdmissionRound1000Gangs(benchmark::State& state) { RunRound(state, false); }
void BM_AdmissionRound1000GangsReclaim(benchmark::State& state) { RunRound(state, true); }

void RunNewGangRound(benchmark::State& state, bool incremental) {
  Fixture& f = Shared();
  const AdmissionInput input = WithNewGang(f.input, incremental);
  const AdmissionConfig config = Config(false);
  size_t admitted = 0;
  for (auto _ : state) {
    Rng rng(1);
    AdmissionDecision d = DecideAdmission(f.cluster, input, config, *f.policy, rng);
    admitted = d.admitted.size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["admitted"] = static_cast<double>(admitted);
}

void BM_NewGangFullRound(benchmark::State& state) { RunNewGangRound(state, false); }
void BM_NewGangIncrementalRound(benchmark::State& state) { RunNewGangRound(state, true); }

void BM_PlanGang64GpusBaseline(benchmark::State& state) {
  Fixture& f = Shared();
  Rng rng(1);
  const GangRequest gang = Gang("bench", "q0", 8, 8);
  for (auto _ : state) {
    GangPlan plan = PlanGang(f.cluster, gang, *f.policy, rng);
    benchmark::DoNotOptimize(plan);
  }
}

BENCHMARK(BM_AdmissionRound1000Gangs)->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_AdmissionRound1000GangsReclaim)->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_PlanGang64GpusBaseline)->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_NewGangFullRound)->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_NewGangIncrementalRound)->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);

}  // namespace
}  // namespace gangplank::engine

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  gangplank::bench::MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const double round = reporter.Median("BM_AdmissionRound1000Gangs");
  const double reclaim = reporter.Median("BM_AdmissionRound1000GangsReclaim");
  const double plan = reporter.Median("BM_PlanGang64GpusBaseline");
  std::printf("\nadmission round, %d waiting gangs, %d nodes, %zu running pods: median %.1f ms (reclaim on: %.1f ms)\n",
              gangplank::engine::kWaiting, gangplank::engine::bench::kNodes,
              gangplank::engine::Shared().input.running.size(), round, reclaim);
  if (plan > 0) {
    std::printf("ratio admission round / one 64-GPU gang plan: %.1f\n", round / plan);
    std::printf("ratio admission round with reclaim / one 64-GPU gang plan: %.1f\n", reclaim / plan);
  }
  const double full = reporter.Median("BM_NewGangFullRound");
  const double incremental = reporter.Median("BM_NewGangIncrementalRound");
  std::printf("one new gang: full round %.2f ms, incremental round (plan_only + held) %.3f ms\n", full, incremental);
  if (incremental > 0) std::printf("ratio full / incremental: %.1f (target >= 20)\n", full / incremental);
  benchmark::Shutdown();
  return 0;
}
