// What the cluster-state cache keeps about one pod: who it is, what it asks for, where it is bound or
// planned, and the exact allocation the engine cluster holds for it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/allocation.h"
#include "engine/request.h"

namespace gangplank::cache {

struct PodRecord {
  std::string uid;
  std::string namespace_;
  std::string name;
  std::string node;          // spec.nodeName; empty while unbound.
  std::string planned_node;  // gangplank.io/planned-node annotation.
  std::string queue;         // Effective queue: own label, else the namespace's; empty: no queue.
  bool queue_labelled = false;  // The pod names its queue itself (the namespace default does not apply).
  std::string gang;          // GangIdentity key ("namespace/gang", "namespace/Job/train", ...); empty: a lone pod.
  std::int32_t priority = 0;
  bool terminal = false;     // Succeeded or Failed: holds nothing.
  engine::PodRequest request;
  std::string request_error;  // Why the pod's resources could not be read; the pod then holds nothing.

  // Held in the engine cluster (bound pods, and planned pods as reservations); empty when the pod
  // holds nothing or could not be accounted (see problem).
  std::optional<engine::Allocation> allocation;
  std::string problem;  // Why the pod holds nothing although it should (bad request, node full, ...).
  // Held on a node outside this state's scope (ClusterScope): not this state's to account.
  bool foreign = false;

  // The node whose capacity this pod holds or should hold: where it is bound, else where it is planned.
  const std::string& HoldingNode() const { return node.empty() ? planned_node : node; }
  bool ShouldHold() const { return !terminal && !HoldingNode().empty(); }
  // Planned but not yet bound: a reservation made by the admission plan.
  bool IsReservation() const { return node.empty() && !planned_node.empty() && !terminal; }
  std::int64_t GpuMilli() const { return request.WantsGpu() ? request.TotalGpuMilli() : 0; }
};

}  // namespace gangplank::cache
