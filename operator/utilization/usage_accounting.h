// Counting what a pool's running gangs hold, once per reconcile: GPU-seconds since the last count, per
// queue and namespace, into the Prometheus counters (allocated, and busy: weighted by each gang's measured
// utilization while it is known) and into the pool's usage ledger, which gives each Queue's used GPU-hours
// and, when the pool opts in (spec.fairShare), the past usage the admission round counts beside what a
// queue holds now.
#pragma once

#include "operator/gangs/gang_tracker.h"
#include "operator/metrics/usage_metrics.h"
#include "operator/model/pool_model.h"
#include "operator/utilization/pod_utilization.h"

namespace gangplank::op {

// The mean utilization of a gang's members that hold capacity, or a negative number when any of them
// has no series in `snapshot` (or it is null or failed).
double GangUtilization(const Gang& gang, const PodUtilizationSnapshot* snapshot);

class UsageAccounting {
 public:
  UsageAccounting(const GangTracker& tracker, UsageMetrics* metrics) : tracker_(tracker), metrics_(metrics) {}

  // Counts [model.usage.counted_at, now) for the running gangs of the book when kUsageCountSeconds
  // passed or a new read arrived, then sets each queue's past_usage in the round's input.
  void Count(PoolModel& model, const PodUtilizationSnapshot* snapshot, double now);

 private:
  void CountGangs(PoolModel& model, const PodUtilizationSnapshot* snapshot, double from, double now);

  const GangTracker& tracker_;
  UsageMetrics* metrics_;
};

}  // namespace gangplank::op
