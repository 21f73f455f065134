// The table `gangplank-sim what-if` prints: per figure of the time replay (JCT, queueing delay, fairness,
// preemptions, lost GPU-hours, ...), the baseline's value, each variant's and the variant's difference from
// the baseline. Built from the replays' SchedulerFigures; rendered as aligned text or as CSV.
#pragma once

#include <string>
#include <vector>

#include "simulator/time_replay/replay_metrics.h"

namespace gangplank::simulator {

struct WhatIfRow {
  std::string figure;          // "mean JCT (h)".
  int digits = 0;              // Decimals shown.
  std::vector<double> values;  // [0] the baseline's, then one per variant.

  // A variant's value minus the baseline's (variant >= 1).
  double Difference(size_t variant) const { return values[variant] - values[0]; }
};

struct WhatIfTable {
  std::vector<std::string> runs;  // "baseline", then each variant's label.
  std::vector<WhatIfRow> rows;

  // The row of a figure; throws std::out_of_range for a figure the table does not have.
  const WhatIfRow& Row(const std::string& figure) const;
};

// `figures[0]` is the baseline's, then one per variant, in the order of `labels` (the variants' labels).
WhatIfTable BuildWhatIfTable(const std::vector<std::string>& labels, const std::vector<SchedulerFigures>& figures);

// Columns: figure, baseline, then per variant its value and its change ("+0.71", "-44", "0").
std::string RenderWhatIfText(const WhatIfTable& table);
// The same columns as CSV with a header row: figure,baseline,<label>,<label> change,...
std::string RenderWhatIfCsv(const WhatIfTable& table);

}  // namespace gangplank::simulator
