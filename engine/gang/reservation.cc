#include "engine/gang/reservation.h"

#include <algorithm>
#include <functional>

namespace gangplank::engine {
namespace {

struct Candidate {
  int ready = -1;  // GPUs of the members already free on the chosen nodes.
  std::vector<NodeId> nodes;
};

// Member sizes descending, matched to the nodes with the most free GPUs.
Candidate Evaluate(const Cluster& cluster, const std::vector<NodeId>& domain_nodes, const GangRequest& gang,
                   const std::vector<int>& sizes) {
  Candidate c;
  std::vector<NodeId> nodes;
  for (NodeId n : domain_nodes) {
    const bool eligible = std::any_of(gang.members.begin(), gang.members.end(),
                                      [&](const PodRequest& m) { return cluster.Eligible(n, m); });
    if (eligible && cluster.spec(n).gpu_count >= sizes.front()) nodes.push_back(n);
  }
  if (nodes.size() < sizes.size()) return c;
  std::stable_sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
    return cluster.state(a).FullyFreeGpus() > cluster.state(b).FullyFreeGpus();
  });
  nodes.resize(sizes.size());
  c.ready = 0;
  for (size_t i = 0; i < sizes.size(); ++i) c.ready += std::min(cluster.state(nodes[i]).FullyFreeGpus(), sizes[i]);
  c.nodes = std::move(nodes);
  return c;
}

}  // namespace

std::vector<NodeId> ChooseReservation(const Cluster& cluster, const GangRequest& gang) {
  if (gang.members.empty()) return {};
  std::vector<int> sizes;
  for (const PodRequest& m : gang.members) sizes.push_back(m.WantsGpu() ? m.gpu_count : 0);
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  const Topology& topology = cluster.topology();
  const int widest = gang.required_level.empty() ? -1 : topology.LevelIndex(gang.required_level);
  for (int level = topology.levels() - 1; level >= widest; --level) {
    Candidate best;
    if (level < 0) {
      std::vector<NodeId> all(static_cast<size_t>(cluster.size()));
      for (NodeId n = 0; n < cluster.size(); ++n) all[n] = n;
      best = Evaluate(cluster, all, gang, sizes);
    } else {
      for (DomainId d : topology.DomainsAt(level)) {
        if (topology.NodesIn(d).size() < sizes.size()) continue;
        Candidate c = Evaluate(cluster, topology.NodesIn(d), gang, sizes);
        if (c.ready > best.ready) best = std::move(c);
      }
    }
    if (best.ready >= 0) return best.nodes;
  }
  return {};
}

}  // namespace gangplank::engine
