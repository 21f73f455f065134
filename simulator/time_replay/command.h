// The simulator's `time` subcommand: replays a job trace with arrivals and durations (Philly) in
// virtual time through gangplank's gang planner and fair share, and through two baselines.
#pragma once

#include <CLI/CLI.hpp>

namespace gangplank::simulator {

void AddTimeReplayCommand(CLI::App& app);

}  // namespace gangplank::simulator
