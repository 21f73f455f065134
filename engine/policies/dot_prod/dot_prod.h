// DotProd (Tetris-style alignment) as the FGD paper ran it: the dot product of the node's free vector and
// the pod's demand over (CPU, total GPU), both normalised by the largest node spec, where a SMALLER product
// is better: score = trunc(100 * (1 - dot / 2)). GPUs inside the node by best fit.
#pragma once

#include "engine/scoring_policy.h"

namespace gangplank::engine::policies {

class DotProdPolicy final : public ScoringPolicy {
 public:
  std::string_view Name() const override { return "dotprod"; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  bool HasFastScore() const override { return true; }
  double FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) override;
};

}  // namespace gangplank::engine::policies
