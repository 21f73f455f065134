#include "extender/decisions/pod_role.h"

#include "cache/objects/conventions.h"

namespace gangplank::extender {

PodRole RoleOf(const cache::StateView& view, const cache::PodInfo& pod) {
  PodRole role;
  if (auto it = pod.annotations.find(std::string(cache::kPlannedNodeAnnotation)); it != pod.annotations.end()) {
    role.planned_node = it->second;
  }
  role.queue = view.QueueOf(pod);
  if (auto it = pod.labels.find(std::string(cache::kGangLabel)); it != pod.labels.end() && !it->second.empty()) {
    role.gang = pod.namespace_ + "/" + it->second;
  }
  if (!role.planned_node.empty()) {
    const cache::PodRecord* record = view.FindPod(pod.uid);
    role.reservation_held = record != nullptr && record->allocation.has_value() &&
                            record->allocation->node == view.FindNode(role.planned_node);
  }
  return role;
}

}  // namespace gangplank::extender
