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

// Turns a candidate placement into a score (higher is better). `decrease` is F(before) - F(after) in
// milli-GPU (usually negative); `state` and `gpu` describe the node before placement and the GPU a
// sharing pod would take (-1 otherwise).
using GradientRank = std::function<double(double decrease, const NodeState& state, const PodRequest& request, int gpu)>;

class FragmentationGradientPolicy : public ScoringPolicy {
 public:
  FragmentationGradientPolicy(std::string name, std::vector<TaskType> tasks, bool count_memory, GradientRank rank,
                              double cpu_stranding_weight = 0);

  std::string_view Name() const override { return name_; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  bool HasFastScore() const override { return true; }
  double FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) override;

  const FragmentationModel& model() const { return model_; }

 private:
  const ScoreMemo::Entry& Evaluate(const Cluster& cluster, NodeId node, const PodRequest& request);
  int NodeModel(const Cluster& cluster, NodeId node);

  std::string name_;
  FragmentationModel model_;
  GradientRank rank_;
  ScoreMemo memo_;
  std::vector<int> node_models_;  // Model index per node, -1 until looked up.
};

}  // namespace gangplank::engine::policies
