// The one interface every node-scoring policy implements (engine/policies/<name>/). A policy sees only
// nodes the pod fits on, scores each (higher is better) and says which GPUs the pod would take there.
#pragma once

#include <string_view>
#include <vector>

#include "engine/cluster.h"

namespace gangplank::engine {

struct NodeScore {
  double score = 0;
  std::vector<int> gpus;  // GPUs the pod would take on this node.
};

class ScoringPolicy {
 public:
  virtual ~ScoringPolicy() = default;
  virtual std::string_view Name() const = 0;
  // Called only for nodes where cluster.Fits(node, request). Not const: policies may memoise.
  virtual NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) = 0;
};

}  // namespace gangplank::engine
