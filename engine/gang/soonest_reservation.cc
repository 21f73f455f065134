#include "engine/gang/soonest_reservation.h"

#include <algorithm>
#include <functional>

namespace gangplank::engine {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Pick {
  double start = kInfinity;
  int ready_gpus = -1;  // GPUs of the members already free on the chosen nodes.
  std::vector<NodeId> nodes;
};

// Member indices, largest GPU count first: the largest members are the hardest to seat.
std::vector<int> LargestFirst(const GangRequest& gang) {
  std::vector<int> order(gang.members.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return gang.members[a].gpu_count > gang.members[b].gpu_count; });
  return order;
}

int SizeOf(const PodRequest& member) { return member.WantsGpu() ? member.gpu_count : 0; }

// A node has room for a member now when enough whole GPUs are free; otherwise once its gangs are gone.
double ReadyAt(const Cluster& cluster, NodeId n, int size, const std::vector<double>& free_at, double now) {
  return cluster.state(n).FullyFreeGpus() >= size ? now : std::max(now, free_at[n]);
}

// Greedy: each member, largest first, on the unused node that is ready for it earliest.
Pick Seat(const Cluster& cluster, const std::vector<NodeId>& nodes, const GangRequest& gang,
          const std::vector<double>& free_at, double now, bool check_eligible) {
  if (nodes.size() < gang.members.size()) return {};
  Pick p{now, 0, {}};
  std::vector<char> used(nodes.size(), 0);
  for (int m : LargestFirst(gang)) {
    const PodRequest& member = gang.members[m];
    const int size = SizeOf(member);
    int best = -1;
    double best_at = kInfinity;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (used[i] || cluster.spec(nodes[i]).gpu_count < size) continue;
      if (check_eligible && !cluster.Eligible(nodes[i], member)) continue;
      const double at = ReadyAt(cluster, nodes[i], size, free_at, now);
      if (best < 0 || at < best_at) {
        best = static_cast<int>(i);
        best_at = at;
      }
    }
    if (best < 0) return {};
    used[best] = 1;
    p.nodes.push_back(nodes[best]);
    p.start = std::max(p.start, best_at);
    p.ready_gpus += std::min(cluster.state(nodes[best]).FullyFreeGpus(), size);
  }
  return p;
}

bool Sooner(const Pick& a, const Pick& b) {
  if (a.nodes.empty()) return false;
  if (b.nodes.empty()) return true;
  return a.start < b.start || (a.start == b.start && a.ready_gpus > b.ready_gpus);
}

std::vector<NodeId> AllNodes(const Cluster& cluster) {
  std::vector<NodeId> all(static_cast<size_t>(cluster.size()));
  for (NodeId n = 0; n < cluster.size(); ++n) all[n] = n;
  return all;
}

}  // namespace

SoonestReservation ChooseSoonestReservation(const Cluster& cluster, const GangRequest& gang,
                                            const std::vector<double>& free_at, double now) {
  SoonestReservation out;
  if (gang.members.empty()) return out;
  const Topology& topology = cluster.topology();
  const int widest = gang.required_level.empty() ? -1 : topology.LevelIndex(gang.required_level);
  for (int level = topology.levels() - 1; level >= widest; --level) {
    Pick best;
    DomainId best_domain = kNoDomain;
    if (level < 0) {
      best = Seat(cluster, AllNodes(cluster), gang, free_at, now, true);
    } else {
      for (DomainId d : topology.DomainsAt(level)) {
        Pick p = Seat(cluster, topology.NodesIn(d), gang, free_at, now, true);
        if (Sooner(p, best)) {
          best = std::move(p);
          best_domain = d;
        }
      }
    }
    // A wider domain spreads the gang further: worth it only when it starts strictly earlier.
    if (!best.nodes.empty() && best.start < out.start) {
      out = SoonestReservation{std::move(best.nodes), level, best_domain, best.start};
    }
  }
  return out;
}

double ExpectedStartOn(const Cluster& cluster, const GangRequest& gang, const std::vector<NodeId>& nodes,
                       const std::vector<double>& free_at, double now) {
  return Seat(cluster, nodes, gang, free_at, now, false).start;
}

std::string DomainName(const Cluster& cluster, const std::vector<NodeId>& nodes) {
  const Topology& topology = cluster.topology();
  for (int level = topology.levels() - 1; level >= 0 && !nodes.empty(); --level) {
    const DomainId d = topology.DomainOf(nodes.front(), level);
    if (d == kNoDomain) continue;
    const bool all = std::all_of(nodes.begin(), nodes.end(), [&](NodeId n) { return topology.DomainOf(n, level) == d; });
    if (all) return topology.level_keys()[level] + "=" + topology.ValueOf(d);
  }
  return "the pool";
}

}  // namespace gangplank::engine
