#include "extender/decisions/pod_role.h"

#include "cache/crd/queue_access.h"
#include "cache/objects/conventions.h"

namespace gangplank::extender {

PodRole RoleOf(const cache::StateView& view, const cache::PodInfo& pod) {
  PodRole role;
  role.planned_node = pod.PlannedNode();
  role.queue = view.QueueOf(pod);
  if (const cache::QueueConfig* queue = role.queue.empty() ? nullptr : view.FindQueue(role.queue)) {
    role.queue_forbidden = cache::QueueAccessRefusal(*queue, pod.namespace_, view.NamespaceQueue(pod.namespace_), pod.priority,
                                                     pod.QueueLabel().has_value());
  }
  if (const std::string gang = pod.Label(cache::kGangLabel); !gang.empty()) role.gang = pod.namespace_ + "/" + gang;
  if (!role.planned_node.empty()) {
    const cache::PodRecord* record = view.FindPod(pod.uid);
    role.reservation_held = record != nullptr && record->allocation.has_value() &&
                            record->allocation->node == view.FindNode(role.planned_node);
  }
  return role;
}

}  // namespace gangplank::extender
