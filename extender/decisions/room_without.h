// Whether a pod fits a node once some of its pods are gone: the preempt verb asks it of each victim
// set, the filter of the victims kube-scheduler has deleted for the pod but the cache still holds.
#pragma once

#include <span>

#include "cache/state/state_view.h"
#include "engine/cluster.h"
#include "engine/request.h"

namespace gangplank::extender {

// The engine's capacity rule on `node` with the allocations the `gone` pods hold there handed back on
// `scratch`, a copy of the node's free capacity (reused across calls: no allocation after the first).
// Null records (pods the cache does not know) and pods held elsewhere hand back nothing. Eligibility
// (taints, selectors) is the caller's to check.
bool FitsWithout(const cache::StateView& view, engine::NodeId node, const engine::PodRequest& request,
                 std::span<const cache::PodRecord* const> gone, engine::NodeState& scratch);

}  // namespace gangplank::extender
