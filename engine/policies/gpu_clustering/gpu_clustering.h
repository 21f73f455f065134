// GpuClustering as the FGD paper's baseline: keep pods with the same kind of GPU request (sharing, 1, 2,
// 4, 8 or other GPU counts) together. Bands (integer 0..100), each adding up to 25 for a fuller node:
//   node runs only this kind       -> 75..100
//   node runs this kind and others -> 50..75
//   node runs no GPU pods          -> 25..50
//   node runs only other kinds     ->  0..25
// Pods without GPUs score 0 everywhere. The policy remembers which kinds run where through OnAssigned /
// OnReleased, so the caller must report every allocation it applies.
#pragma once

#include <array>
#include <vector>

#include "engine/scoring_policy.h"

namespace gangplank::engine::policies {

class GpuClusteringPolicy final : public ScoringPolicy {
 public:
  std::string_view Name() const override { return "gpuclustering"; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  bool HasFastScore() const override { return true; }
  double FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  void OnAssigned(const Allocation& allocation, const PodRequest& request) override;
  void OnReleased(const Allocation& allocation, const PodRequest& request) override;

  enum Kind { kSharing, kOne, kTwo, kFour, kEight, kOther, kKinds };
  static Kind KindOf(const PodRequest& request);

 private:
  std::vector<std::array<int, kKinds>>& Grow(NodeId node);
  // Per node, how many GPU pods of each kind run there.
  std::vector<std::array<int, kKinds>> pods_by_kind_;
};

}  // namespace gangplank::engine::policies
