// Random, as the FGD paper's baseline: a uniformly random fitting node, and for a sharing pod a uniformly
// random GPU with room on it (the paper's simulator pairs Random with random GPU selection). Like the
// paper's RandomScore plugin, the randomness lives in the scores rather than in the caller's tie rule:
// each fitting node gets a pseudo-random score in [0, 1), so the best is uniform over the fitting nodes
// whether equal scores are broken at random (PlacePod) or by node order (the paper's simulator, see
// simulator/frag/node_order_placement.h). A node's score is a hash of (seed, node, node version, placements
// so far, request shape): fixed within one decision, so FastScore equals Score, and fresh for the next.
#pragma once

#include <cstdint>

#include "engine/random.h"
#include "engine/scoring_policy.h"

namespace gangplank::engine::policies {

class RandomPolicy final : public ScoringPolicy {
 public:
  explicit RandomPolicy(std::uint64_t seed = 0) : seed_(seed), rng_(seed) {}
  std::string_view Name() const override { return "random"; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  bool HasFastScore() const override { return true; }
  double FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  void OnAssigned(const Allocation&, const PodRequest&) override { ++placements_; }
  void OnReleased(const Allocation&, const PodRequest&) override { ++placements_; }

 private:
  std::uint64_t seed_;
  std::uint64_t placements_ = 0;  // Assignments and releases reported so far: a new draw after each.
  Rng rng_;                       // GPU choice for sharing pods.
};

}  // namespace gangplank::engine::policies
