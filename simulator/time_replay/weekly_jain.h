// Fairness over a long window, not an instant: Jain's index of each queue's GPU-hours held against its
// fair-share GPU-hours over consecutive week-long windows. The per-sample index rewards a scheduler that
// is fair at every moment; this one asks whether, over a week, each queue got what it was owed, which is
// what time-based fair share (engine/fairshare/usage_ledger.h) aims at.
#pragma once

#include <vector>

#include "simulator/time_replay/replay_engine.h"

namespace gangplank::simulator {

// Jain's index (sum x)^2 / (n * sum x^2) of `ratios`; -1 when empty, 1 when all are 0.
double JainOfRatios(const std::vector<double>& ratios);

// Windows [k*window, (k+1)*window) holding at least one sample; in each, per queue with a positive
// summed fair share, x = sum of held GPUs / sum of fair shares over the window's samples; Jain's index of
// those x. The mean over windows (1 when no window has a queue with a fair share).
double WindowedJain(const std::vector<ReplaySample>& samples, double window_seconds);

}  // namespace gangplank::simulator
