#include "engine/policies/dot_prod/dot_prod.h"

#include "engine/policies/common/kube_score.h"

namespace gangplank::engine::policies {

double DotProdPolicy::FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) {
  const NodeState& state = cluster.state(node);
  const double dot = static_cast<double>(state.free.cpu_milli) / kMaxSpecCpuMilli *
                         (static_cast<double>(request.host.cpu_milli) / kMaxSpecCpuMilli) +
                     static_cast<double>(state.TotalFreeGpuMilli()) / kMaxSpecGpuMilli *
                         (static_cast<double>(request.TotalGpuMilli()) / kMaxSpecGpuMilli);
  return TruncateScore((1.0 - dot / 2.0) * static_cast<double>(kMaxNodeScore));
}

NodeScore DotProdPolicy::Score(const Cluster& cluster, NodeId node, const PodRequest& request) {
  return NodeScore{FastScore(cluster, node, request), DefaultGpuChoice(cluster.state(node), request)};
}

}  // namespace gangplank::engine::policies
