#include "simulator/what_if/what_if_command.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "simulator/progress_bar.h"
#include "simulator/time_replay/replay_flags.h"
#include "simulator/what_if/what_if_run.h"

namespace gangplank::simulator {
namespace {

constexpr char kDescription[] =
    "What a setting costs: replays one job trace in virtual time (the format of `time`: a CSV of\n"
    "timestamp,duration,num_gpus,gpu_time,cluster, and the queues' CSV of vc,node num) with gangplank's\n"
    "admission round, once with the baseline settings (the flags below, their defaults otherwise) and once per\n"
    "--set key=value, each the baseline with that one setting changed. Prints, per figure (jobs started,\n"
    "JCT and queueing delay mean and p99, utilisation, Jain fairness, preemptions, lost GPU-hours), the\n"
    "baseline's value, each variant's and its change. Keys are the flags of `time` without their dashes:\n";

// The valid keys for --help, a line of at most `width` characters each.
std::string WrappedKeys(size_t width) {
  const std::vector<std::string> keys = WhatIfSettingKeys();
  std::string text, line;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string item = keys[i] + (i + 1 < keys.size() ? "," : ".");
    if (!line.empty() && line.size() + 1 + item.size() > width) {
      text += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + item;
  }
  return text + line + "\n";
}

// Replaces the replay flags' --out (a default folder, always written) with the what-if's own (nothing
// written without it).
void AddOutputFlags(CLI::App& cmd, WhatIfOptions& options) {
  cmd.remove_option(cmd.get_option("--out"));
  cmd.add_option("--out", options.out_dir,
                 "Also write what_if.csv and, per run (baseline/, then one folder per --set), the time replay's\n"
                 "summary.csv, summary.json, per-job and time-series CSVs and report.html into this folder")
      ->envname("GANGPLANK_SIM_OUT");
  cmd.add_flag("--csv", options.csv, "Print the table as CSV (figure,baseline,<set>,<set> change,...), nothing else")
      ->envname("GANGPLANK_SIM_CSV");
}

}  // namespace

void AddWhatIfCommand(CLI::App& app) {
  // Owned by the callback, which CLI11 keeps alive as long as the app.
  auto options = std::make_shared<WhatIfOptions>();
  options->baseline.progress = ProgressBar::StderrIsTerminal();
  CLI::App* cmd = app.add_subcommand("what-if", kDescription + WrappedKeys(110) +
                                                    "Every flag can also come from the environment variable shown "
                                                    "next to it.");
  AddReplayFlags(*cmd, options->baseline);
  AddOutputFlags(*cmd, *options);
  cmd->add_option("--set", options->settings,
                  "A variant: key=value, e.g. reclaim=false, usage-half-life=86400, reserve-after=-1 (repeat for more\n"
                  "variants, each against the baseline). A bad key or value exits 2 listing the valid keys")
      ->type_name("KEY=VALUE");

  cmd->callback([options] {
    // InputError (bad --set, bad trace files) propagates to main, which prints it and exits 2.
    const int code = RunWhatIf(*options, std::cout);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace gangplank::simulator
