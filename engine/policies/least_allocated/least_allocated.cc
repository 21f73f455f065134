#include "engine/policies/least_allocated/least_allocated.h"

namespace gangplank::engine::policies {

NodeScore LeastAllocatedPolicy::Score(const Cluster& cluster, NodeId node, const PodRequest& request) {
  const NodeSpec& spec = cluster.spec(node);
  const NodeState& state = cluster.state(node);
  NodeScore out;
  out.gpus = DefaultGpuChoice(state, request);
  double sum = 0;
  int resources = 0;
  auto add = [&](double free_after, double capacity) {
    if (capacity <= 0) return;
    sum += free_after / capacity;
    ++resources;
  };
  add(static_cast<double>(state.free.cpu_milli - request.host.cpu_milli), static_cast<double>(spec.capacity.cpu_milli));
  add(static_cast<double>(state.free.memory_mib - request.host.memory_mib),
      static_cast<double>(spec.capacity.memory_mib));
  add(static_cast<double>(state.TotalFreeGpuMilli() - (request.WantsGpu() ? request.TotalGpuMilli() : 0)),
      static_cast<double>(spec.gpu_count) * kMilliPerGpu);
  out.score = resources > 0 ? 100.0 * sum / resources : 0;
  return out;
}

}  // namespace gangplank::engine::policies
