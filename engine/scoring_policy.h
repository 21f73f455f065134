// The one interface every node-scoring policy implements (engine/policies/<name>/). A policy sees only
// nodes the pod fits on, scores each (higher is better) and says which GPUs the pod would take there.
#pragma once

#include <string_view>
#include <vector>

#include "engine/allocation.h"
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
  // Optional fast path: when HasFastScore(), PlacePod ranks nodes by FastScore (which must equal
  // Score(...).score) and calls Score only for the node it picks, so policies need not build GPU lists
  // for every node.
  virtual bool HasFastScore() const { return false; }
  virtual double FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) {
    return Score(cluster, node, request).score;
  }
  // FastScore of each of `nodes` (all fitting) into `scores`, for callers that rank many nodes for one
  // request (the extender's prioritize); a policy overrides it to do per-request work once, not per node.
  virtual void FastScores(const Cluster& cluster, const std::vector<NodeId>& nodes, const PodRequest& request,
                          std::vector<double>& scores) {
    scores.resize(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) scores[i] = FastScore(cluster, nodes[i], request);
  }
  // Told after the caller applied (or released) an allocation this policy may have chosen, for policies
  // that remember what runs where (e.g. GPU clustering). Default: nothing to remember.
  virtual void OnAssigned(const Allocation& /*allocation*/, const PodRequest& /*request*/) {}
  virtual void OnReleased(const Allocation& /*allocation*/, const PodRequest& /*request*/) {}
};

}  // namespace gangplank::engine
