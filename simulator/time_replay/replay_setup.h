// What every replay of a job trace in virtual time sets up the same way (`time` and `spot`): the cluster and workload
// from the options, gangplank's admission knobs, the setup lines of the report, and the output directory.
#pragma once

#include <string>
#include <vector>

#include "engine/cluster.h"
#include "engine/request.h"
#include "simulator/time_replay/gang_schedulers.h"
#include "simulator/time_replay/job_trace.h"
#include "simulator/time_replay/options.h"
#include "simulator/time_replay/replay_cluster.h"
#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

struct PreparedReplay {
  engine::Cluster cluster;
  Workload workload;                     // With the options' checkpoint model.
  std::vector<std::string> notes;        // The trace's notes and anything that cannot work (jobs too large).
  std::vector<engine::PodRequest> pods;  // Every pod of the workload, for policies that learn typical pods.
};

ClusterShape ShapeOf(const TimeReplayOptions& options);
PreparedReplay PrepareReplay(const JobTrace& trace, const TimeReplayOptions& options);

// Reservations, reclaim and backfill of gangplank's admission round, as the options say.
void ConfigureGangplank(GangplankScheduler& scheduler, const TimeReplayOptions& options);

// A setting as written in a description: "3600", "0.5", never "3600.000000".
std::string FormatSetting(double value);
// A figure for a table with `digits` decimals: "5.01".
std::string FormatFixed(double value, int digits);

// Report lines on the trace, the cluster, reclaim and checkpoints, time scale, seed and node policy.
std::vector<std::string> DescribeReplaySetup(const TimeReplayOptions& options, const Workload& workload);

// Creates `dir` (and parents); throws std::runtime_error naming it when it cannot.
void CreateOutputDirectory(const std::string& dir);
// Writes `text` to `path`; throws std::runtime_error naming it when it cannot.
void WriteTextFile(const std::string& path, const std::string& text);

}  // namespace gangplank::simulator
