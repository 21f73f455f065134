#include "engine/policies/gpu_packing/gpu_packing.h"

#include <algorithm>

#include "engine/policies/common/kube_score.h"

namespace gangplank::engine::policies {
namespace {

// Fullest GPUs with room first; only a sharing pod (one GPU) can land on a partly used GPU, since a
// whole-GPU request fits fully free GPUs only. So the choice is the fullest fitting GPU for a sharing pod
// and the lowest-indexed fully free GPUs otherwise: no sort needed.
int FullestFitting(const NodeState& state, MilliGpu milli) {
  int best = -1;
  for (int g = 0; g < static_cast<int>(state.gpu_free.size()); ++g) {
    const MilliGpu f = state.gpu_free[static_cast<size_t>(g)];
    if (f >= milli && (best < 0 || f < state.gpu_free[static_cast<size_t>(best)])) best = g;
  }
  return best;
}

}  // namespace

double GpuPackingPolicy::FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) {
  const NodeState& state = cluster.state(node);
  if (!request.WantsGpu()) return 0;
  const int n = static_cast<int>(state.gpu_free.size());
  const int fully_free = state.FullyFreeGpus();
  if (fully_free == n) return static_cast<double>(std::max<std::int64_t>(kMaxNodeScore / 3 - fully_free, fully_free));
  int fully_free_used = 0;
  std::int64_t free_percent = 0;
  if (request.IsSharing()) {
    const int g = FullestFitting(state, request.gpu_milli);
    if (g < 0) return 0;
    const MilliGpu f = state.gpu_free[static_cast<size_t>(g)];
    fully_free_used = f == kMilliPerGpu ? 1 : 0;
    free_percent = f * 100 / kMilliPerGpu;
  } else {
    fully_free_used = request.gpu_count;
  }
  if (fully_free_used > 0) {
    return static_cast<double>(std::max<std::int64_t>(kMaxNodeScore / 2 - fully_free_used, kMaxNodeScore / 3));
  }
  return static_cast<double>(std::max<std::int64_t>(kMaxNodeScore - free_percent / 10, kMaxNodeScore / 2));
}

NodeScore GpuPackingPolicy::Score(const Cluster& cluster, NodeId node, const PodRequest& request) {
  NodeScore s{FastScore(cluster, node, request), {}};
  if (!request.WantsGpu()) return s;
  if (request.IsSharing()) {
    const int g = FullestFitting(cluster.state(node), request.gpu_milli);
    if (g >= 0) s.gpus.push_back(g);
  } else {
    s.gpus = DefaultGpuChoice(cluster.state(node), request);
  }
  return s;
}

}  // namespace gangplank::engine::policies
