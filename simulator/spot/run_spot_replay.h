// The spot study on the seeded replay harness: spot nodes and their reclaims drawn once per seed, every spot policy
// replayed under them; the summary files and report.html.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "simulator/spot/preemption_sequence.h"
#include "simulator/spot/spot_metrics.h"
#include "simulator/spot/spot_options.h"
#include "simulator/spot/spot_scheduler.h"
#include "simulator/time_replay/job_trace.h"
#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_setup.h"
#include "simulator/time_replay/replay_workload.h"
#include "simulator/time_replay/seeded_replays.h"

namespace gangplank::simulator {

// One seed's spot nodes and reclaims, the same for every policy.
struct SpotDraw {
  PreemptionModel model;
  std::vector<engine::NodeId> spot_nodes;
  std::vector<NodePreemption> preemptions;
};

using SpotSeedRun = SeedRun<SpotDraw, SpotFigures>;

struct SpotReplayOutput : SeededReplays<SpotDraw, SpotFigures> {
  std::vector<SpotPolicySummary> summary;  // One per policy, over the seeds.
};

// The reclaim model of one seed for this workload: reclaims come while jobs arrive.
PreemptionModel SpotModelFor(const SpotReplayOptions& options, const Workload& workload, std::uint64_t seed);

// The engine settings and the job model of one policy, by its CLI name.
SpotSettings SpotSettingsFor(const std::string& policy, const SpotReplayOptions& options);

struct SpotPolicyRun {
  ReplayResult result;
  SpotCounters counters;
};

// One policy's replay of the prepared workload under the given reclaims.
SpotPolicyRun RunSpotPolicy(const PreparedReplay& prepared, const std::vector<NodePreemption>& preemptions,
                            const std::string& policy, const SpotReplayOptions& options);

// The replays alone, no files: what tests drive. Throws std::invalid_argument for senseless options.
SpotReplayOutput RunSpotReplayInMemory(const JobTrace& trace, const SpotReplayOptions& options);

// Loads the traces, replays, writes summary.csv, summary.json and report.html into the output directory and prints the
// table. Returns the process exit code. Throws InputError for unusable input files.
int RunSpotReplay(const SpotReplayOptions& options, std::ostream& log);

}  // namespace gangplank::simulator
