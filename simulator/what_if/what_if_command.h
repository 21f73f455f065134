// The simulator's `what-if` subcommand: what a setting costs on one trace. Replays the trace (the user's own
// export, or the bundled Philly trace) with gangplank's admission round once with the baseline settings and
// once per `--set key=value`, and prints each variant's figures beside the baseline's with the difference.
#pragma once

#include <CLI/CLI.hpp>

namespace gangplank::simulator {

void AddWhatIfCommand(CLI::App& app);

}  // namespace gangplank::simulator
