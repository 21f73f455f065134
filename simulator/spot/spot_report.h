// The spot replay's outputs for people: the summary as a markdown table
// (printed, and pasted into the READMEs) and report.html with the setup, the
// table, charts over time and the reclaims.
#pragma once

#include <string>
#include <vector>

#include "simulator/spot/run_spot_replay.h"
#include "simulator/spot/spot_metrics.h"

namespace gangplank::simulator {

// One row per policy: lost, stranded, JCT mean/median/p95, gangs broken,
// notices, checkpoints.
std::string FormatSpotTable(const std::vector<SpotFigures>& figures);

std::string RenderSpotReport(const SpotReplayOutput& out, const std::vector<std::string>& setup_lines);

}  // namespace gangplank::simulator
