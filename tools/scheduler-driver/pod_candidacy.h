// Which pods the driver schedules and in which order — as kube-scheduler's profile filter,
// SchedulingGates plugin and PrioritySort decide them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kube/objects.h"

namespace gangplank::scheduler_driver {

// A pod to schedule: names `scheduler_name`, has no node, no scheduling gates (gated pods wait, exactly
// as the SchedulingGates plugin keeps them out of the active queue), is not being deleted and is Pending
// (an empty phase counts as Pending: the API server defaults it so).
bool IsSchedulingCandidate(const kube::Pod& pod, std::string_view scheduler_name);

// True when the pod holds resources on a node: it has one and has not finished (Succeeded/Failed pods
// free their requests, as kube-scheduler's assigned-pod informer drops them).
bool HoldsNodeResources(const kube::Pod& pod);

// PrioritySort: higher spec.priority first, then earlier creation, then the key (deterministic).
struct QueueOrder {
  std::int32_t priority = 0;
  std::string created;  // RFC 3339, second precision: compares as text
  std::string key;      // namespace/name

  bool operator<(const QueueOrder& other) const;
};
QueueOrder OrderOf(const kube::Pod& pod);

}  // namespace gangplank::scheduler_driver
