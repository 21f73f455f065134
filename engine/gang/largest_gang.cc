#include "engine/gang/largest_gang.h"

#include <algorithm>

#include "engine/gang/domain_index.h"

namespace gangplank::engine {
namespace {

bool FullyFreeNode(const Cluster& cluster, NodeId n) {
  return cluster.spec(n).gpu_count > 0 && cluster.state(n).FullyFreeGpus() == cluster.spec(n).gpu_count;
}

}  // namespace

std::vector<LargestGang> LargestPlaceableGangs(const Cluster& cluster) {
  return LargestPlaceableGangs(cluster, std::vector<char>(static_cast<size_t>(cluster.size()), 1));
}

std::vector<LargestGang> LargestPlaceableGangs(const Cluster& cluster, const std::vector<char>& usable) {
  std::vector<char> counted(static_cast<size_t>(cluster.size()), 0);
  for (NodeId n = 0; n < cluster.size(); ++n) {
    counted[n] = static_cast<size_t>(n) < usable.size() && usable[n] && !cluster.spec(n).unschedulable ? 1 : 0;
  }
  const DomainIndex index(cluster, counted);
  const Topology& topology = cluster.topology();

  // Fully free nodes per domain (nodes may differ in size, so count nodes, not histogram buckets).
  std::vector<int> free_nodes(static_cast<size_t>(topology.domain_count()), 0);
  LargestGang pool;
  pool.level_key = "pool";
  pool.free_gpus = index.free_gpus(kNoDomain);
  for (NodeId n = 0; n < cluster.size(); ++n) {
    if (!counted[n] || !FullyFreeNode(cluster, n)) continue;
    ++pool.free_nodes;
    for (DomainId d : topology.path(n)) {
      if (d != kNoDomain) ++free_nodes[d];
    }
  }
  std::vector<LargestGang> result{pool};
  for (int level = 0; level < topology.levels(); ++level) {
    LargestGang entry;
    entry.level = level;
    entry.level_key = topology.level_keys()[level];
    for (DomainId d : topology.DomainsAt(level)) {
      if (entry.domain == kNoDomain || index.free_gpus(d) > entry.free_gpus) {
        entry.domain = d;
        entry.free_gpus = index.free_gpus(d);
      }
      entry.free_nodes = std::max(entry.free_nodes, free_nodes[d]);
    }
    result.push_back(entry);
  }
  return result;
}

}  // namespace gangplank::engine
