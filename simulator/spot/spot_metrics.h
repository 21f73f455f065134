// Figures per spot policy, per seed and summarised over seeds, and the files they are written to.
//
// Lost GPU-hours = work thrown away (GPUs x run time since the last checkpoint kept, when a gang is evicted or its node
// goes) + GPU time spent writing a checkpoint asked for on notice + GPU time the survivors of a broken gang held while
// nobody knew it had failed ("stranded", also shown alone). JCT = end - arrival over finished jobs (nearest-rank
// percentiles).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "simulator/spot/spot_scheduler.h"
#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_metrics.h"

namespace gangplank::simulator {

struct SpotFigures {
  std::string policy;
  SchedulerFigures replay;  // JCT, queueing delay, utilisation, evictions, as in `time`.
  SpotCounters spot;
  double work_lost_gpu_seconds = 0;  // Thrown away and spent writing checkpoints (the replay's lost work).
  double stranded_gpu_seconds = 0;   // Held by the survivors of broken gangs.
  double LostGpuSeconds() const { return work_lost_gpu_seconds + stranded_gpu_seconds; }
};

SpotFigures ComputeSpotFigures(const Workload& workload, const ReplayResult& result, const SpotCounters& counters);

// A run's figures by column name (lost_gpu_hours, jct_p95_hours, gangs_broken, ...), in file order.
std::vector<std::pair<std::string, double>> SpotColumns(const SpotFigures& figures);

// One policy over every seed: each column's mean and sample sd (0 with one seed).
struct SpotPolicySummary {
  std::string policy;
  int seeds = 0;
  struct Column {
    std::string name;
    double mean = 0, sd = 0;
  };
  std::vector<Column> columns;
  // The column of that name; throws std::out_of_range for an unknown name.
  const Column& operator[](const std::string& name) const;
};

// `per_seed[s][p]`: seed s, policy p (the same policy order for every seed).
std::vector<SpotPolicySummary> SummarizeSpotPolicies(const std::vector<std::vector<SpotFigures>>& per_seed);

// summary.csv (per policy: mean and sd of every column), runs.csv (per seed and policy) and summary.json (both, with
// the setup lines). Throws std::runtime_error naming a file it cannot write.
void WriteSpotSummary(const std::string& out_dir, const std::vector<std::uint64_t>& seeds,
                      const std::vector<std::vector<SpotFigures>>& per_seed,
                      const std::vector<SpotPolicySummary>& summary, const std::vector<std::string>& setup);

}  // namespace gangplank::simulator
