// BestFit as the FGD paper's baseline: the node left with the least free resources after placement,
// measured as 0.5 * CPU + 0.5 * GPU, each normalised by the largest node spec, scaled to an integer
// 0..100 (higher is fuller). GPUs inside the node by the default best-fit rule.
#pragma once

#include "engine/scoring_policy.h"

namespace gangplank::engine::policies {

class BestFitPolicy final : public ScoringPolicy {
 public:
  std::string_view Name() const override { return "bestfit"; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  bool HasFastScore() const override { return true; }
  double FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) override;
};

// The raw 0..100 score before truncation, for policies that want BestFit as a fine-grained tie-breaker.
double BestFitFraction(const NodeState& state, const PodRequest& request);

}  // namespace gangplank::engine::policies
