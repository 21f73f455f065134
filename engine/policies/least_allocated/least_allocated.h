// Spread: kube-scheduler's default NodeResourcesFit "LeastAllocated" strategy applied to GPUs, CPU and
// memory. A node scores higher the larger the share of its capacity left free after the pod, averaged
// over the resources the node has. Used by the time replay's kube-like baseline.
#pragma once

#include "engine/scoring_policy.h"

namespace gangplank::engine::policies {

class LeastAllocatedPolicy : public ScoringPolicy {
 public:
  std::string_view Name() const override { return "least-allocated"; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override;
};

}  // namespace gangplank::engine::policies
