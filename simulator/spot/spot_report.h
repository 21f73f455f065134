// The spot replay's outputs for people: the summary over seeds as a markdown table (printed, and pasted into the
// READMEs) and report.html with the setup, the summary, every seed's figures, charts over time and the reclaims.
#pragma once

#include <string>
#include <vector>

#include "simulator/spot/run_spot_replay.h"
#include "simulator/spot/spot_metrics.h"

namespace gangplank::simulator {

// One row per policy: lost GPU-hours (mean ± sd over seeds), stranded, JCT mean/median/p95, gangs broken, jobs killed,
// gangs noticed, checkpoints in time and late, evictions without checkpoint (means per seed).
std::string FormatSpotTable(const std::vector<SpotPolicySummary>& summary);

std::string RenderSpotReport(const SpotReplayOutput& out, const std::vector<std::string>& setup_lines);

}  // namespace gangplank::simulator
