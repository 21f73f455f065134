#include "operator/writer/pod_drift.h"

#include <tuple>

namespace gangplank::op {
namespace {

// Every field of PodInfo that comes from metadata or spec: what the engine and the admission read.
auto PlannedFields(const cache::PodInfo& p) {
  return std::tie(p.name, p.namespace_, p.uid, p.creation_timestamp, p.controller, p.labels, p.annotations,
                  p.deleting, p.node_name, p.scheduler_name, p.scheduling_gates, p.priority,
                  p.active_deadline_seconds, p.node_selector, p.required_node_affinity, p.tolerations, p.containers,
                  p.init_containers, p.overhead);
}

}  // namespace

bool OnlyStatusMoved(const cache::PodInfo& read, const cache::PodInfo& now) {
  return PlannedFields(read) == PlannedFields(now);
}

}  // namespace gangplank::op
