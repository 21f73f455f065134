// Which informer events are worth another attempt for waiting pods (kube-scheduler's cluster events
// and queueing hints, reduced): a node that appears or changes in what the filters read; a pod that
// leaves a node (deleted or finished); and, for the pod itself, a change in what the filters or the
// extender read. Status-only writes — the driver's own PodScheduled condition among them — are not, so
// a failing pod never wakes itself up.
#pragma once

#include "kube/objects.h"

namespace gangplank::scheduler_driver {

// Requests equal resource by resource, in any order.
bool SameAmounts(const std::vector<kube::ResourceAmount>& a, const std::vector<kube::ResourceAmount>& b);

// `before` null: a new node.
bool NodeMayAdmitMore(const kube::Node* before, const kube::Node& after);

// A pod held resources on a node and no longer does (`after` null: deleted).
bool FreesNodeResources(const kube::Pod* before, const kube::Pod* after);

// Gates, requests, node selector, tolerations, priority, labels or annotations (the extender reads both).
bool SchedulingRelevantChange(const kube::Pod& before, const kube::Pod& after);

}  // namespace gangplank::scheduler_driver
