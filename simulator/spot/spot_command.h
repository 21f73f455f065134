// The simulator's `spot` subcommand: the Philly time replay on a cluster part of which is spot, with node reclaims
// drawn at a published rate, comparing gangplank's checkpoint-then-requeue with evict-on-notice and with ignoring
// notices.
#pragma once

#include <CLI/CLI.hpp>

namespace gangplank::simulator {

void AddSpotReplayCommand(CLI::App& app);

}  // namespace gangplank::simulator
