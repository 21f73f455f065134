// Runs a what-if: the time replay of one trace with gangplank's scheduler, once with the baseline settings and
// once per variant (the baseline with one setting changed), and the table of their figures side by side.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "simulator/time_replay/job_trace.h"
#include "simulator/time_replay/options.h"
#include "simulator/time_replay/run_time_replay.h"
#include "simulator/what_if/what_if_settings.h"
#include "simulator/what_if/what_if_table.h"

namespace gangplank::simulator {

struct WhatIfOptions {
  TimeReplayOptions baseline;         // The trace, the cluster and every setting as the flags say.
  std::vector<std::string> settings;  // "key=value", one variant each.
  bool csv = false;                   // Print the table as CSV, nothing else.
  std::string out_dir;                // Empty: write no files.
};

struct WhatIfOutput {
  std::vector<TimeReplayOutput> runs;  // [0] the baseline's, then one per variant.
  WhatIfTable table;
};

// The variants of `settings` on `baseline`; throws InputError (ApplySetting) for the first bad one, and for
// none at all. Every variant is checked before anything runs.
std::vector<WhatIfVariant> ParseVariants(const TimeReplayOptions& baseline, const std::vector<std::string>& settings);

// The replays alone, gangplank's scheduler only, no files: what tests drive.
WhatIfOutput RunWhatIfInMemory(const JobTrace& trace, const TimeReplayOptions& baseline,
                               const std::vector<WhatIfVariant>& variants);

// Checks the settings, loads the trace, replays, prints the table to `log` and, with out_dir, writes
// what_if.csv there and each run's metrics and report.html into a folder of its own. Returns the exit code;
// throws InputError for bad settings or input files.
int RunWhatIf(const WhatIfOptions& options, std::ostream& log);

}  // namespace gangplank::simulator
