#include "simulator/time_replay/prediction_accuracy.h"

#include <algorithm>
#include <cmath>

#include "simulator/time_replay/replay_metrics.h"

namespace gangplank::simulator {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

struct Tally {
  int ended = 0, within = 0;
  std::vector<double> errors, ratios;

  PredictionAccuracy Row(std::string label) const {
    const int predicted = static_cast<int>(errors.size());
    return PredictionAccuracy{std::move(label), ended, predicted,
                              predicted > 0 ? static_cast<double>(within) / predicted : 0, Median(errors) / 3600,
                              Median(ratios)};
  }
};

}  // namespace

std::vector<PredictionAccuracy> AccuracyBySize(const Workload& workload, const ReplayResult& result) {
  const PredictionRecord& p = result.prediction;
  if (!p.enabled) return {};
  const std::vector<SizeBucket> buckets = SizeBuckets();
  std::vector<Tally> tallies(buckets.size() + 1);
  for (size_t id = 0; id < workload.jobs.size() && id < result.jobs.size(); ++id) {
    if (result.jobs[id].end < 0) continue;
    const ReplayJob& job = workload.jobs[id];
    size_t b = 0;
    while (b + 1 < buckets.size() && job.gpus > buckets[b].max_gpus) ++b;
    for (Tally* t : {&tallies[b], &tallies.back()}) {
      ++t->ended;
      const double q = id < p.at_quantile.size() ? p.at_quantile[id] : PredictionRecord::None();
      const double m = id < p.median.size() ? p.median[id] : PredictionRecord::None();
      if (std::isnan(q) || std::isnan(m)) continue;
      t->within += job.duration <= q ? 1 : 0;
      t->errors.push_back(std::fabs(m - job.duration));
      if (job.duration > 0) t->ratios.push_back(m / job.duration);
    }
  }
  std::vector<PredictionAccuracy> rows;
  for (size_t b = 0; b < buckets.size(); ++b) rows.push_back(tallies[b].Row(buckets[b].label));
  rows.push_back(tallies.back().Row("all"));
  return rows;
}

}  // namespace gangplank::simulator
