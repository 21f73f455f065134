#include "engine/policies/random/random_policy.h"

namespace gangplank::engine::policies {
namespace {

// SplitMix64's finaliser: a well-mixed 64-bit value from any input.
std::uint64_t Mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

double RandomPolicy::FastScore(const Cluster& cluster, NodeId node, const PodRequest& request) {
  // Cheap odd-multiplier sums for the inputs, two full mixing rounds for the result (runs once per node).
  const std::uint64_t decision = seed_ + placements_ * 0x9e3779b97f4a7c15ULL +
                                 static_cast<std::uint64_t>(request.host.cpu_milli) * 0xc2b2ae3d27d4eb4fULL +
                                 static_cast<std::uint64_t>(request.host.memory_mib) * 0x165667b19e3779f9ULL +
                                 static_cast<std::uint64_t>(request.gpu_count) * 0xd6e8feb86659fd93ULL +
                                 static_cast<std::uint64_t>(request.gpu_milli) * 0xff51afd7ed558ccdULL;
  const std::uint64_t where = static_cast<std::uint64_t>(node) * 0xa0761d6478bd642fULL +
                              cluster.version(node) * 0xe7037ed1a0b428dbULL;
  const std::uint64_t h = Mix(Mix(decision) ^ where);
  return static_cast<double>(h >> 11) * 0x1.0p-53;  // Uniform in [0, 1).
}

NodeScore RandomPolicy::Score(const Cluster& cluster, NodeId node, const PodRequest& request) {
  const NodeState& state = cluster.state(node);
  NodeScore s{FastScore(cluster, node, request), {}};
  if (!request.IsSharing()) {
    s.gpus = DefaultGpuChoice(state, request);
    return s;
  }
  // Reservoir sampling over the GPUs with room.
  int chosen = -1;
  std::uint64_t seen = 0;
  for (int g = 0; g < static_cast<int>(state.gpu_free.size()); ++g) {
    if (state.gpu_free[static_cast<size_t>(g)] >= request.gpu_milli && rng_.Below(++seen) == 0) chosen = g;
  }
  if (chosen >= 0) s.gpus.push_back(chosen);
  return s;
}

}  // namespace gangplank::engine::policies
