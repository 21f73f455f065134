// What the cluster-state cache keeps about one pod: who it is, what it asks for, where it is bound or
// planned, and the exact allocation the engine cluster holds for it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/allocation.h"
#include "engine/request.h"

namespace gangplank::cache {

// A cached pod's compact id: stable while the pod is cached, reused after it is gone. Gang mates and
// the UID index refer to pods by it, so look-ups need no string hashing.
using PodId = std::uint32_t;
inline constexpr PodId kNoPod = ~PodId{0};

// A binding the cache holds before the pod informer has reported it (ClusterState::AssumeBound), as
// kube-scheduler's assume cache does; undone if the informer does not confirm it in time.
struct Assumption {
  std::chrono::steady_clock::time_point expires;  // time_point::max(): never.
  // False for a pod known only from the binder's copy (created and bound within the informer's lag):
  // forgotten on expiry rather than put back to what the informer reported.
  bool informer_saw_pod = true;
};

struct PodRecord {
  std::string uid;
  std::string namespace_;
  std::string name;
  std::string node;          // spec.nodeName; empty while unbound.
  std::string planned_node;  // gangplank.io/planned-node annotation.
  std::string queue;         // Effective queue (QueueResolver): own label, else the namespace's, else the default; empty: none.
  std::optional<std::string> queue_label;  // Its own gangplank.io/queue label, if it has one (PodInfo::QueueLabel).
  std::string scheduler_name;   // spec.schedulerName, and whether gangplank's gate holds it: together they
  bool admission_gated = false;  // say whether gangplank governs the pod (QueueResolver::Governs).
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
  PodId id = kNoPod;
  // The members of this pod's gang (an entry of the cache's gang table) while it is in one.
  const std::vector<PodId>* gang_members = nullptr;
  // Bound in the cache by AssumeBound and not yet confirmed by the informer.
  std::optional<Assumption> assumed;

  // The node whose capacity this pod holds or should hold: where it is bound, else where it is planned.
  const std::string& HoldingNode() const { return node.empty() ? planned_node : node; }
  bool ShouldHold() const { return !terminal && !HoldingNode().empty(); }
  // Planned but not yet bound: a reservation made by the admission plan.
  bool IsReservation() const { return node.empty() && !planned_node.empty() && !terminal; }
  std::int64_t GpuMilli() const { return request.WantsGpu() ? request.TotalGpuMilli() : 0; }
};

}  // namespace gangplank::cache
