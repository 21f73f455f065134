// Runs a whole time replay (load traces, build the cluster, replay every scheduler, write the report).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "simulator/time_replay/job_trace.h"
#include "simulator/time_replay/options.h"
#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_metrics.h"
#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

struct TimeReplayOutput {
  Workload workload;
  std::vector<ReplayResult> results;        // One per scheduler, in the order asked for.
  std::vector<SchedulerFigures> figures;
  std::vector<std::string> notes;
};

// The replays alone, no files: what tests drive.
TimeReplayOutput RunTimeReplayInMemory(const JobTrace& trace, const TimeReplayOptions& options);

// Loads the traces, replays, writes metrics and report.html into options.out_dir and prints a summary.
// Returns the process exit code. Throws InputError for unusable input files.
int RunTimeReplay(const TimeReplayOptions& options, std::ostream& log);

}  // namespace gangplank::simulator
