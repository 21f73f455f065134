// Watches Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1) where the API server serves them, so a
// gang declared by one is read again as soon as its terms change: a lowered gang.minCount, a PodGroup
// created after its pods, or one deleted under them. Pods bring no event for any of these, and a
// waiting gang would otherwise see them only when one of its pods changed.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "cache/feed/shared_informers.h"

namespace gangplank::op {

// Probes once a second until the API server can tell (or `stopping`), then watches PodGroups if served,
// calling `changed` with the gang key (cache::NativePodGroupKey) of each one added, deleted or whose
// spec changed (status writes, gangplank's own among them, do not count). Returns whether they are
// watched.
bool WatchNativePodGroups(cache::SharedInformers& informers, const std::atomic<bool>& stopping,
                          std::function<void(const std::string& gang_key)> changed);

}  // namespace gangplank::op
