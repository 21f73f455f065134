// A gang member's own fault, read from its pod: the pod Failed (its containers exited non-zero, the
// kubelet evicted it, its activeDeadlineSeconds passed) or is being deleted while it runs (someone
// deleted it, the taint manager evicted it). The operator turns it into the engine's MemberFault when the
// pod's gang is running; deletions the operator asked for itself (a restart, a reclaim) are its to skip.
// A pod already gone from the informer is a deletion the operator sees as the delete event.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

enum class MemberFaultCause { kMemberFailed, kMemberDeleted };
std::string_view MemberFaultCauseName(MemberFaultCause cause);  // "MemberFailed", "MemberDeleted"

struct MemberFaultSignal {
  MemberFaultCause cause = MemberFaultCause::kMemberFailed;
  std::string pod;   // namespace/name
  std::string node;  // spec.nodeName; "" when it never got one.
  // For events: "Failed: container trainer exited 137 (OOMKilled)", "Failed (Evicted: The node was low
  // on resource: memory.)", "deleted while Running".
  std::string signal;
  // Seconds since the epoch: when the failed container finished; none (a deletion, a pod that failed as
  // a whole): the operator's first sighting.
  std::optional<double> since;
};

// Nothing for a pod that runs, waits or Succeeded.
std::optional<MemberFaultSignal> ReadMemberFault(const PodInfo& pod);

}  // namespace gangplank::cache
