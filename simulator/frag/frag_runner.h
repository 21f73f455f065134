// Runs many fragmentation replays (policy x seed) on a few threads and summarises them per policy.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "simulator/frag/frag_replay.h"

namespace gangplank::simulator::frag {

struct PolicySummary {
  std::string policy;
  int runs = 0;
  double unallocated_at_100_mean = 0;  // 100 - allocation % when arrived workload reaches 100%.
  double unallocated_at_100_sd = 0;    // Sample standard deviation over seeds.
  double allocated_at_130_mean = 0;    // Allocation % at the end (arrived = target, 130% by default).
  double allocated_at_130_median = 0;
  double failed_pods_mean = 0;
  double wall_seconds = 0;             // Summed over this policy's runs.
};

// Called from worker threads after each run (done, total); must be thread-safe.
using ReplayProgress = std::function<void(int done, int total)>;

// Results in (policy, seed) order. Each run owns its cluster and policy. An exception in any run is
// rethrown here after all threads have stopped.
std::vector<FragReplayResult> RunFragReplays(const std::vector<engine::NodeSpec>& nodes,
                                             const std::vector<engine::PodRequest>& pods,
                                             const std::vector<std::string>& policies,
                                             const std::vector<std::uint64_t>& seeds, double target_ratio,
                                             int threads, const ReplayProgress& progress = {},
                                             std::vector<double>* run_seconds = nullptr,
                                             ArrivalMode mode = ArrivalMode::kShuffled,
                                             TieBreak ties = TieBreak::kNodeOrder);

std::vector<PolicySummary> Summarise(const std::vector<FragReplayResult>& results,
                                     const std::vector<double>& run_seconds = {});

}  // namespace gangplank::simulator::frag
