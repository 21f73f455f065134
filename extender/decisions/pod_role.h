// What the cache and the admission plan say about the pod being scheduled: its planned node (if the
// operator pinned it), its queue and gang, and whether its reservation is already held.
#pragma once

#include <string>

#include "cache/objects/kube_objects.h"
#include "cache/state/state_view.h"

namespace gangplank::extender {

struct PodRole {
  std::string planned_node;  // Empty: not pinned.
  std::string queue;
  // Why the pod's namespace or priority may not use its queue (cache/crd/queue_access.h); "" when it may.
  std::string queue_forbidden;
  std::string gang;  // "namespace/gang"; empty for a lone pod.
  // The cache holds this pod's reservation on planned_node (capacity already set aside for it).
  bool reservation_held = false;
};

PodRole RoleOf(const cache::StateView& view, const cache::PodInfo& pod);

}  // namespace gangplank::extender
