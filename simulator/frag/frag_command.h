// The simulator's `fragmentation` subcommand: the FGD paper's fragmentation replay on the openb trace.
#pragma once

#include <CLI/CLI.hpp>

namespace gangplank::simulator {

void AddFragmentationCommand(CLI::App& app);

}  // namespace gangplank::simulator
