// The failure study on the seeded replay harness: the faults of Llama 3's rates and kinds drawn once per seed, every
// fault policy replayed under them; the summary files and the table.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "simulator/faults/fault_metrics.h"
#include "simulator/faults/fault_options.h"
#include "simulator/faults/fault_sequence.h"
#include "simulator/faults/faults_scheduler.h"
#include "simulator/faults/policy_summary.h"
#include "simulator/time_replay/job_trace.h"
#include "simulator/time_replay/replay_setup.h"
#include "simulator/time_replay/seeded_replays.h"

namespace gangplank::simulator {

// One seed's faults, the same for every policy.
struct FaultDraw {
  FaultModel model;
  std::vector<InjectedFault> faults;
};

using FaultSeedRun = SeedRun<FaultDraw, FaultFigures>;

struct FaultReplayOutput : SeededReplays<FaultDraw, FaultFigures> {
  std::vector<PolicySummary> summary;  // One per policy, over the seeds.
};

// The fault model of one seed for this workload: faults come while jobs arrive.
FaultModel FaultModelFor(const FaultReplayOptions& options, const Workload& workload, std::uint64_t seed);

// The handling and its settings of one policy, by its CLI name.
FaultSettings FaultSettingsFor(const std::string& policy, const FaultReplayOptions& options);

struct FaultPolicyRun {
  ReplayResult result;
  FaultCounters counters;
};

// One policy's replay of the prepared workload under the given faults.
FaultPolicyRun RunFaultPolicy(const PreparedReplay& prepared, const std::vector<InjectedFault>& faults,
                              const std::string& policy, const FaultReplayOptions& options);

// The replays alone, no files: what tests drive. Throws std::invalid_argument for senseless options.
FaultReplayOutput RunFaultReplayInMemory(const JobTrace& trace, const FaultReplayOptions& options);

// Each seed's figures as columns, per policy: `[seed][policy]`.
std::vector<std::vector<PolicyRun>> ColumnsPerSeed(const std::vector<FaultSeedRun>& runs);

// Loads the trace, replays, writes summary.csv, runs.csv, summary.json and faults.csv into the output directory and
// prints the setup and the table. Returns the process exit code. Throws InputError for unusable input files.
int RunFaultReplay(const FaultReplayOptions& options, std::ostream& log);

}  // namespace gangplank::simulator
