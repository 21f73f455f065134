// What preempt's gang check reads of each victim and gang mate, kept per PodId beside the records:
// 16 bytes in one array instead of a pointer chase into a large PodRecord per pod. ClusterState keeps
// it equal to the record's fields on every change (StateView::Placement).
#pragma once

#include "cache/state/pod_record.h"
#include "engine/resources.h"

namespace gangplank::cache {

struct PodPlacement {
  const std::vector<PodId>* gang_members = nullptr;  // PodRecord::gang_members.
  engine::NodeId node = engine::kNoNode;             // PodRecord::allocation->node; kNoNode: holds nothing.
  bool bound = false;                                // !PodRecord::node.empty().

  static PodPlacement Of(const PodRecord& pod) {
    return {pod.gang_members, pod.allocation ? pod.allocation->node : engine::kNoNode, !pod.node.empty()};
  }
  bool operator==(const PodPlacement&) const = default;
};

}  // namespace gangplank::cache
