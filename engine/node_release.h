// Giving a pod's allocation back on its node: the arithmetic of Cluster::Release, for callers that work
// on a copy of one node's free capacity (the extender's preempt asks whether a pod fits once its victims
// are gone, without touching the shared cluster).
#pragma once

#include "engine/allocation.h"
#include "engine/node.h"

namespace gangplank::engine {

// Adds the allocation's CPU, memory and per-GPU shares back to `state`, the free capacity of
// allocation.node. Unchecked: the caller knows the allocation is held there (Cluster::Release checks).
void ReleaseOnNode(NodeState& state, const Allocation& allocation);

}  // namespace gangplank::engine
