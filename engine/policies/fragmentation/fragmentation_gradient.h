// The machinery shared by FGD and gangplank's own fragmentation policy: for a pod and a node, how much
// the node's expected fragmentation F_n(M) grows if the pod lands there, with the GPU inside the node
// that the policy's ranking prefers. Memoised per node state (see ScoreMemo, FragmentationModel::Cached).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/policies/fragmentation/node_fragmentation.h"
#include "engine/policies/fragmentation/score_memo.h"
#include "engine/scoring_policy.h"

namespace gangplank::engine::policies {

// A candidate placement as a policy's ranking sees it: the node before placement, and the GPU a sharing pod
// would take there (-1 otherwise).
struct GradientCandidate {
  double decrease;  // F(before) - F(after) in milli-GPU (usually negative).
  const Cluster& cluster;
  NodeId node;
  const PodRequest& request;
  int gpu;

  const NodeState& state() const { return cluster.state(node); }
};

// Turns a candidate placement into a score (higher is better).
using GradientRank = std::function<double(const GradientCandidate& candidate)>;

// An optional term added to the ranked score after the memo, for what depends on the whole cluster (and so
// changes whenever any node does) rather than on the node alone.
using ClusterBias = std::function<double(const Cluster& cluster, NodeId node, const PodRequest& request)>;

class FragmentationGradientPolicy : public ScoringPolicy {
 public:
  FragmentationGradientPolicy(std::string name, std::vector<TaskType> tasks, const MeasureOptions& measure,
                              GradientRank rank, ClusterBias bias = {});

  std::string_view Name() const override { return name_; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  bool HasFastScore() const override { return true; }
  double FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  void FastScores(const Cluster& cluster, const std::vector<NodeId>& nodes, const PodRequest& request,
                  std::vector<double>& scores) override;

  const FragmentationModel& model() const { return model_; }

 private:
  const ScoreMemo::Entry& Evaluate(const Cluster& cluster, NodeId node, const PodRequest& request);
  int NodeModel(const Cluster& cluster, NodeId node);

  std::string name_;
  FragmentationModel model_;
  GradientRank rank_;
  ClusterBias bias_;
  ScoreMemo memo_;
  std::vector<int> node_models_;  // Model index per node, -1 until looked up.
};

}  // namespace gangplank::engine::policies
