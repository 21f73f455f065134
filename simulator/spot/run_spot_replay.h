// Runs a whole spot replay: load the trace, draw the reclaims once, replay every policy on the same arrivals and the
// same reclaims, write the summary and report.html.
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

namespace gangplank::simulator {

// Every policy's replay under the reclaims of one seed.
struct SpotSeedRun {
  std::uint64_t seed = 0;
  PreemptionModel model;
  std::vector<engine::NodeId> spot_nodes;
  std::vector<NodePreemption> preemptions;  // The same for every policy.
  std::vector<ReplayResult> results;        // One per policy, in the order asked for.
  std::vector<SpotFigures> figures;
};

struct SpotReplayOutput {
  Workload workload;
  std::vector<SpotSeedRun> runs;           // One per seed, in the order asked for.
  std::vector<SpotPolicySummary> summary;  // One per policy, over the seeds.
  std::vector<std::string> notes;
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
