// The flags every replay of the Philly trace in virtual time shares (`time` and `spot`): inputs, output, cluster size
// and shape, time compression, gangplank's reclaim guardrails, the checkpoint model, seed, node policy and progress
// bar. Each comes with its environment variable; defaults are the values `options` holds when the flags are added.
#pragma once

#include <CLI/CLI.hpp>

#include "simulator/time_replay/options.h"

namespace gangplank::simulator {

void AddReplayFlags(CLI::App& cmd, TimeReplayOptions& options);

}  // namespace gangplank::simulator
