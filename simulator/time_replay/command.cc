#include "simulator/time_replay/command.h"

#include <iostream>
#include <memory>

#include "simulator/progress_bar.h"
#include "simulator/time_replay/options.h"
#include "simulator/time_replay/replay_flags.h"
#include "simulator/time_replay/run_time_replay.h"

namespace gangplank::simulator {

void AddTimeReplayCommand(CLI::App& app) {
  // Owned by the callback, which CLI11 keeps alive as long as the app.
  auto options = std::make_shared<TimeReplayOptions>();
  options->progress = ProgressBar::StderrIsTerminal();
  CLI::App* cmd = app.add_subcommand(
      "time",
      "Time replay of a job trace (Philly): jobs arrive at their timestamps and run for their durations on a\n"
      "synthetic topology-labelled GPU cluster. Jobs above one node's GPUs are gangs of whole-node pods;\n"
      "virtual clusters are queues whose guaranteed share comes from the VC file. Compares three schedulers\n"
      "on the same arrivals: gangplank (all-or-nothing gangs, fair-share order, topology-aware, reclaim from\n"
      "queues above their fair share; the engine's admission round, as the operator runs it), kube-like\n"
      "(pods placed one by one, least-allocated spread; partially placed gangs hold GPUs) and fifo-gang\n"
      "(all-or-nothing, strict arrival order). Writes CSV/JSON metrics and report.html into --out.\n"
      "Every flag can also come from the environment variable shown next to it.");
  AddReplayFlags(*cmd, *options);
  cmd->add_option("--schedulers", options->schedulers,
                  "Schedulers to compare; gangplank-no-predict and gangplank-no-reserve are gangplank\n"
                  "without runtime prediction and without reservations, for comparisons in one run")
      ->envname("GANGPLANK_SIM_SCHEDULERS")
      ->check(CLI::IsMember({"gangplank", "kube-like", "fifo-gang", "gangplank-no-predict", "gangplank-no-reserve"}))
      ->delimiter(',')
      ->capture_default_str();

  cmd->callback([options] {
    // InputError (bad trace files) propagates to main, which prints it and exits non-zero.
    const int code = RunTimeReplay(*options, std::cout);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace gangplank::simulator
