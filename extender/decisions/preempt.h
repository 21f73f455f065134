// The preempt verb's decision: of kube-scheduler's candidate victim sets, keep only those that take
// whole gangs (a gang's members on the same node are added; a gang with members elsewhere rules the
// node out), leave every other queue at or above its guaranteed GPUs, and actually make room for the
// pod in the engine's books. Victims are answered by UID, highest priority first.
#pragma once

#include <string>

#include "engine/request.h"
#include "extender/protocol/extender_types.h"
#include "cache/state/state_view.h"

namespace gangplank::extender {

struct PreemptVerdicts {
  // Holds views of the candidates' strings and of the state's (gang mates): encode it while both live.
  ExtenderPreemptionResult result;
  FailedNodesMap dropped;  // Node -> why its victim set was refused.
};

PreemptVerdicts SelectVictims(const cache::StateView& view, const cache::PodInfo& pod, const engine::PodRequest& request,
                              const NodeVictimsMap& candidates);

}  // namespace gangplank::extender
