// The order in which waiting gangs are offered to the planner: the queue furthest below its fair share
// first (lowest allocated / fair share; a queue with no fair share comes after every queue with one),
// then higher priority, then earlier arrival, then the caller's sequence number as a stable tie-break.
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
};

// allocated / fair share, +infinity when the fair share is 0.
double ShareRatio(double allocated, double fair_share);

// Strict weak order: true when `a` should be admitted before `b`.
bool AdmitsBefore(const AdmissionCandidate& a, const AdmissionCandidate& b);

// Indices of `candidates` in admission order.
std::vector<int> AdmissionOrder(const std::vector<AdmissionCandidate>& candidates);

}  // namespace gangplank::engine
