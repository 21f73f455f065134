// How good the runtime predictions of a replay were, per job size: of the jobs that ended and had a
// prediction when they arrived, the share that ran no longer than the predicted quantile (what
// backfill trusts: ideally about that quantile), and the error of the predicted median.
#pragma once

#include <string>
#include <vector>

#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

struct PredictionAccuracy {
  std::string label;              // A size bucket's ("1", "2-8", ...), or "all".
  int ended = 0;                  // Jobs of the bucket that ended.
  int predicted = 0;              // ... that had a prediction at arrival.
  double within_quantile = 0;     // Share of those that ran no longer than the predicted quantile.
  double median_abs_error_h = 0;  // Median |predicted median - runtime|, hours.
  double median_ratio = 0;        // Median of predicted median / runtime.
};

// One row per size bucket (SizeBuckets) and a last "all"; empty when the scheduler did not predict.
std::vector<PredictionAccuracy> AccuracyBySize(const Workload& workload, const ReplayResult& result);

}  // namespace gangplank::simulator
