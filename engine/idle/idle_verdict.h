// Whether a gang's GPUs have sat idle past the limit of its idle policy (issue 20), judged from the
// utilization polls of its GPUs. Missing data never makes a gang idle: the polls must cover the whole
// idle span, so a metrics outage reads as "no data", not as "idle", and nothing is evicted for it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/idle/idle_policy.h"
#include "engine/idle/utilization_window.h"

namespace gangplank::engine {

struct IdleVerdict {
  // Below the threshold in every poll of the last idle_seconds, with data all along, older than
  // min_age_seconds, not opted out, and the policy not off.
  bool idle = false;
  // Start of the current run of polls below the threshold (no gap longer than max_gap in it, the last
  // within max_gap of now); unset when the latest data is at or above the threshold, or too old.
  std::optional<double> idle_since;
  // Mean utilization of the polls with data in the last idle_seconds; unset when there are none.
  std::optional<double> mean_percent;
  // Why, in words for the gang's Events: "GPUs at 0.4% on average for 3600 s, below 5%".
  std::string reason;
};

// `samples` in time order (UtilizationWindow keeps them so); those before `start` (the gang's
// admission) or after `now` are ignored. `max_gap_seconds` is the longest stretch without data that
// still counts as covered (a few poll intervals, so one lost poll does not reset the clock).
IdleVerdict JudgeIdle(const std::vector<UtilizationSample>& samples, double start, double now,
                      const IdlePolicy& policy, bool opted_out, double max_gap_seconds);

}  // namespace gangplank::engine
