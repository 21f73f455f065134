// The order in which waiting gangs are offered to the planner: the queue furthest below its fair share
// first (lowest allocated / fair share; a queue with no fair share comes after every queue with one),
// then higher priority, then earlier arrival, then the caller's sequence number as a stable tie-break.
// With time-based fair share a queue's past usage (UsageLedger::PastUsage, usage_ledger.h, already
// weighted) counts beside what it holds now, so of two queues holding alike the one that used less lately
// goes first. This file is the one place that rule lives: admission order and reclaim both use it.
#pragma once

#include <cstdint>
#include <vector>

namespace gangplank::engine {

struct AdmissionCandidate {
  double queue_allocated = 0;   // GPUs the gang's queue holds now.
  double queue_fair_share = 0;  // The queue's current fair share.
  int priority = 0;
  double arrival = 0;
  std::int64_t sequence = 0;
  double queue_past_usage = 0;  // Weighted decayed GPUs of the past; 0: time-based fair share off.
};

// (allocated + past usage) / fair share, +infinity when the fair share is 0.
double ShareRatio(double allocated, double fair_share, double past_usage = 0);

// What a queue may hold now and stand at `ratio` of its fair share, counting its past usage:
// ratio * fair share - past usage (the inverse of ShareRatio). Reclaim takes a victim queue no lower.
double HeldAtRatio(double ratio, double fair_share, double past_usage = 0);

// Strict weak order: true when `a` should be admitted before `b`.
bool AdmitsBefore(const AdmissionCandidate& a, const AdmissionCandidate& b);

// Indices of `candidates` in admission order.
std::vector<int> AdmissionOrder(const std::vector<AdmissionCandidate>& candidates);

}  // namespace gangplank::engine
