// gangplank-sim: trace-replay simulator. Subcommands `fragmentation` (openb, the FGD paper's method),
// `time` (Philly job trace in virtual time), `spot` (the same on spot nodes that get reclaimed),
// `faults` (the same on nodes that fail) and `what-if` (what a setting costs on one trace).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "simulator/csv_table.h"
#include "simulator/faults/faults_command.h"
#include "simulator/frag/frag_command.h"
#include "simulator/spot/spot_command.h"
#include "simulator/time_replay/command.h"
#include "simulator/what_if/what_if_command.h"

int main(int argc, char** argv) {
  CLI::App app{"gangplank-sim: replays GPU-cluster traces through gangplank's placement engine and writes metrics\n"
               "and a self-contained HTML report."};
  app.require_subcommand(1);
  gangplank::simulator::AddFragmentationCommand(app);
  gangplank::simulator::AddTimeReplayCommand(app);
  gangplank::simulator::AddSpotReplayCommand(app);
  gangplank::simulator::AddFaultReplayCommand(app);
  gangplank::simulator::AddWhatIfCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const gangplank::simulator::InputError& e) {
    std::fprintf(stderr, "gangplank-sim: bad input: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gangplank-sim: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
