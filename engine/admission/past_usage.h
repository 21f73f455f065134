// Time-based fair share in the round: each queue's past usage (AdmissionQueue::past_usage) with
// everything below it, the way held GPUs are totalled, so an inner queue compared against its sibling
// carries its children's history.
#pragma once

#include <vector>

#include "engine/admission/admission_input.h"
#include "engine/admission/queue_tree.h"

namespace gangplank::engine {

// Throws std::invalid_argument when a queue's past usage is negative or not finite (it orders queues, and a
// NaN would make that order meaningless).
void CheckPastUsage(const std::vector<AdmissionQueue>& queues);

// Per queue (tree order = input order), its past usage plus that of every queue below it.
std::vector<double> SubtreePastUsage(const QueueTree& tree, const std::vector<AdmissionQueue>& queues);

}  // namespace gangplank::engine
