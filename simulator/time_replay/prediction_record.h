// What a scheduler that predicts runtimes (gangplank with --predict-runtimes) reports of its
// predictions: per job, what it predicted when the job arrived (from the jobs that had ended by then,
// never the job itself), and how backfill on those predictions went.
#pragma once

#include <limits>
#include <vector>

namespace gangplank::simulator {

struct PredictionRecord {
  bool enabled = false;
  double quantile = 0;  // The quantile backfill trusts (--backfill-quantile).
  // Per job (indexed like Workload::jobs), seconds; NaN where nothing was predicted (too few jobs like
  // it had ended).
  std::vector<double> at_quantile;
  std::vector<double> median;
  int backfilled = 0;  // Gangs started on nodes reserved for another on a prediction.
  int overruns = 0;    // ... of which ended for overstaying (EvictionKind::kBackfillOverrun).
  double overrun_lost_gpu_seconds = 0;  // Work those ends threw away (the replay's checkpoint model).

  static double None() { return std::numeric_limits<double>::quiet_NaN(); }
};

}  // namespace gangplank::simulator
