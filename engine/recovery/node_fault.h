// A fault on a node, as the cache's readers report it (cache/objects/node_fault.h): one node may carry
// several at once. Times are seconds in any epoch shared with `now`.
#pragma once

#include <string>

#include "engine/recovery/fault_cause.h"

namespace gangplank::engine {

struct NodeFault {
  std::string node;
  FaultCause cause = FaultCause::kNodeNotReady;  // A node cause (IsNodeCause).
  // What says so, for messages: "Ready=False", "taint node.kubernetes.io/unreachable",
  // "condition GpuUnhealthy=True".
  std::string signal;
  double since = 0;  // When it started.
  // The node still runs its pods (a GPU fault, a condition, a quarantine): the gang can be asked to
  // checkpoint first. False for a lost host whatever the caller says.
  bool host_alive = false;
  int gpus_allocatable = 0;  // kGpuShortfall: the GPUs the node offers now ...
  int gpus_allocated = 0;    // ... and those its pods hold; a fault only while the first is below the second.
};

}  // namespace gangplank::engine
