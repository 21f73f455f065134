// Figures per spot policy, and the summary files they are written to.
//
// Lost GPU-hours = work thrown away (GPUs x run time since the last checkpoint
// kept, when a gang is evicted or its node goes) + GPU time spent writing a
// checkpoint asked for on notice + GPU time the survivors of a broken gang held
// while nobody knew it had failed ("stranded", also shown alone). JCT = end -
// arrival over finished jobs (nearest-rank percentiles).
#pragma once

#include <string>
#include <vector>

#include "simulator/spot/preemption_sequence.h"
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

// What the summary says about the reclaims themselves, the same for every
// policy.
struct PreemptionSummary {
  int spot_nodes = 0;
  int nodes = 0;
  int reclaims = 0;
  double horizon_seconds = 0;
};

// summary.csv (one row per policy) and summary.json (the same, with the
// settings and notes). Throws std::runtime_error naming a file it cannot write.
void WriteSpotSummary(const std::string& out_dir, const std::vector<SpotFigures>& figures,
                      const PreemptionSummary& preemptions, const std::vector<std::string>& setup);

}  // namespace gangplank::simulator
