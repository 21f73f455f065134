#include "tools/scheduler-driver/cluster_events.h"

#include <tuple>

#include "tools/scheduler-driver/pod_candidacy.h"

namespace gangplank::scheduler_driver {
namespace {

bool SameTaints(const std::vector<kube::Taint>& a, const std::vector<kube::Taint>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tie(a[i].key, a[i].value, a[i].effect) != std::tie(b[i].key, b[i].value, b[i].effect)) return false;
  }
  return true;
}

bool SameTolerations(const std::vector<kube::Toleration>& a, const std::vector<kube::Toleration>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tie(a[i].key, a[i].op, a[i].value, a[i].effect) != std::tie(b[i].key, b[i].op, b[i].value, b[i].effect)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool SameAmounts(const std::vector<kube::ResourceAmount>& a, const std::vector<kube::ResourceAmount>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& amount : a) {
    const kube::ResourceAmount* other = kube::FindAmount(b, amount.name);
    if (other == nullptr || other->milli != amount.milli) return false;
  }
  return true;
}

bool NodeMayAdmitMore(const kube::Node* before, const kube::Node& after) {
  return before == nullptr || before->unschedulable != after.unschedulable || !SameTaints(before->taints, after.taints) ||
         !SameAmounts(before->allocatable, after.allocatable) || !(before->meta.labels == after.meta.labels);
}

bool FreesNodeResources(const kube::Pod* before, const kube::Pod* after) {
  if (before == nullptr || !HoldsNodeResources(*before)) return false;
  return after == nullptr || !HoldsNodeResources(*after) || after->node_name != before->node_name;
}

bool SchedulingRelevantChange(const kube::Pod& before, const kube::Pod& after) {
  return before.meta.uid != after.meta.uid || before.scheduling_gates != after.scheduling_gates ||
         !SameAmounts(before.requests, after.requests) || !(before.node_selector == after.node_selector) ||
         !SameTolerations(before.tolerations, after.tolerations) || before.priority != after.priority ||
         !(before.meta.labels == after.meta.labels) || !(before.meta.annotations == after.meta.annotations);
}

}  // namespace gangplank::scheduler_driver
