// The queue tree as the operator admits against it: Queue resources checked for what their schema
// cannot express (a parent that does not exist, a cycle), the inner queues (parents: pods name leaves
// only), and the engine's queue list for one pool.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "cache/crd/queue_config.h"
#include "engine/admission/admission_input.h"

namespace gangplank::op {

struct QueueProblem {
  std::string reason;   // CamelCase condition reason: ParentNotFound, ParentCycle, ParentInvalid.
  std::string message;
};

struct QueueTree {
  std::map<std::string, cache::QueueConfig> queues;    // Every queue that is part of a sound tree.
  std::map<std::string, QueueProblem> problems;        // Queues left out, with why (their subtrees too).
  std::set<std::string> inner;                         // Sound queues that are some queue's parent.

  // The queues a gang of `queue` climbs through, leaf first (empty for an unknown queue).
  std::vector<const cache::QueueConfig*> PathOf(const std::string& queue) const;
};

QueueTree BuildQueueTree(const std::vector<cache::QueueConfig>& queues);

// The engine's queues for `pool`: every sound queue that, with all its ancestors, may use the pool,
// with its quota there; victims' minimum runtime from the queue, else the engine's default.
std::vector<engine::AdmissionQueue> QueuesForPool(const QueueTree& tree, const std::string& pool);

struct QueueVerdict {
  std::string reason;   // Empty: the gang may be admitted through this queue in this pool.
  std::string message;
};

// Whether a gang naming `queue` may be admitted in `pool`: the queue exists, is sound, is a leaf, and it
// and its ancestors may use the pool.
QueueVerdict CheckQueue(const QueueTree& tree, const std::string& queue, const std::string& pool);

}  // namespace gangplank::op
