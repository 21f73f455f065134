#include "engine/policies/gpu_clustering/gpu_clustering.h"

#include <stdexcept>

#include "engine/policies/common/kube_score.h"

namespace gangplank::engine::policies {

GpuClusteringPolicy::Kind GpuClusteringPolicy::KindOf(const PodRequest& request) {
  if (request.IsSharing()) return kSharing;
  switch (request.gpu_count) {
    case 1: return kOne;
    case 2: return kTwo;
    case 4: return kFour;
    case 8: return kEight;
    default: return kOther;
  }
}

std::vector<std::array<int, GpuClusteringPolicy::kKinds>>& GpuClusteringPolicy::Grow(NodeId node) {
  if (node < 0) throw std::invalid_argument("GpuClusteringPolicy: negative node id");
  if (static_cast<size_t>(node) >= pods_by_kind_.size()) pods_by_kind_.resize(static_cast<size_t>(node) + 1, {});
  return pods_by_kind_;
}

NodeScore GpuClusteringPolicy::Score(const Cluster& cluster, NodeId node, const PodRequest& request) {
  return NodeScore{FastScore(cluster, node, request), DefaultGpuChoice(cluster.state(node), request)};
}

double GpuClusteringPolicy::FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) {
  const NodeState& state = cluster.state(node);
  if (!request.WantsGpu()) return 0;
  const auto& counts = Grow(node)[static_cast<size_t>(node)];
  int kinds_present = 0;
  for (int c : counts) kinds_present += c > 0 ? 1 : 0;
  const bool same = counts[KindOf(request)] > 0;
  std::int64_t band = 0;
  if (same) {
    band = kinds_present == 1 ? kMaxNodeScore * 3 / 4 : kMaxNodeScore * 2 / 4;
  } else {
    band = kinds_present == 0 ? kMaxNodeScore / 4 : 0;
  }
  const auto used = static_cast<std::int64_t>(kMaxSpecGpuMilli) - state.TotalFreeGpuMilli();
  const std::int64_t fullness = kMaxNodeScore / 4 * used / static_cast<std::int64_t>(kMaxSpecGpuMilli);
  return static_cast<double>(band + fullness);
}

void GpuClusteringPolicy::OnAssigned(const Allocation& allocation, const PodRequest& request) {
  if (!request.WantsGpu()) return;
  ++Grow(allocation.node)[static_cast<size_t>(allocation.node)][KindOf(request)];
}

void GpuClusteringPolicy::OnReleased(const Allocation& allocation, const PodRequest& request) {
  if (!request.WantsGpu()) return;
  int& count = Grow(allocation.node)[static_cast<size_t>(allocation.node)][KindOf(request)];
  if (count > 0) --count;
}

}  // namespace gangplank::engine::policies
