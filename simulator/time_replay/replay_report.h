// report.html for a time replay: setup, a summary table per scheduler, and inline SVG charts of
// utilisation, GPUs held by incomplete gangs, waiting jobs, fairness and per-queue share over time.
#pragma once

#include <string>
#include <vector>

#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_metrics.h"
#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

std::string RenderTimeReplayReport(const Workload& workload, const std::vector<ReplayResult>& results,
                                   const std::vector<SchedulerFigures>& figures,
                                   const std::vector<std::string>& setup_lines);

}  // namespace gangplank::simulator
