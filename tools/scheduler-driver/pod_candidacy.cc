#include "tools/scheduler-driver/pod_candidacy.h"

#include <tuple>

#include "cache/objects/kube_objects.h"

namespace gangplank::scheduler_driver {

bool IsSchedulingCandidate(const kube::Pod& pod, std::string_view scheduler_name) {
  return pod.scheduler_name == scheduler_name && pod.node_name.empty() && pod.scheduling_gates.empty() &&
         pod.meta.deletion_timestamp.empty() && (pod.phase.empty() || pod.phase == "Pending");
}

bool HoldsNodeResources(const kube::Pod& pod) {
  return !pod.node_name.empty() && !cache::IsFinishedPhase(pod.phase);
}

bool QueueOrder::operator<(const QueueOrder& other) const {
  if (priority != other.priority) return priority > other.priority;
  return std::tie(created, key) < std::tie(other.created, other.key);
}

QueueOrder OrderOf(const kube::Pod& pod) { return {pod.priority, pod.meta.creation_timestamp, pod.meta.key()}; }

}  // namespace gangplank::scheduler_driver
