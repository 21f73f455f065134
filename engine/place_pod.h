// Placing one pod: filter the nodes it fits, score them with a policy, take the best. Ties are broken
// uniformly at random with the caller's generator, as kube-scheduler does, so a seed fixes the result.
#pragma once

#include <optional>

#include "engine/allocation.h"
#include "engine/cluster.h"
#include "engine/random.h"
#include "engine/scoring_policy.h"

namespace gangplank::engine {

// The best allocation for `request`, or nothing when no node fits. Does not change the cluster.
std::optional<Allocation> PlacePod(const Cluster& cluster, const PodRequest& request, ScoringPolicy& policy,
                                   Rng& rng);

}  // namespace gangplank::engine
