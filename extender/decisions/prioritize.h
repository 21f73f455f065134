// The prioritize verb's decision: engine scores mapped to kube-scheduler's 0..10. The fragmentation
// score comes from the configured engine policy (FragPack by default); for a gang member whose gang
// already holds nodes, closeness in the topology to those nodes counts half.
#pragma once

#include <string_view>
#include <vector>

#include "engine/scoring_policy.h"
#include "extender/protocol/extender_types.h"
#include "cache/state/state_view.h"

namespace gangplank::extender {

// One score per candidate, in input order. Nodes the pod does not fit on score 0; a pinned pod scores
// 10 on its planned node and 0 elsewhere.
std::vector<HostPriority> PrioritizeNodes(const cache::StateView& view, const cache::PodInfo& pod, const engine::PodRequest& request,
                                          const std::vector<std::string_view>& candidates,
                                          engine::ScoringPolicy& policy);

}  // namespace gangplank::extender
