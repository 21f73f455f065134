// The filter verb's decision: which candidate nodes the pod may use, and for each other node why not.
// A pinned pod (admission plan) passes only on its planned node; everything else is the engine's fit
// against a cluster that already holds bound pods and planned pods' reservations, plus queue limits.
// With the grant of the extender's last preempt answer for this pod, its victims count as gone on the
// node kube-scheduler acted on (preemption_grant.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/request.h"
#include "extender/decisions/preemption_grant.h"
#include "extender/protocol/extender_types.h"
#include "cache/state/state_view.h"

namespace gangplank::extender {

struct FilterVerdicts {
  std::vector<size_t> passed;          // Indices into the candidate list, in input order.
  FailedNodesMap failed;               // Preemption may help.
  FailedNodesMap unresolvable;         // Preemption cannot help.
  std::vector<std::string_view> kinds; // One Rejection kind per rejected node, for metrics.
};

FilterVerdicts FilterNodes(const cache::StateView& view, const cache::PodInfo& pod, const engine::PodRequest& request,
                           const std::vector<std::string_view>& candidates, const PreemptionGrant* grant = nullptr);

}  // namespace gangplank::extender
