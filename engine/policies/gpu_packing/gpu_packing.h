// GpuPacking as the FGD paper's baseline, in three score bands (integer 0..100):
//   partly used GPUs suffice        -> 100 - (free share of the GPUs used)/10, at least 50
//   needs fully free GPUs, node used -> 50 - fully free GPUs taken, at least 33
//   node entirely idle              -> 33 - its GPU count (never below that count)
// Pods without GPUs score 0 everywhere (placed by the caller's tie rule). GPUs: fullest fitting first.
#pragma once

#include "engine/scoring_policy.h"

namespace gangplank::engine::policies {

class GpuPackingPolicy final : public ScoringPolicy {
 public:
  std::string_view Name() const override { return "gpupacking"; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  bool HasFastScore() const override { return true; }
  double FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) override;
};

}  // namespace gangplank::engine::policies
