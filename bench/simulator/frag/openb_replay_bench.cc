// The whole openb fragmentation replay (every policy x seeds 42..51 on 2 threads, as `gangplank-sim
// fragmentation` runs it) against a baseline in the same run: the Random-only replay (10 seeds, same
// threads), whose cost is the replay machinery itself (filtering, arrival order, bookkeeping).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/policies/registry.h"
#include "simulator/frag/frag_runner.h"
#include "simulator/openb/openb_loader.h"

namespace {

using namespace gangplank;

struct Trace {
  std::vector<engine::NodeSpec> nodes;
  std::vector<engine::PodRequest> pods;
};

const Trace& Openb() {
  static const Trace trace = [] {
    Trace t;
    const std::string dir = std::string(GANGPLANK_DATA_DIR) + "/openb/";
    t.nodes = simulator::openb::LoadNodes(dir + "openb_node_list_gpu_node.csv");
    for (auto& p : simulator::openb::LoadPods(dir + "openb_pod_list_default.csv")) t.pods.push_back(p.request);
    return t;
  }();
  return trace;
}

std::vector<std::uint64_t> Seeds() {
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t s = 42; s <= 51; ++s) seeds.push_back(s);
  return seeds;
}

double RunSeconds(const std::vector<std::string>& policies) {
  const auto t0 = std::chrono::steady_clock::now();
  auto results = simulator::frag::RunFragReplays(Openb().nodes, Openb().pods, policies, Seeds(), 1.3, 2);
  benchmark::DoNotOptimize(results.data());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void BM_Replay(benchmark::State& state, std::vector<std::string> policies) {
  for (auto _ : state) state.SetIterationTime(RunSeconds(policies));
  state.counters["runs"] = static_cast<double>(policies.size() * Seeds().size());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> six;
  for (const auto& n : engine::policies::PolicyNames()) {
    if (n != "fragpack") six.push_back(n);
  }
  const std::vector<std::string> all = engine::policies::PolicyNames();
  benchmark::RegisterBenchmark("replay/random_x10 (baseline)", BM_Replay, std::vector<std::string>{"random"})
      ->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
  benchmark::RegisterBenchmark("replay/paper_six_x10", BM_Replay, six)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
  benchmark::RegisterBenchmark("replay/fragpack_x10", BM_Replay, std::vector<std::string>{"fragpack"})
      ->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
  benchmark::RegisterBenchmark("replay/all_seven_x10", BM_Replay, all)->UseManualTime()->Iterations(1)->Unit(benchmark::kSecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Openb();  // Load outside the timed region.
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  const double base = RunSeconds({"random"});
  const double paper = RunSeconds(six);
  const double seven = RunSeconds(all);
  std::printf("\nopenb replay, seeds 42..51, 2 threads (budget: 6 x 10 runs < 60 s)\n");
  std::printf("%-28s %10s %16s\n", "replay", "wall s", "ratio to random");
  std::printf("%-28s %10.2f %16.2f\n", "random x10 (baseline)", base, 1.0);
  std::printf("%-28s %10.2f %16.2f\n", "paper's six x10", paper, paper / base);
  std::printf("%-28s %10.2f %16.2f\n", "all seven x10", seven, seven / base);
  return 0;
}
