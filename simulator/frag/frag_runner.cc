#include "simulator/frag/frag_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include "base/parallel_tasks.h"

namespace gangplank::simulator::frag {

std::vector<FragReplayResult> RunFragReplays(const std::vector<engine::NodeSpec>& nodes,
                                             const std::vector<engine::PodRequest>& pods,
                                             const std::vector<std::string>& policies,
                                             const std::vector<std::uint64_t>& seeds, double target_ratio, int threads,
                                             const ReplayProgress& progress, std::vector<double>* run_seconds,
                                             ArrivalMode mode, TieBreak ties) {
  const size_t total = policies.size() * seeds.size();
  std::vector<FragReplayResult> results(total);
  std::vector<double> seconds(total, 0);
  std::atomic<int> done{0};
  base::RunTasks(total, threads, [&](size_t job) {
    const auto start = std::chrono::steady_clock::now();
    results[job] =
        RunFragReplay(nodes, pods, policies[job / seeds.size()], seeds[job % seeds.size()], target_ratio, mode, ties);
    seconds[job] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) progress(++done, static_cast<int>(total));
  });
  if (run_seconds) *run_seconds = std::move(seconds);
  return results;
}

std::vector<PolicySummary> Summarise(const std::vector<FragReplayResult>& results,
                                     const std::vector<double>& run_seconds) {
  std::vector<PolicySummary> out;
  for (size_t i = 0; i < results.size(); ++i) {
    const FragReplayResult& r = results[i];
    auto it = std::find_if(out.begin(), out.end(), [&](const PolicySummary& s) { return s.policy == r.policy; });
    if (it == out.end()) {
      out.push_back(PolicySummary{});
      out.back().policy = r.policy;
      it = out.end() - 1;
    }
    if (i < run_seconds.size()) it->wall_seconds += run_seconds[i];
  }
  for (PolicySummary& s : out) {
    std::vector<double> unalloc, final_alloc;
    double failed = 0;
    for (const FragReplayResult& r : results) {
      if (r.policy != s.policy) continue;
      unalloc.push_back(100.0 - AllocationAt(r.curve, 100.0));
      final_alloc.push_back(r.curve.empty() ? 0 : r.curve.back().allocated_percent);
      failed += r.pods_failed;
    }
    s.runs = static_cast<int>(unalloc.size());
    if (s.runs == 0) continue;
    double sum = 0;
    for (double v : unalloc) sum += v;
    s.unallocated_at_100_mean = sum / s.runs;
    double sq = 0;
    for (double v : unalloc) sq += (v - s.unallocated_at_100_mean) * (v - s.unallocated_at_100_mean);
    s.unallocated_at_100_sd = s.runs > 1 ? std::sqrt(sq / (s.runs - 1)) : 0;
    double fsum = 0;
    for (double v : final_alloc) fsum += v;
    s.allocated_at_130_mean = fsum / s.runs;
    std::sort(final_alloc.begin(), final_alloc.end());
    const size_t m = final_alloc.size();
    s.allocated_at_130_median = m % 2 ? final_alloc[m / 2] : (final_alloc[m / 2 - 1] + final_alloc[m / 2]) / 2;
    s.failed_pods_mean = failed / s.runs;
  }
  return out;
}

}  // namespace gangplank::simulator::frag
