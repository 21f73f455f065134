// The simulator's `faults` subcommand: the Philly time replay on a cluster whose nodes fail at a published rate
// (Llama 3's), comparing gangplank's whole-gang restart with checkpoints, Kubernetes' own per-pod replacement, and no
// handling at all.
#pragma once

#include <CLI/CLI.hpp>

namespace gangplank::simulator {

void AddFaultReplayCommand(CLI::App& app);

}  // namespace gangplank::simulator
