// Whether a pod changed in anything an admission plan depends on between two reads of it.
//
// The operator's pod writes carry the resourceVersion it read as a precondition. A pod's status moves on
// its own while it waits: kube-scheduler marks a gated pod SchedulingGated, KWOK or a kubelet reports,
// gangplank writes its own conditions. None of that changes what was planned, so a write refused for it
// is made again on the version just read; anything else the plan read (labels, annotations, gates,
// requests, node, owner, ...) makes the caller plan again.
#pragma once

#include "cache/objects/kube_objects.h"

namespace gangplank::op {

// True when `now` differs from `read` in its status and resourceVersion only.
bool OnlyStatusMoved(const cache::PodInfo& read, const cache::PodInfo& now);

}  // namespace gangplank::op
