#include "engine/policies/best_fit/best_fit.h"

#include "engine/policies/common/kube_score.h"

namespace gangplank::engine::policies {

double BestFitFraction(const NodeState& state, const PodRequest& request) {
  const double cpu_left = static_cast<double>(state.free.cpu_milli - request.host.cpu_milli);
  const double gpu_left = static_cast<double>(state.TotalFreeGpuMilli() - request.TotalGpuMilli());
  const double left = 0.5 * cpu_left / kMaxSpecCpuMilli + 0.5 * gpu_left / kMaxSpecGpuMilli;
  return (1.0 - left) * static_cast<double>(kMaxNodeScore);
}

double BestFitPolicy::FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) {
  return TruncateScore(BestFitFraction(cluster.state(node), request));
}

NodeScore BestFitPolicy::Score(const Cluster& cluster, NodeId node, const PodRequest& request) {
  return NodeScore{FastScore(cluster, node, request), DefaultGpuChoice(cluster.state(node), request)};
}

}  // namespace gangplank::engine::policies
