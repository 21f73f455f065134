#include "engine/policies/random/random_policy.h"

namespace gangplank::engine::policies {

NodeScore RandomPolicy::Score(const Cluster& cluster, NodeId node, const PodRequest& request) {
  const NodeState& state = cluster.state(node);
  if (!request.IsSharing()) return NodeScore{0, DefaultGpuChoice(state, request)};
  // Reservoir sampling over the GPUs with room.
  int chosen = -1;
  std::uint64_t seen = 0;
  for (int g = 0; g < static_cast<int>(state.gpu_free.size()); ++g) {
    if (state.gpu_free[static_cast<size_t>(g)] >= request.gpu_milli && rng_.Below(++seen) == 0) chosen = g;
  }
  NodeScore s{0, {}};
  if (chosen >= 0) s.gpus.push_back(chosen);
  return s;
}

}  // namespace gangplank::engine::policies
