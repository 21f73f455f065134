// A test-only packing policy shared by the engine suites: prefers the node with the fewest free GPUs
// after the pod, with the default GPU choice, so expected placements can be worked out by hand.
#pragma once

#include <string_view>

#include "engine/cluster.h"
#include "engine/scoring_policy.h"

namespace gangplank::engine::testing {

class LeastFreePolicy : public ScoringPolicy {
 public:
  std::string_view Name() const override { return "least-free"; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override {
    NodeScore s;
    s.gpus = DefaultGpuChoice(cluster.state(node), request);
    s.score = -static_cast<double>(cluster.state(node).TotalFreeGpuMilli() - request.TotalGpuMilli());
    return s;
  }
};

}  // namespace gangplank::engine::testing
