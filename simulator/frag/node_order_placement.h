// Placement with the tie rule of the FGD paper's simulator. That simulator runs kube-scheduler v1.20 from a
// fork whose selectHost no longer samples equal best scores at random: it takes the node whose name sorts
// first, "for reproducibility". Node names there start with a seeded random permutation index, so the rule
// amounts to "equal scores go to the node earliest in one random node order fixed for the whole run". Every
// run keeps reusing the same few nodes while they tie, which packs the cluster much like a fuller-node
// tie-break; with the upstream random rule the integer-scored baselines (GpuPacking, GpuClustering, FGD)
// land 3-5 points worse than published.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/allocation.h"
#include "engine/cluster.h"
#include "engine/scoring_policy.h"

namespace gangplank::simulator::frag {

// How equal best scores are broken in a replay.
enum class TieBreak {
  kNodeOrder,  // The paper's simulator: first node in a seeded random node order (see above).
  kRandom,     // Upstream kube-scheduler: uniformly at random among the equal best (engine::PlacePod).
};

// A seeded random rank per node (a permutation of 0..n-1); lower ranks win ties.
std::vector<std::uint32_t> NodeTieRanks(int nodes, std::uint64_t seed);

// The best allocation for `request` by `policy`, equal scores to the lowest rank; nothing when no node
// fits. `ranks` must hold one entry per node. Does not change the cluster.
std::optional<engine::Allocation> PlaceWithNodeOrderTies(const engine::Cluster& cluster,
                                                         const engine::PodRequest& request,
                                                         engine::ScoringPolicy& policy,
                                                         const std::vector<std::uint32_t>& ranks);

}  // namespace gangplank::simulator::frag
