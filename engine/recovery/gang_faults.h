// Which faults count against one gang now, and which will once their grace ends: the first half of a
// recovery decision (gang_recovery.h has the rules; this file applies the ones on counting).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/recovery/gang_health.h"
#include "engine/recovery/node_fault.h"

namespace gangplank::engine {

// One fault of a gang, as a decision names it.
struct GangFault {
  FaultCause cause = FaultCause::kMemberFailed;
  std::string node;  // The node at fault, or the member's node; empty for kBelowMinimum.
  std::string message;
  double since = 0;      // When it started.
  double counts_at = 0;  // When it counts: `since`, or the end of its grace.
  // The gang still runs whole despite it (a live host's GPU or condition), so it can checkpoint first.
  bool checkpointable = false;
  // The node is to blame: a node cause, or a member that failed on a node with a fault of its own. The gang is
  // planned again without `node`.
  bool node_to_blame = false;
  // The gang's own failure (a member failed or deleted on a node with no fault, too few members): counted against
  // its restart limit and backoff. A node's fault is the cluster's, never charged to the gang.
  bool charged = false;
};

struct GangFaults {
  // In the gang's node order (each node's faults in input order), then its members', then its size.
  std::vector<GangFault> counted;
  std::vector<GangFault> pending;  // Count at `counts_at` unless they clear first.
};

// The node faults by node name (views into `faults`, which must outlive the index), each node's in
// input order. A node listed here explains a member failing on it, even by a fault that does not count (a GPU
// shortfall its pods now fit in, a lost host within its grace).
using NodeFaultIndex = std::unordered_map<std::string_view, std::vector<const NodeFault*>>;
NodeFaultIndex IndexByNode(const std::vector<NodeFault>& faults);

GangFaults FaultsOf(const GangHealth& gang, const NodeFaultIndex& nodes, double now);

}  // namespace gangplank::engine
